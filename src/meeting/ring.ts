import { DEFAULT_MEETING_RING_SIZE } from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';

/** One thing said in a meeting. Stored frozen; numbers are 1, 2, 3… per ring. */
export interface MeetingMessage {
  number: number;
  speakerId: string;
  speaker: string;
  ts: number;
  content: string;
}

export interface HearResult {
  /** Messages from others, oldest first. */
  messages: MeetingMessage[];
  /** True when the reader's position was no longer in the ring (overwritten, or from an older ring). */
  messagesLost: boolean;
  /** The number to pass as `lastHeard` next time. */
  lastHeard: number;
}

export interface RingStatus {
  /** Number of the oldest retained message; 0 when nothing was ever said. */
  oldest: number;
  /** Number of the newest message; 0 when nothing was ever said. */
  latest: number;
  /** Retained messages newer than `lastHeard` (from others when a reader id is given). */
  unread: number;
}

export interface MeetingSpeaker {
  id: string;
  handle: string;
}

function checkCount(value: number, field: string, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ParleyError(
      'INVALID_INPUT',
      `Invalid ${field}: expected an integer of at least ${min}, got ${String(value)}. Fix this field and try again.`,
      { field },
    );
  }
}

/**
 * The meeting's whiteboard: a fixed-size circular buffer of messages.
 *
 * Message `n` lives in slot `n % capacity`; writing is one slot assignment and
 * the backing array is allocated once, at construction, and never grows. The
 * ring keeps the last `capacity` messages; older ones are overwritten.
 */
export class MeetingRing {
  readonly capacity: number;
  private readonly slots: (MeetingMessage | undefined)[];
  /** Number the next `say` gets. */
  private next = 1;

  constructor(capacity: number = DEFAULT_MEETING_RING_SIZE) {
    checkCount(capacity, 'ringSize', 1);
    this.capacity = capacity;
    this.slots = new Array<MeetingMessage | undefined>(capacity).fill(undefined);
  }

  /** Number of the newest message, 0 if the ring is empty. */
  get latest(): number {
    return this.next - 1;
  }

  /** Number of the oldest retained message, 0 if the ring is empty. */
  get oldest(): number {
    const latest = this.latest;
    if (latest === 0) return 0;
    return Math.max(1, latest - this.capacity + 1);
  }

  /** How many messages the ring currently holds (at most `capacity`). */
  get size(): number {
    const latest = this.latest;
    return latest === 0 ? 0 : latest - this.oldest + 1;
  }

  /** Length of the backing array; constant, equal to `capacity` (exposed so tests can check it). */
  get allocatedSlots(): number {
    return this.slots.length;
  }

  /** Writes a message into its slot, overwriting the one `capacity` numbers older. O(1). */
  say(speaker: MeetingSpeaker, content: string, ts: number): MeetingMessage {
    const number = this.next;
    const message: MeetingMessage = Object.freeze({
      number,
      speakerId: speaker.id,
      speaker: speaker.handle,
      ts,
      content,
    });
    this.slots[number % this.capacity] = message;
    this.next = number + 1;
    return message;
  }

  /**
   * Returns what `selfId` has not heard yet, skipping their own messages.
   *
   * - `lastHeard` 0 starts at the oldest retained message (catch up from the
   *   beginning), with `messagesLost` false.
   * - If `lastHeard + 1` was already overwritten, reading resumes at the oldest
   *   retained message with `messagesLost` true.
   * - If `lastHeard` is greater than `latest`, the caller holds a number from
   *   an older ring: rings live in memory only and restart numbering at 1 after
   *   a hub restart, so a too-large number cannot mean "caught up" (treating it
   *   so would silently hide the new ring's first `lastHeard` messages). Reading
   *   restarts at the oldest retained message with `messagesLost` true; on an
   *   empty ring nothing is returned and `lastHeard` comes back as 0, so the
   *   next call starts at the new ring's first message.
   *
   * At most `limit` messages are returned (all available by default; 1 gives
   * the one-message hear). The returned `lastHeard` is the last number
   * examined, own skipped messages included, so they are not scanned again;
   * when nothing newer exists it equals the input.
   */
  hear(lastHeard: number, selfId: string, limit?: number): HearResult {
    checkCount(lastHeard, 'lastHeard', 0);
    if (limit !== undefined) checkCount(limit, 'limit', 1);
    const latest = this.latest;
    const stale = lastHeard > latest;
    if (latest === 0) {
      return { messages: [], messagesLost: stale, lastHeard: stale ? 0 : lastHeard };
    }
    const oldest = this.oldest;
    let from: number;
    let messagesLost = false;
    if (lastHeard === 0) {
      from = oldest;
    } else if (stale || lastHeard + 1 < oldest) {
      from = oldest;
      messagesLost = true;
    } else {
      from = lastHeard + 1;
    }
    const max = limit ?? Number.POSITIVE_INFINITY;
    const messages: MeetingMessage[] = [];
    // When stale, `from` = oldest <= latest, so the loop runs and overwrites this.
    let examined = lastHeard;
    for (let n = from; n <= latest && messages.length < max; n++) {
      const message = this.at(n);
      examined = n;
      if (message.speakerId !== selfId) messages.push(message);
    }
    return { messages, messagesLost, lastHeard: examined };
  }

  /**
   * Where the ring stands for a reader at `lastHeard`: `unread` counts the
   * retained messages `hear(lastHeard, selfId)` would return, i.e. numbers
   * above `lastHeard` clamped at the oldest retained (all retained ones when
   * `lastHeard` is from an older ring), excluding `selfId`'s own when given.
   */
  status(lastHeard: number, selfId?: string): RingStatus {
    checkCount(lastHeard, 'lastHeard', 0);
    const latest = this.latest;
    const oldest = this.oldest;
    if (latest === 0) return { oldest, latest, unread: 0 };
    const from = lastHeard > latest ? oldest : Math.max(lastHeard + 1, oldest);
    let unread: number;
    if (selfId === undefined) {
      unread = latest - from + 1;
    } else {
      unread = 0;
      for (let n = from; n <= latest; n++) {
        if (this.at(n).speakerId !== selfId) unread++;
      }
    }
    return { oldest, latest, unread };
  }

  /** The retained message numbered `n` (caller guarantees oldest <= n <= latest). */
  private at(n: number): MeetingMessage {
    const message = this.slots[n % this.capacity];
    if (message === undefined || message.number !== n) {
      throw new ParleyError('INTERNAL', `Meeting ring slot for message ${n} is inconsistent. This is a bug in Parley; please report it.`);
    }
    return message;
  }
}
