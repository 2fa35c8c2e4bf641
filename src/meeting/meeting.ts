import {
  DEFAULT_MEETING_MAX_MESSAGE_CHARS,
  DEFAULT_MEETING_MAX_PARTICIPANTS,
  DEFAULT_MEETING_RING_SIZE,
} from '../config/defaults.js';
import { ParleyError } from '../errors/parley-error.js';
import { truncateText } from '../redaction/truncate.js';
import { MeetingRing, type HearResult, type MeetingMessage, type MeetingSpeaker } from './ring.js';

export interface MeetingLimits {
  /** Messages kept in the ring. */
  ringSize: number;
  /** Distinct members that may be joined at once. */
  maxParticipants: number;
  /** Longer content is cut and ends with the truncation marker. */
  maxMessageChars: number;
}

export const DEFAULT_MEETING_LIMITS: Readonly<MeetingLimits> = Object.freeze({
  ringSize: DEFAULT_MEETING_RING_SIZE,
  maxParticipants: DEFAULT_MEETING_MAX_PARTICIPANTS,
  maxMessageChars: DEFAULT_MEETING_MAX_MESSAGE_CHARS,
});

export interface MeetingInit extends Partial<MeetingLimits> {
  id: string;
  /** Normalized (lowercase) meeting name. */
  name: string;
  sessionId: string;
  createdAt: number;
}

export interface MeetingJoiner {
  id: string;
  handle: string;
  role?: string;
}

export interface MeetingMember {
  id: string;
  handle: string;
  /** null when the member joined without a role. */
  role: string | null;
  joinedAt: number;
}

export interface SayResult {
  message: MeetingMessage;
  /** True when the content was longer than `maxMessageChars` and was cut. */
  truncated: boolean;
}

export interface MeetingStatus {
  /** Members currently joined. */
  active: number;
  oldest: number;
  latest: number;
  unread: number;
}

/**
 * One meeting: an in-memory ring of messages plus the registry of who is in
 * the room. Nothing here is ever stored; when the last member leaves the
 * messages stay until the hub restarts (edge 7 of test/meeting/edge-cases.test.ts).
 *
 * `say` does not check membership: the hub decides whether a speaker must
 * join first.
 */
export class Meeting {
  readonly id: string;
  readonly name: string;
  readonly sessionId: string;
  readonly createdAt: number;
  readonly maxParticipants: number;
  readonly maxMessageChars: number;
  readonly ring: MeetingRing;
  /** Insertion-ordered, so iteration gives join order. */
  private readonly members = new Map<string, MeetingMember>();
  /**
   * The last line number each participant heard, kept here so it lives as
   * long as the meeting (and its numbering) does; leaving keeps it, so a
   * member who comes back hears only what is new.
   */
  private readonly lastHeard = new Map<string, number>();

  constructor(init: MeetingInit) {
    const maxParticipants = init.maxParticipants ?? DEFAULT_MEETING_LIMITS.maxParticipants;
    const maxMessageChars = init.maxMessageChars ?? DEFAULT_MEETING_LIMITS.maxMessageChars;
    for (const [field, value] of [
      ['maxParticipants', maxParticipants],
      ['maxMessageChars', maxMessageChars],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new ParleyError(
          'INVALID_INPUT',
          `Invalid ${field}: expected an integer of at least 1, got ${String(value)}. Fix this setting and try again.`,
          { field },
        );
      }
    }
    this.id = init.id;
    this.name = init.name;
    this.sessionId = init.sessionId;
    this.createdAt = init.createdAt;
    this.maxParticipants = maxParticipants;
    this.maxMessageChars = maxMessageChars;
    this.ring = new MeetingRing(init.ringSize ?? DEFAULT_MEETING_LIMITS.ringSize);
  }

  /**
   * Adds a member. Idempotent: joining again changes nothing (the first
   * `joinedAt`, handle and role are kept). Refuses a new member with
   * MEETING_FULL when `maxParticipants` are already in.
   */
  join(member: MeetingJoiner, now: number): MeetingMember {
    const existing = this.members.get(member.id);
    if (existing) return { ...existing };
    if (this.members.size >= this.maxParticipants) {
      throw new ParleyError(
        'MEETING_FULL',
        `Meeting '${this.name}' is full: ${this.members.size} of ${this.maxParticipants} participants are in. ` +
          'Someone must leave the meeting before another participant can join; try again later.',
        { field: 'meeting', details: { active: this.members.size, maxParticipants: this.maxParticipants } },
      );
    }
    const entry: MeetingMember = { id: member.id, handle: member.handle, role: member.role ?? null, joinedAt: now };
    this.members.set(member.id, entry);
    return { ...entry };
  }

  /** Removes a member; returns whether they were in. Messages are kept. */
  leave(id: string): boolean {
    return this.members.delete(id);
  }

  isMember(id: string): boolean {
    return this.members.has(id);
  }

  /** Members currently in, in join order (a member who left and rejoined is at the end). */
  who(): MeetingMember[] {
    return [...this.members.values()].map((m) => ({ ...m }));
  }

  get active(): number {
    return this.members.size;
  }

  /** Says `content`, cut to `maxMessageChars` (ending with the marker) if longer. O(1) apart from the cut. */
  say(member: MeetingSpeaker, content: string, now: number): SayResult {
    const { text, truncated } = truncateText(content, this.maxMessageChars);
    const message = this.ring.say({ id: member.id, handle: member.handle }, text, now);
    return { message, truncated };
  }

  /** The last line number `id` heard here (0: nothing yet). */
  lastHeardBy(id: string): number {
    return this.lastHeard.get(id) ?? 0;
  }

  /**
   * What `selfId` has not heard (see {@link MeetingRing.hear}): after
   * `lastHeard` when given, else after the line this meeting kept for them.
   * Their kept line then moves up to what this call reached, never back, so a
   * caller re-reading from an older number does not hear the rest twice.
   */
  hear(lastHeard: number | undefined, selfId: string, limit?: number): HearResult {
    const heard = this.ring.hear(lastHeard ?? this.lastHeardBy(selfId), selfId, limit);
    if (heard.lastHeard > this.lastHeardBy(selfId)) this.lastHeard.set(selfId, heard.lastHeard);
    return heard;
  }

  /** Counts unread after `lastHeard` when given, else after the line kept for `selfId`. */
  status(lastHeard: number | undefined, selfId: string): MeetingStatus {
    return { active: this.members.size, ...this.ring.status(lastHeard ?? this.lastHeardBy(selfId), selfId) };
  }
}
