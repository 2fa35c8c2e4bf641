import { randomUUID } from 'node:crypto';
import { ParleyError } from '../errors/parley-error.js';
import { DEFAULT_MEETING_LIMITS, Meeting, type MeetingLimits } from './meeting.js';

/**
 * ASCII only, tested before lowercasing: a case-insensitive regex or a
 * lowercase-then-test would let look-alikes such as the Kelvin sign (U+212A,
 * which lowercases to 'k') through.
 */
const MEETING_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Validates a meeting name and returns its normalized (lowercase) form; INVALID_INPUT (field `meeting`) otherwise. */
export function normalizeMeetingName(name: unknown): string {
  if (typeof name !== 'string' || !MEETING_NAME.test(name)) {
    const shown = typeof name === 'string' ? JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name) : typeof name;
    throw new ParleyError(
      'INVALID_INPUT',
      `Invalid meeting: ${shown} is not a meeting name. Use 1-64 characters of letters, digits, '_' or '-' (case-insensitive), e.g. "standup".`,
      { field: 'meeting' },
    );
  }
  return name.toLowerCase();
}

/**
 * The hub's meetings, in memory only, per session: a meeting is found by
 * (session, normalized name), so the same name in two sessions names two
 * different meetings and nothing of one session is reachable from another.
 */
export class MeetingRegistry {
  readonly limits: Readonly<MeetingLimits>;
  private readonly sessions = new Map<string, Map<string, Meeting>>();

  constructor(options: Partial<MeetingLimits> = {}) {
    this.limits = Object.freeze({
      ringSize: options.ringSize ?? DEFAULT_MEETING_LIMITS.ringSize,
      maxParticipants: options.maxParticipants ?? DEFAULT_MEETING_LIMITS.maxParticipants,
      maxMessageChars: options.maxMessageChars ?? DEFAULT_MEETING_LIMITS.maxMessageChars,
    });
  }

  /** The session's meeting called `name`, created empty (at `now`) if there is none yet. */
  getOrCreate(sessionId: string, name: string, now: number): Meeting {
    const key = normalizeMeetingName(name);
    let meetings = this.sessions.get(sessionId);
    const existing = meetings?.get(key);
    if (existing) return existing;
    const meeting = new Meeting({ id: `m_${randomUUID()}`, name: key, sessionId, createdAt: now, ...this.limits });
    if (!meetings) {
      meetings = new Map();
      this.sessions.set(sessionId, meetings);
    }
    meetings.set(key, meeting);
    return meeting;
  }

  /** The session's meeting called `name`, if it was started. */
  find(sessionId: string, name: string): Meeting | undefined {
    return this.sessions.get(sessionId)?.get(normalizeMeetingName(name));
  }

  /** The session's meeting called `name`; NOT_FOUND if it was never started in this session. */
  get(sessionId: string, name: string): Meeting {
    const key = normalizeMeetingName(name);
    const meeting = this.find(sessionId, name);
    if (!meeting) {
      throw new ParleyError(
        'NOT_FOUND',
        `No meeting '${key}' in this session. Start it by joining it (a join creates the meeting), then try again.`,
        { field: 'meeting' },
      );
    }
    return meeting;
  }

  /** Every meeting of every session. */
  *all(): IterableIterator<Meeting> {
    for (const meetings of this.sessions.values()) yield* meetings.values();
  }

  /** The session's meetings, in creation order. */
  list(sessionId: string): Meeting[] {
    return [...(this.sessions.get(sessionId)?.values() ?? [])];
  }
}
