import { QUESTION_REMINDER, promptAddendum } from '../format/agent-prompts.js';
import { ChatFeed, type ChatBatch, type LogLine } from './chat-feed.js';
import { chatToolMatcher } from './chat-only-turn.js';
import { linkToHub, type HubLink } from './hub-link.js';
import { DEFAULT_MAX_NEW_MESSAGES, type ParleyOptions } from './options.js';

/**
 * What the AI SDK middleware and the plain wrapper share: the link to the hub
 * (made at the first call, and again after one that failed), the chat feed,
 * and what goes into each call — the addendum in the system prompt, the
 * reminder after a chat-only turn, the block of new chat last. A participant
 * without chat (the hub's toggle is off, or its kind is excluded) gets none
 * of it.
 */
export interface CallContext {
  /** False for a participant without chat: the call goes out as it came. */
  chat: boolean;
  /** Text for the system prompt: the addendum, and the reminder after a chat-only turn. */
  system?: string;
  /** The new chat, to put last; committed after the call succeeds. */
  batch?: ChatBatch;
}

export class ParleySession {
  readonly isChatTool: (toolName: string) => boolean;
  readonly #options: ParleyOptions;
  readonly #feed: ChatFeed;
  #link: Promise<HubLink> | undefined;

  constructor(options: ParleyOptions) {
    this.#options = options;
    this.isChatTool = chatToolMatcher(options.chatTools);
    const log: LogLine | undefined = options.log === false ? undefined : (options.log ?? ((line) => process.stderr.write(`${line}\n`)));
    this.#feed = new ChatFeed(() => this.link(), options.maxNewMessages ?? DEFAULT_MAX_NEW_MESSAGES, log);
  }

  /** The hub link, made once; a failed attempt is forgotten so that the next call tries again. */
  link(): Promise<HubLink> {
    this.#link ??= linkToHub(this.#options).catch((error: unknown) => {
      this.#link = undefined;
      throw error;
    });
    return this.#link;
  }

  /** What the next model call gets. `chatOnlyBefore`: the turn before it used only chat tools. */
  async prepare(chatOnlyBefore: boolean): Promise<CallContext> {
    const link = await this.link();
    if (!link.chat) return { chat: false };
    const batch = await this.#feed.peek();
    const system = promptAddendum(link.participant.handle) + (chatOnlyBefore ? `\n\n${QUESTION_REMINDER}` : '');
    return { chat: true, system, ...(batch ? { batch } : {}) };
  }

  /** After the call succeeded: the chat it was given is taken, and the cursor moves. */
  commit(batch: ChatBatch | undefined): Promise<void> {
    return batch ? this.#feed.commit(batch) : Promise.resolve();
  }

  /** Closes the link's connections (a program that ends does not have to). */
  close(): void {
    void this.#link?.then((link) => link.close()).catch(() => undefined);
    this.#link = undefined;
  }
}
