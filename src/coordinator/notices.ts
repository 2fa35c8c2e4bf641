import { ParleyError } from '../errors/parley-error.js';
import type { ThreadInfo } from '../schema/views.js';
import type { SeatApi } from './door.js';

/**
 * What the coordinator shows it did: every start, finish, failure, timeout and
 * refusal is a message from its own participant in its own channel
 * (`coordinator.channel`). A channel of its own, because a notice in the
 * answered thread would wake every `wakeOn: all` agent there (a to-all message
 * is a channel item for each of them) and could not be posted at all in a DM,
 * which has only its two participants. In its channel, only those who choose
 * to follow it (people on the page, `parley tail coordinator`) see it; no agent
 * is woken. Notices name the thread and event ids, not their text.
 */
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
  return [`coordinator:${notice.kind}`, `agent:${notice.handle}`];
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

/** Posts notices to the coordinator's channel, creating it on first use. */
export class NoticeBoard {
  #ready: Promise<void> | undefined;

  constructor(
    private readonly api: SeatApi,
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
