/**
 * One event of a thread's log as the timeline shows it: messages with their
 * author, time, what they reply to and their markdown body; requests and
 * responses as linked cards with the request's status; steering and thread
 * changes as one-line notes.
 *
 * Text that authors wrote is isolated from the page around it: blocks get
 * dir="auto", inline pieces (intents, titles, summaries) a <bdi>, so a bidi
 * override such as U+202E in them cannot reorder the times, names and buttons
 * that follow it.
 */

import type { ComponentChildren } from 'preact';
import { describeControl } from '../../../src/format/event-text.js';
import { useMemo } from 'preact/hooks';
import type { ParleyEvent, RequestStatus, SentDelivery } from '../types.js';
import { openThread } from '../state/open-view.js';
import { me, openRequests, participants, requestStatus, sentDeliveries, threads } from '../state/view-state.js';
import { renderMarkdown } from './markdown.js';
import { Time } from './time.js';
import { AuthorChip } from './people.js';
import { inBackground } from '../state/background.js';

export interface MessageActions {
  onReply(event: ParleyEvent): void;
  onSide(event: ParleyEvent): void;
  onJump(seq: number): void;
  findById(id: string): ParleyEvent | undefined;
  findRequest(requestId: string): ParleyEvent | undefined;
}

export function EventRow({ event, actions, focused }: { event: ParleyEvent; actions: MessageActions; focused: boolean }) {
  const mine = event.from === me.value?.participant.id;
  const classes = ['event', `event-${event.type}`, mine ? 'mine' : '', focused ? 'focused' : ''].join(' ');
  if (event.type === 'control' || event.type === 'system' || event.type === 'presence') {
    return (
      <div class={classes} data-seq={event.seq}>
        <p class="note">
          <strong>@{event.author}</strong> {describeNote(event)} · <Time iso={event.ts} />
          {event.meta?.link && threads.value.some((t) => t.id === event.meta?.link) && (
            <>
              {' · '}
              <button type="button" class="link" onClick={() => inBackground(openThread(event.meta!.link!), 'opening a thread')}>
                open
              </button>
            </>
          )}
        </p>
      </div>
    );
  }
  return (
    <article class={classes} data-seq={event.seq} data-id={event.id} tabIndex={-1} aria-label={`${event.author}: ${summaryOf(event).slice(0, 200)}`}>
      <header>
        <AuthorChip handle={event.author} />
        {event.to !== 'all' && <span class="badge">to @{handleOf(event.to)}</span>}
        <Time iso={event.ts} />
        {event.meta?.redacted && <span class="badge warn" title="A secret was found and replaced before the message was stored">redacted</span>}
        {event.meta?.truncated && <span class="badge warn" title="The message was longer than the hub's limit and was cut">truncated</span>}
        <span class="actions">
          <button type="button" class="link" onClick={() => actions.onReply(event)} aria-label={`Reply to ${event.author}`}>
            Reply
          </button>
          {event.type === 'message' && (
            <button type="button" class="link" onClick={() => actions.onSide(event)} aria-label={`Open a side channel from ${event.author}'s message`}>
              Side channel
            </button>
          )}
        </span>
      </header>
      {event.meta?.reply_to && <ReplyQuote id={event.meta.reply_to} actions={actions} />}
      <Body event={event} actions={actions} />
      {mine && <Deliveries deliveries={sentDeliveries.value[event.id]} />}
    </article>
  );
}

/** Under a message I sent: what became of it for each recipient it targeted. */
function Deliveries({ deliveries }: { deliveries: SentDelivery[] | undefined }) {
  if (!deliveries?.length) return null;
  return (
    <p class="deliveries">
      {deliveries.map((d, i) => (
        <span key={d.to} class={`delivery delivery-${d.state}`} data-to={d.to} data-state={d.state}>
          {i > 0 && ' · '}
          {deliveryText(d)}
        </span>
      ))}
    </p>
  );
}

/** "seen by @coder-1's context 2 minutes ago": the state in words, and when it was reached. */
function deliveryText(d: SentDelivery) {
  const [label, at] =
    d.state === 'acknowledged'
      ? [`acknowledged by @${d.to}`, d.acknowledged_at]
      : d.state === 'injected'
        ? [`seen by @${d.to}'s context`, d.injected_at]
        : d.state === 'delivered'
          ? [`delivered to @${d.to}`, d.delivered_at]
          : d.state === 'expired'
            ? [`expired: @${d.to}'s hub was not reached in time`, d.expired_at]
            : [`not yet delivered to @${d.to}`, undefined];
  return (
    <>
      {label}
      {at && (
        <>
          {' '}
          <Time iso={at} />
        </>
      )}
    </>
  );
}

