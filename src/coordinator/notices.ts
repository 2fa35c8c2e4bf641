/**
 * What the coordinator shows it did: every start, finish, failure, timeout and
 * refusal is a message from its own participant in its own channel
 * (`coordinator.channel`). A channel of its own, because a notice in the
 * answered thread would wake every `wakeOn: all` agent there (a to-all message
 * is a channel item for each of them) and could not be posted at all in a DM,
 * which has only its two participants. In its channel, only those who choose
 * to follow it (people on the page, `parley tail coordinator`) see it; no agent
 * is woken. Notices name the thread and event ids, not their text.
 *
 * A refusal its author must hear of (the loop guard, the run cap) is also said
 * in the thread the author wrote in (see AuthorNotices).
 */

import { ParleyError } from '../errors/parley-error.js';
import type { ThreadInfo } from '../schema/views.js';
import type { CoordinatedApi } from './hub-access.js';
import { NOTICE_TAG_PREFIX } from './notice-tag.js';
import type { Trigger, TriggerKind } from './triggers.js';

export type NoticeKind = 'started' | 'finished' | 'failed' | 'timeout' | 'refused' | 'stopped';

export interface Notice {
  kind: NoticeKind;
  /** The participant the run was (or was not) for. */
  handle: string;
  text: string;
}

/**
 * A notice mentions no one: "@coder-1" in it would make it a mention, which
 * wakes coder-1 and asks it to answer — the coordinator would run it for its
 * own notice, and again for the notice about that run. Handles are written
 * bare ("coder-1: run started"), and any "@" before a name (from an adapter's
 * stderr, say) is dropped.
 */
export function unmentioned(text: string): string {
  return text.replace(/@(?=[A-Za-z0-9])/g, '');
}

/** Machine-readable tags on each notice: "coordinator:finished", "agent:coder-1". */
export function noticeTags(notice: Notice): string[] {
  return [`${NOTICE_TAG_PREFIX}${notice.kind}`, `agent:${notice.handle}`];
}

/** How a notice names a thread: "#general", side channel "review", "a direct message with human". */
export function threadLabel(thread: ThreadInfo): string {
  if (thread.kind === 'dm') return thread.with === undefined ? 'a direct message' : `a direct message with ${thread.with}`;
  if (thread.kind === 'side') return `side channel "${thread.name}"`;
  return `#${thread.name}`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** "1 direct message", "3 events": what a notice says was (or was not) answered. */
export function countOf(triggers: readonly Trigger[]): string {
  return triggers.length === 1 ? `1 ${nameOf(triggers[0]!.kind)}` : `${triggers.length} events`;
}

function nameOf(kind: TriggerKind): string {
  switch (kind) {
    case 'request':
      return 'request';
    case 'prod':
      return 'prod';
    case 'dm':
      return 'direct message';
    default:
      return 'message';
  }
}

export function idList(triggers: readonly Trigger[]): string {
  return triggers.map((t) => t.event.id).join(', ');
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Posts notices to the coordinator's channel, creating it on first use. */
export class NoticeBoard {
  #ready: Promise<void> | undefined;

  constructor(
    private readonly api: CoordinatedApi,
    private readonly channel: string,
  ) {}

  async post(notice: Notice): Promise<void> {
    this.#ready ??= this.#ensureChannel();
    await this.#ready;
    await this.api.post({ thread: this.channel, text: notice.text, tags: noticeTags(notice) });
  }

  async #ensureChannel(): Promise<void> {
    try {
      await this.api.createChannel({ name: this.channel });
    } catch (error) {
      // Created before (by an earlier run of the coordinator, or by someone who wants to follow it).
      if (!(error instanceof ParleyError && error.code === 'CONFLICT')) {
        this.#ready = undefined;
        throw error;
      }
    }
  }
}

/** A refusal told to the author of the trigger, where it wrote. */
export interface AuthorNotice {
  /** Said at most once per key until `quietUntil` (epoch ms): a refused author is told, not flooded. */
  key: string;
  quietUntil: number;
  thread: string;
  /** The author's handle: the notice is addressed to it. */
  to: string;
  /** The trigger it answers. */
  replyTo: string;
  text: string;
}

/**
 * Refusals the author of a trigger must hear of, or it would wait for an
 * answer that never comes: said in the thread it wrote in, by the participant
 * that will not answer (the only one sure to be able to post there: a DM has
 * room for its two participants only), addressed to the author and in reply
 * to its message. Tagged as a refusal notice, so it asks no one to answer and
 * counts as no turn of an exchange; at most once per key and window, so a
 * refused author is not answered by a flood of notices (nor a live agent kept
 * talking to them).
 */
export class AuthorNotices {
  readonly #quietUntil = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** Posts the notice as `api`'s participant unless it was said within its window; returns whether it did. */
  async tell(api: CoordinatedApi, handle: string, notice: AuthorNotice): Promise<boolean> {
    const now = this.now();
    for (const [key, until] of this.#quietUntil) if (until <= now) this.#quietUntil.delete(key);
    if (this.#quietUntil.has(notice.key)) return false;
    this.#quietUntil.set(notice.key, notice.quietUntil);
    try {
      await api.post({
        thread: notice.thread,
        text: unmentioned(notice.text),
        to: notice.to,
        reply_to: notice.replyTo,
        tags: noticeTags({ kind: 'refused', handle, text: notice.text }),
      });
    } catch (error) {
      // Not said: the next refusal may try again.
      this.#quietUntil.delete(notice.key);
      throw error;
    }
    return true;
  }
}
