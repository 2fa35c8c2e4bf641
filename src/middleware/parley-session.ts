/**
 * What the AI SDK middleware and the plain wrapper share: the link to the hub
 * (made at the first call, and again after one that failed), the chat feed, and
 * what goes into each call — the addendum in the system prompt, the reminder
 * opening it after a chat-only turn, the block of new chat last. A participant
 * without chat (the hub's toggle is off, or its kind is excluded) gets none of
 * it.
 */

import { QUESTION_REMINDER, promptAddendum } from '../format/agent-prompts.js';
import { ChatFeed, hubClosed, refused, type ChatBatch, type LogLine } from './chat-feed.js';
import { chatToolMatcher } from './chat-only-turn.js';
import { linkToHub, type HubLink } from './hub-link.js';
import { DEFAULT_MIDDLEWARE_HUB_TIMEOUT_MS } from '../config/defaults.js';
import { answerWithin } from './hub-answer.js';
import { DEFAULT_MAX_NEW_MESSAGES, logLineOf, type ParleyOptions } from './options.js';

/** What goes into one model call. */
export interface CallContext {
  /**
   * False for a participant without chat: the call goes out as it came, less
   * its chat tools. True without `system` or `batch` when the hub did not
   * answer: the call goes out as it came.
   */
  chat: boolean;
  /** Text for the end of the system prompt: the addendum. */
  system?: string;
  /** Text for its start (the prelude): the reminder, after a chat-only turn. */
  prelude?: string;
  /** The new chat, to put last; committed after the call succeeds. */
  batch?: ChatBatch;
}

export class ParleySession {
  readonly isChatTool: (toolName: string) => boolean;
  readonly #options: ParleyOptions;
  readonly #feed: ChatFeed;
  readonly #log: LogLine | undefined;
  readonly #timeoutMs: number;
  #link: Promise<HubLink> | undefined;
  /** Linked once already: a token refused from then on was revoked while the agent worked, not mistyped. */
  #linked = false;

  constructor(options: ParleyOptions) {
    this.#options = options;
    this.isChatTool = chatToolMatcher(options.chatTools);
    this.#log = logLineOf(options.log);
    this.#timeoutMs = options.hubTimeoutMs ?? DEFAULT_MIDDLEWARE_HUB_TIMEOUT_MS;
    this.#feed = new ChatFeed(() => this.link(), options.maxNewMessages ?? DEFAULT_MAX_NEW_MESSAGES, this.#log, (link) => this.#forget(link), this.#timeoutMs);
  }

  /** The hub link, made once; a failed attempt is forgotten so that the next call tries again. */
  link(): Promise<HubLink> {
    this.#link ??= linkToHub(this.#options).then(
      (link) => {
        this.#linked = true;
        return link;
      },
      (error: unknown) => {
        this.#link = undefined;
        throw error;
      },
    );
    return this.#link;
  }

  /**
   * A link whose hub stopped answering is let go, so that the next call finds
   * the hub anew (the home's lock file names where a restarted hub serves).
   */
  #forget(away: HubLink): void {
    const current = this.#link;
    current?.then(
      (link) => {
        if (link !== away || this.#link !== current) return;
        this.#link = undefined;
        link.close();
      },
      () => {
        // A link that never opened has nothing to let go; its failure went to the call that asked for it.
      },
    );
  }

  /** What the next model call gets. `chatOnlyBefore`: the turn before it used only chat tools. */
  async prepare(chatOnlyBefore: boolean): Promise<CallContext> {
    let link: HubLink;
    try {
      link = await answerWithin(this.link(), this.#timeoutMs, this.#options.url);
    } catch (error) {
      // A bad token at the first call is a mistake to say; once the agent works, neither the hub going away nor its token
      // being revoked stops it. Whether this participant has chat is then unknown, so nothing is added.
      if (!hubClosed(error) && !(this.#linked && refused(error))) throw error;
      this.#log?.(`parley: no chat for @${this.#options.handle} this call: ${error.message}`);
      return { chat: true };
    }
    if (!link.chat) return { chat: false };
    const batch = await this.#feed.peek();
    const system = promptAddendum(link.participant.handle);
    return { chat: true, system, ...(chatOnlyBefore ? { prelude: QUESTION_REMINDER } : {}), ...(batch ? { batch } : {}) };
  }

  /** After the call succeeded: the chat it was given is taken, and the cursor moves. */
  commit(batch: ChatBatch | undefined): Promise<void> {
    return batch ? this.#feed.commit(batch) : Promise.resolve();
  }

  /** Closes the link's connections (a program that ends does not have to). */
  close(): void {
    this.#link
      ?.then((link) => link.close())
      .catch(() => {
        // A link that never opened has nothing to close; its failure went to the call that asked for it.
      });
    this.#link = undefined;
  }
}