function Body({ event, actions }: { event: ParleyEvent; actions: MessageActions }) {
  if (event.type === 'request') {
    const r = event.content as { request_id: string; intent: string; params?: unknown; text?: string; hop: number };
    const status = statusOf(r.request_id);
    return (
      <div class="card request" data-request={r.request_id}>
        <p>
          <span class="kind">Request</span>{' '}
          <strong>
            <bdi>{r.intent}</bdi>
          </strong>{' '}
          → @{handleOf(event.to)} <Status status={status} />
          {r.hop > 0 && <span class="badge">hop {r.hop}</span>}
        </p>
        {r.text && <Markdown text={r.text} />}
        {r.params !== undefined && <JsonBlock value={r.params} />}
      </div>
    );
  }
  if (event.type === 'response') {
    const r = event.content as { request_id: string; status: RequestStatus; result?: unknown; text?: string };
    const request = actions.findRequest(r.request_id);
    const intent = (request?.content as { intent?: string } | undefined)?.intent;
    return (
      <div class="card response">
        <p>
          <span class="kind">Response</span> <Status status={r.status} /> to{' '}
          {request ? (
            <button type="button" class="link" onClick={() => actions.onJump(request.seq)}>
              <bdi>{intent ?? r.request_id}</bdi>
            </button>
          ) : (
            <code>{r.request_id}</code>
          )}
        </p>
        {r.text && <Markdown text={r.text} />}
        {r.result !== undefined && <JsonBlock value={r.result} />}
      </div>
    );
  }
  const text = typeof event.content === 'string' ? event.content : JSON.stringify(event.content);
  const link = event.meta?.link;
  const side = link ? threads.value.find((t) => t.id === link) : undefined;
  return (
    <>
      {side && (
        <p class="side-summary">
          Summary of side channel{' '}
          <button type="button" class="link" onClick={() => inBackground(openThread(side.id), 'opening a thread')}>
            <bdi>{side.name}</bdi>
          </button>
        </p>
      )}
      <Markdown text={text} />
    </>
  );
}

export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // Safe: markdown-it with HTML off escapes every tag; see markdown.ts.
  return <div class="md" dir="auto" dangerouslySetInnerHTML={{ __html: html }} />;
}

/** Params and results as JSON: left to right, whatever their strings hold, and isolated. */
function JsonBlock({ value }: { value: unknown }) {
  return (
    <pre class="params" dir="ltr">
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

function ReplyQuote({ id, actions }: { id: string; actions: MessageActions }) {
  const target = actions.findById(id);
  if (!target) return <p class="reply">↪ in reply to an earlier message</p>;
  return (
    <button type="button" class="reply" onClick={() => actions.onJump(target.seq)}>
      ↪ @{target.author}: <bdi>{summaryOf(target).slice(0, 120)}</bdi>
    </button>
  );
}

export function Status({ status }: { status: RequestStatus | 'open' }) {
  return <span class={`status status-${status.toLowerCase()}`}>{status}</span>;
}

function statusOf(requestId: string): RequestStatus | 'open' {
  const seen = requestStatus.value[requestId];
  if (seen) return seen;
  const open = [...openRequests.value.incoming, ...openRequests.value.outgoing].find((r) => r.request_id === requestId);
  return open?.status ?? 'open';
}

export function handleOf(participantId: string): string {
  return participants.value.find((p) => p.id === participantId)?.handle ?? participantId;
}

export function summaryOf(event: ParleyEvent): string {
  if (typeof event.content === 'string') return event.content;
  const c = event.content as { intent?: string; text?: string; status?: string };
  if (c.intent) return c.text ? `${c.intent}: ${c.text}` : c.intent;
  return c.text ?? c.status ?? event.type;
}

const KIND_NAMES: Record<string, string> = { channel: 'channel', side: 'side channel', dm: 'direct message' };

/** A piece of author text inside a sentence of the page's own, isolated from it. */
const authored = (value: unknown) => <bdi>{String(value ?? '')}</bdi>;

function describeNote(event: ParleyEvent): ComponentChildren {
  const c = (event.content ?? {}) as Record<string, unknown>;
  if (event.type === 'system') {
    switch (c.action) {
      case 'thread.created':
        // A DM's name only lists the two handles the header already shows.
        if (c.kind === 'dm') return 'started this direct message';
        return <>created {KIND_NAMES[String(c.kind)] ?? 'thread'} “{authored(c.name)}”</>;
      case 'thread.renamed':
        return <>renamed the thread to “{authored(c.name)}”</>;
      case 'side.opened':
        return <>opened side channel “{authored(c.title)}”</>;
      case 'thread.closed':
        return <>closed this side channel: {authored(c.summary)}</>;
      default:
        return String(c.action ?? 'changed the thread');
    }
  }
  if (event.type === 'control') return describeControl(c, handleOf);
  return event.type;
}
