import { createHash, type Hash } from 'node:crypto';
import { MIDDLEWARE_GIVEN_CHAT_MEMORY } from '../config/defaults.js';

/**
 * The chat blocks model calls were given, put back where they were given in
 * the later calls of the same conversation. An LLM API is stateless: the AI
 * SDK rebuilds each step of a tool loop from the conversation and the
 * model's answers, and a caller keeps its history without the block the
 * middleware added — so a block would be seen by one call only, and the
 * next step would see the model's answer to a message it can no longer
 * read. A block is given again only to the conversation it was given in:
 * its messages up to the block are exactly those the block followed, and the
 * next one is the model's answer to that call (the same tool call ids, or the
 * same text). The same opening asked again, by another run, is a new
 * conversation, which gets only what is new.
 */
interface Given<M> {
  /** How many conversation messages preceded the block. */
  at: number;
  /** Digest of those messages. */
  digest: string;
  block: M;
  /** The answer of the call it was given to, as `answerOf` says it. */
  answer: string;
}

export class GivenChat<M> {
  /** Oldest first. */
  readonly #given: Array<Given<M>> = [];

  constructor(
    /** A message as text, to tell conversations apart. */
    private readonly textOf: (message: M) => string,
    /** What identifies a message as a model's answer (its tool call ids, else its text); undefined for other messages. */
    private readonly answerOf: (message: M) => string | undefined,
    private readonly capacity: number = MIDDLEWARE_GIVEN_CHAT_MEMORY,
  ) {}

  /** The conversation with the blocks given to its earlier calls put back in their places. */
  restore(conversation: readonly M[]): M[] {
    if (this.#given.length === 0) return [...conversation];
    const digests = prefixDigests(conversation, this.textOf);
    // In the order they were given, which a stable sort keeps for blocks given at the same place.
    const back = this.#given
      .filter((g) => g.at < conversation.length && digests[g.at] === g.digest && this.answerOf(conversation[g.at]!) === g.answer)
      .sort((a, b) => a.at - b.at);
    if (back.length === 0) return [...conversation];
    const out: M[] = [];
    let next = 0;
    for (const [i, message] of conversation.entries()) {
      while (next < back.length && back[next]!.at === i) out.push(back[next++]!.block);
      out.push(message);
    }
    return out;
  }

  /**
   * After a call succeeded: `block` followed `conversation` (as the caller
   * gave it), and the model answered `answer` (as answerOf says it of the
   * message it becomes). Later calls of this conversation get the block again.
   */
  remember(conversation: readonly M[], block: M, answer: string): void {
    const at = conversation.length;
    this.#given.push({ at, digest: prefixDigests(conversation, this.textOf)[at]!, block, answer });
    if (this.#given.length > this.capacity) this.#given.shift();
  }
}

/** digests[k]: the digest of the first k messages. */
function prefixDigests<M>(conversation: readonly M[], textOf: (message: M) => string): string[] {
  const hash: Hash = createHash('sha256');
  const digests = [hash.copy().digest('hex')];
  for (const message of conversation) {
    hash.update(textOf(message));
    hash.update('\u0000');
    digests.push(hash.copy().digest('hex'));
  }
  return digests;
}
