/**
 * Where the human writes. Enter sends, Shift+Enter starts a new line; `@`
 * offers the session's participants (arrows to choose, Enter or Tab to take,
 * Escape to close); the counter shows the length against the hub's limits
 * (cut beyond maxMessageChars, refused beyond maxInputChars). While the human
 * types, their presence says so to the agents (and goes back to listening).
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { inBackground } from '../state/background.js';
import { me, participants, showError } from '../state/view-state.js';
import type { ParleyEvent } from '../types.js';
import { summaryOf } from './message.js';

const TYPING_REFRESH_MS = 3000;
const TYPING_IDLE_MS = 4000;
let presenceSeq = Date.now();

/** Tells the agents whether the human is typing; a failed update (the hub restarting) is said on the console and changes nothing else. */
function sayPresence(state: 'typing' | 'listening', thread?: string): void {
  presenceSeq += 1;
  inBackground(api('PUT', '/presence', { state, seq: presenceSeq, ...(thread ? { thread } : {}) }), `saying you are ${state}`);
}

export function Composer({
  label,
  thread,
  replyTo,
  onClearReply,
  onSend,
  disabledReason,
}: {
  label: string;
  thread?: string;
  replyTo?: ParleyEvent | undefined;
  onClearReply?: () => void;
  onSend(text: string): Promise<void>;
  disabledReason?: string | undefined;
}) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [mention, setMention] = useState<{ start: number; query: string; index: number } | undefined>();
  const input = useRef<HTMLTextAreaElement>(null);
  const typing = useRef<{ sentAt: number; idle?: ReturnType<typeof setTimeout> }>({ sentAt: 0 });
  const limits = me.value?.hub ?? { maxMessageChars: 16_000, maxInputChars: 1_000_000 };

  useEffect(() => {
    if (replyTo) input.current?.focus();
  }, [replyTo]);

  useEffect(
    () => () => {
      if (typing.current.idle) {
        clearTimeout(typing.current.idle);
        sayPresence('listening', thread);
      }
    },
    [thread],
  );

  const myHandle = me.value?.participant.handle;
  const candidates = mention
    ? participants.value.filter((p) => p.handle !== myHandle && p.handle.toLowerCase().startsWith(mention.query.toLowerCase())).slice(0, 8)
    : [];

  function noteTyping() {
    const t = typing.current;
    const now = Date.now();
    if (now - t.sentAt > TYPING_REFRESH_MS) {
      t.sentAt = now;
      sayPresence('typing', thread);
    }
    clearTimeout(t.idle);
    t.idle = setTimeout(() => {
      t.sentAt = 0;
      t.idle = undefined;
      sayPresence('listening', thread);
    }, TYPING_IDLE_MS);
  }

  function onInput(event: Event) {
    const el = event.currentTarget as HTMLTextAreaElement;
    setText(el.value);
    noteTyping();
    const before = el.value.slice(0, el.selectionStart);
    const match = /(^|\s)@([a-z0-9_.-]{0,63})$/i.exec(before);
    setMention(match ? { start: before.length - match[2]!.length, query: match[2]!, index: 0 } : undefined);
  }

  function takeMention(handle: string) {
    if (!mention) return;
    const el = input.current!;
    const next = `${text.slice(0, mention.start)}${handle} ${text.slice(el.selectionStart)}`;
    setText(next);
    setMention(undefined);
    const caret = mention.start + handle.length + 1;
    requestAnimationFrame(() => {
      el.value = next;
      el.setSelectionRange(caret, caret);
      el.focus();
    });
  }

  async function send() {
    if (busy || text.trim() === '' || text.length > limits.maxInputChars) return;
    setBusy(true);
    try {
      await onSend(text);
      setText('');
      setMention(undefined);
      if (typing.current.idle) {
        clearTimeout(typing.current.idle);
        typing.current = { sentAt: 0 };
        sayPresence('listening', thread);
      }
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
      input.current?.focus();
    }
  }

  function onKeyDown(event: KeyboardEvent) {
    if (mention && candidates.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setMention({ ...mention, index: (mention.index + step + candidates.length) % candidates.length });
        return;
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault();
        takeMention(candidates[mention.index]!.handle);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setMention(undefined);
        return;
      }
    }
    if (event.key === 'Escape' && replyTo) onClearReply?.();
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      inBackground(send(), 'sending the message');
    }
  }

  const length = text.length;
  const over = length > limits.maxInputChars ? 'refused' : length > limits.maxMessageChars ? 'cut' : undefined;
  const listId = 'mention-list';
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        inBackground(send(), 'sending the message');
      }}
    >
      {replyTo && (
        <p class="replying">
          Replying to @{replyTo.author}: <bdi>{summaryOf(replyTo).slice(0, 80)}</bdi>{' '}
          <button type="button" class="link" onClick={onClearReply}>
            Cancel
          </button>
        </p>
      )}
      {disabledReason ? (
        <p class="disabled-reason" role="status">
          {disabledReason}
        </p>
      ) : (
        <div class="compose-row">
          <textarea
            ref={input}
            value={text}
            onInput={onInput}
            onKeyDown={onKeyDown}
            aria-label={label}
            placeholder={`${label} — Enter to send, Shift+Enter for a new line, @ to mention`}
            rows={2}
            aria-expanded={candidates.length > 0}
            aria-controls={listId}
            aria-autocomplete="list"
            {...(candidates.length > 0 ? { 'aria-activedescendant': `mention-${candidates[mention!.index]!.handle}` } : {})}
          />
          <button type="submit" disabled={busy || text.trim() === '' || over === 'refused'}>
            Send
          </button>
          {candidates.length > 0 && (
            <ul class="mentions" id={listId} role="listbox" aria-label="Mention a participant">
              {candidates.map((p, i) => (
                <li
                  key={p.handle}
                  id={`mention-${p.handle}`}
                  role="option"
                  aria-selected={i === mention!.index}
                  class={i === mention!.index ? 'active' : ''}
                  onMouseDown={(e) => {
                    e.preventDefault();
                    takeMention(p.handle);
                  }}
                >
                  @{p.handle} <span class="muted">{p.profile.kind}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {!disabledReason && (
        <p class={`counter ${over ?? ''}`}>
          {length.toLocaleString()} / {limits.maxMessageChars.toLocaleString()}
          {/* Only the warnings are announced, not every keystroke's count. */}
          <span aria-live="polite">
            {over === 'cut' && ' — the hub will cut the rest'}
            {over === 'refused' && ` — too long: the hub refuses more than ${limits.maxInputChars.toLocaleString()} characters`}
          </span>
        </p>
      )}
    </form>
  );
}
