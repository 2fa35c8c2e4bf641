/**
 * The agent's new chat, fetched before a model call and taken after it
 * (read-new and its cursor advance, on the hub's injection): `peek` looks
 * without marking anything, `commit` takes exactly the items the peek showed —
 * nothing posted while the model ran, nothing its tools made waking (a thread
 * unmuted) — marking targeted items injected and moving the cursors. A call
 * that fails commits nothing, so the same messages come with the next call:
 * nothing is lost.
 */

import type { ContextItem } from '../schema/views.js';
import { DEFAULT_MIDDLEWARE_HUB_TIMEOUT_MS } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { answerWithin } from './hub-answer.js';
import { chatBlock } from './chat-block.js';
import type { HubLink } from './hub-link.js';

/** What one peek found: the new chat for one model call, to commit after it. */
export interface ChatBatch {
  items: ContextItem[];
  /** The hub's seq the peek read up to. */
  head: number;
  /** The last item given: where the agent's cursor stands once committed. */
  cursor: number;
  /** How many more wait beyond the cap (the block's last line says so). */
  waiting?: { count: number; atLeast?: true };
  /** The block of text the model is given. */
  text: string;
  /** The link it was fetched through: the commit goes through it too, never through a link made anew meanwhile. */
  link: HubLink;
}

export type LogLine = (line: string) => void;

export class ChatFeed {
  /**
   * `hubAway` hears of a link whose hub did not answer, so that the next call
   * finds the hub again (restarted, perhaps on another port).
   */
  constructor(
    private readonly link: () => Promise<HubLink>,
    private readonly maxNewMessages: number,
    private readonly log: LogLine | undefined,
    private readonly hubAway: (link: HubLink) => void = () => undefined,
    private readonly timeoutMs: number = DEFAULT_MIDDLEWARE_HUB_TIMEOUT_MS,
  ) {}

  /** The new items for the next model call, or undefined when there are none (or chat is closed for this participant). */
  async peek(): Promise<ChatBatch | undefined> {
    const link = await this.link();
    if (!link.chat) return undefined;
    let seen;
    try {
      seen = await answerWithin((signal) => link.api.inject({ peek: true, limit: this.maxNewMessages }, signal), this.timeoutMs, link.api.url);
    } catch (error) {
      // The hub being away must not stop the agent's work: the call goes ahead without chat, which waits on the hub.
      if (hubClosed(error) || refused(error)) {
        this.log?.(`parley: no new chat for @${link.participant.handle} this call: ${error.message}`);
        this.hubAway(link);
        return undefined;
      }
      throw error;
    }
    if (seen.items.length === 0) return undefined;
    const cursor = Math.max(...seen.items.map((item) => item.seq));
    return { items: seen.items, head: seen.head, cursor, ...(seen.waiting ? { waiting: seen.waiting } : {}), text: chatBlock(seen.items, seen.waiting), link };
  }

  /** After a successful call: the peeked items are taken (injected), and one line says how many and the new cursor. */
  async commit(batch: ChatBatch): Promise<void> {
    const { link } = batch;
    try {
      await answerWithin((signal) => link.api.inject({ take: batch.items.map((item) => item.seq) }, signal), this.timeoutMs, link.api.url);
    } catch (error) {
      if (hubClosed(error) || refused(error)) this.hubAway(link);
      // Not taken: they come again with the next call (at least once, never lost).
      this.log?.(`parley: could not advance @${link.participant.handle}'s cursor to ${batch.cursor} (${(error as Error).message}); the same messages come with the next call.`);
      return;
    }
    const n = batch.items.length;
    this.log?.(`parley: injected ${n} chat ${n === 1 ? 'message' : 'messages'} into the model call for @${link.participant.handle} (new cursor: ${batch.cursor})`);
  }
}

/**
 * The hub refused the link's token (revoked meanwhile): the call goes on
 * without chat, and the next one links anew — with the token kept in the
 * home, which `parley token rotate` may have replaced.
 */
export function refused(error: unknown): error is ParleyError {
  return error instanceof ParleyError && error.code === 'UNAUTHORIZED';
}

/** The hub did not answer (stopped, restarting, unreachable): the call goes on without chat. */
export function hubClosed(error: unknown): error is ParleyError {
  return error instanceof ParleyError && error.code === 'HUB_CLOSED';
}
