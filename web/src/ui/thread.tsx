import { useState } from 'preact/hooks';
import { api, seg } from '../api.js';
import { inBackground } from '../state/background.js';
import { openThread } from '../state/open-view.js';
import { refreshThreads } from '../state/refreshers.js';
import { attempt, detail, linkedHubs, maySteer, me, threads } from '../state/view-state.js';
import type { ParleyEvent, ThreadInfo } from '../types.js';
import { Composer } from './composer.js';
import { Dialog, DialogButtons } from './dialog.js';
import { summaryOf } from './message.js';
import { dmLabel } from './sidebar.js';
import { SteeringPanel } from './steering.js';
import { Timeline } from './timeline.js';

/**
 * One thread: its header (state, export, side channel close), the timeline,
 * the composer, and beside them the steering panel.
 */
export function ThreadView({ thread, steering, onToggleSteering }: { thread: ThreadInfo; steering: boolean; onToggleSteering(): void }) {
  const [replyTo, setReplyTo] = useState<ParleyEvent | undefined>();
  const [sideFrom, setSideFrom] = useState<ParleyEvent | undefined>();
  const [closing, setClosing] = useState(false);
  const parent = thread.parent ? threads.value.find((t) => t.id === thread.parent) : undefined;
  const c = detail.value?.thread.id === thread.id ? detail.value.controls : undefined;
  const isHuman = me.value?.participant.profile.kind === 'human';
  const prefix = thread.kind === 'dm' ? '' : thread.kind === 'channel' ? '# ' : '↳ ';
  // Gaps the linked hubs list for this channel: a hole in its history, not silence (history sync asks for it).
  const gaps = thread.kind === 'channel' ? linkedHubs.value.flatMap((hub) => hub.gaps ?? []).filter((gap) => gap.channel === thread.name) : [];
  const exportHref = (format: string) => `/api/v1/threads/${seg(thread.id)}/export?format=${format}`;

  return (
    <div class={`thread-layout${steering ? ' with-steering' : ''}`}>
      <section class="thread" aria-labelledby="thread-title">
        <header class="thread-head">
          <h1 id="thread-title">
            {prefix}
            <bdi>{thread.kind === 'dm' ? dmLabel(thread) : thread.name}</bdi>
          </h1>
          {parent && (
            <button type="button" class="link small" onClick={() => inBackground(openThread(parent.id), 'opening a thread')}>
              from # <bdi>{parent.name}</bdi>
            </button>
          )}
          {thread.paused && <span class="badge warn">paused{c?.pausedBy ? ` by @${c.pausedBy}` : ''}</span>}
          {thread.done && <span class="badge">done{c?.doneBy ? ` by @${c.doneBy}` : ''}</span>}
          {thread.closed && <span class="badge">closed</span>}
          {c?.discussion.on && <span class="badge">discussion mode</span>}
          {gaps.length > 0 && (
            <span class="badge warn history-gap" title={gaps.map((gap) => `@${gap.author}'s events before ${gap.before} are missing; asked of the linked hubs`).join('\n')}>
              history incomplete
            </span>
          )}
          <span class="spacer" />
          <a class="button small secondary" href={exportHref('markdown')} download={`${thread.name}.md`}>
            Export Markdown
          </a>
          <a class="button small secondary" href={exportHref('jsonl')} download={`${thread.name}.jsonl`}>
            Export JSONL
          </a>
          {/* Signatures, rosters and the hub's seal: the file "parley verify" checks offline. */}
          <a class="button small secondary" href={exportHref('signed')} download={`${thread.name}.signed.jsonl`} title="For parley verify: every signature and the rosters">
            Export signed
          </a>
          {thread.kind === 'side' && !thread.closed && (
            <button type="button" class="small" onClick={() => setClosing(true)}>
              Close with summary
            </button>
          )}
          {/* Steering is an admin's: the hub refuses anyone else's controls, so the page does not offer them. */}
          {maySteer.value && (
            <button type="button" class="small secondary" aria-pressed={steering} onClick={onToggleSteering}>
              Steering
            </button>
          )}
        </header>
        {thread.closed && c?.summary && (
          <p class="banner">
            Closed with summary: <bdi>{c.summary}</bdi>
          </p>
        )}
        <Timeline thread={thread.id} onReply={setReplyTo} onSide={setSideFrom} />
        <Composer
          label={`Message ${thread.kind === 'dm' ? dmLabel(thread) : thread.name}`}
          thread={thread.id}
          replyTo={replyTo}
          onClearReply={() => setReplyTo(undefined)}
          disabledReason={
            thread.closed ? 'This side channel is closed; its summary is in the parent thread.' : thread.paused && !isHuman ? 'The thread is paused.' : undefined
          }
          onSend={async (text) => {
            await api('POST', `/threads/${seg(thread.id)}/messages`, { text, ...(replyTo ? { reply_to: replyTo.id } : {}) });
            setReplyTo(undefined);
          }}
        />
      </section>
      {steering && <SteeringPanel thread={thread} />}
      <OpenSide thread={thread} from={sideFrom} onClose={() => setSideFrom(undefined)} />
      <CloseSide thread={thread} open={closing} onClose={() => setClosing(false)} />
    </div>
  );
}

function OpenSide({ thread, from, onClose }: { thread: ThreadInfo; from: ParleyEvent | undefined; onClose(): void }) {
  const [title, setTitle] = useState('');
  return (
    <Dialog title="Open a side channel" open={from !== undefined} onClose={onClose}>
      {from && (
        <p class="muted">
          From @{from.author}: <bdi>{summaryOf(from).slice(0, 140)}</bdi>
        </p>
      )}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const opened = await attempt(() =>
            api<ThreadInfo>('POST', `/threads/${seg(thread.id)}/side`, { title, ...(from ? { from_event: from.id } : {}) }),
          );
          if (opened) {
            const id = opened.id;
            setTitle('');
            onClose();
            await refreshThreads();
            inBackground(openThread(id), 'opening the thread');
          }
        }}
      >
        <label>
          Title
          <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} required autoFocus placeholder="What the side channel is about" />
        </label>
        <DialogButtons submit="Open" onCancel={onClose} />
      </form>
    </Dialog>
  );
}

function CloseSide({ thread, open, onClose }: { thread: ThreadInfo; open: boolean; onClose(): void }) {
  const [summary, setSummary] = useState('');
  return (
    <Dialog title="Close the side channel" open={open} onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const closed = await attempt(() => api<{ parent: string }>('POST', `/threads/${seg(thread.id)}/close`, { summary }));
          if (closed) {
            setSummary('');
            onClose();
            await refreshThreads();
            inBackground(openThread(closed.parent), 'opening the parent thread');
          }
        }}
      >
        <label>
          Summary (posted back to the parent thread)
          <textarea value={summary} onInput={(e) => setSummary(e.currentTarget.value)} required rows={4} autoFocus />
        </label>
        <DialogButtons submit="Close and post summary" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
