import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MeetingRing, type HearResult, type MeetingMessage } from '../../src/meeting/ring.js';

/**
 * Reference model of the ring: an unbounded array of every message ever said,
 * with the rule "retained = the last `capacity` of them". Written from the
 * contract, not from the implementation: no slots, no modular arithmetic.
 */
class RingModel {
  readonly all: MeetingMessage[] = [];
  constructor(readonly capacity: number) {}

  say(speakerId: string, speaker: string, content: string, ts: number): MeetingMessage {
    const message = { number: this.all.length + 1, speakerId, speaker, ts, content };
    this.all.push(message);
    return message;
  }

  get retained(): MeetingMessage[] {
    return this.all.slice(-this.capacity);
  }

  get latest(): number {
    return this.all.length;
  }

  get oldest(): number {
    return this.retained[0]?.number ?? 0;
  }

  /** The retained messages a reader at `lastHeard` has not seen, and whether their position was lost. */
  private pending(lastHeard: number): { candidates: MeetingMessage[]; lost: boolean } {
    const retained = this.retained;
    if (lastHeard > this.latest) return { candidates: retained, lost: true }; // from an older ring
    if (lastHeard === 0) return { candidates: retained, lost: false };
    const nextWanted = lastHeard + 1;
    const stillThere = nextWanted > this.latest || retained.some((m) => m.number === nextWanted);
    return { candidates: retained.filter((m) => m.number > lastHeard), lost: !stillThere };
  }

  hear(lastHeard: number, selfId: string, limit?: number): HearResult {
    const { candidates, lost } = this.pending(lastHeard);
    const messages: MeetingMessage[] = [];
    let position = lastHeard > this.latest ? 0 : lastHeard;
    for (const m of candidates) {
      if (limit !== undefined && messages.length === limit) break;
      position = m.number;
      if (m.speakerId !== selfId) messages.push(m);
    }
    return { messages, messagesLost: lost, lastHeard: position };
  }

  status(lastHeard: number, selfId?: string): { oldest: number; latest: number; unread: number } {
    const { candidates } = this.pending(lastHeard);
    const unread = candidates.filter((m) => selfId === undefined || m.speakerId !== selfId).length;
    return { oldest: this.oldest, latest: this.latest, unread };
  }
}

const PEOPLE = ['p0', 'p1', 'p2'] as const;
const who = fc.integer({ min: 0, max: PEOPLE.length - 1 });

type Op =
  | { kind: 'say'; speaker: number; content: string }
  | { kind: 'hear'; reader: number; limit: number | undefined }
  | { kind: 'status'; reader: number; withSelf: boolean }
  | { kind: 'jump'; reader: number; to: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('say' as const), speaker: who, content: fc.string({ maxLength: 8 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('hear' as const),
      reader: who,
      limit: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('status' as const), reader: who, withSelf: fc.boolean() }) },
  // Readers occasionally hold an arbitrary position: 0, far behind, or beyond latest (from an older ring).
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('jump' as const), reader: who, to: fc.integer({ min: 0, max: 60 }) }) },
);

describe('MeetingRing model', () => {
  it('meeting - ring hear and status match the reference model for random interleavings', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.array(op, { maxLength: 80 }), (capacity, ops) => {
        const ring = new MeetingRing(capacity);
        const model = new RingModel(capacity);
        const lastHeard = PEOPLE.map(() => 0);
        let clock = 0;
        for (const step of ops) {
          clock += 1;
          switch (step.kind) {
            case 'say': {
              const id = PEOPLE[step.speaker] ?? 'p0';
              const said = ring.say({ id, handle: id.toUpperCase() }, step.content, clock);
              expect(said).toEqual(model.say(id, id.toUpperCase(), step.content, clock));
              break;
            }
            case 'hear': {
              const id = PEOPLE[step.reader] ?? 'p0';
              const from = lastHeard[step.reader] ?? 0;
              const got = ring.hear(from, id, step.limit);
              expect(got).toEqual(model.hear(from, id, step.limit));
              // Without a limit, hear returns exactly what status called unread.
              if (step.limit === undefined) expect(got.messages.length).toBe(ring.status(from, id).unread);
              lastHeard[step.reader] = got.lastHeard;
              break;
            }
            case 'status': {
              const id = PEOPLE[step.reader] ?? 'p0';
              const from = lastHeard[step.reader] ?? 0;
              const self = step.withSelf ? id : undefined;
              expect(ring.status(from, self)).toEqual(model.status(from, self));
              break;
            }
            case 'jump':
              lastHeard[step.reader] = step.to;
              break;
          }
          expect([ring.oldest, ring.latest, ring.size]).toEqual([model.oldest, model.latest, model.retained.length]);
          expect(ring.allocatedSlots).toBe(capacity);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('meeting - after hearing with no limit, a reader has nothing unread', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }),
        fc.array(who, { maxLength: 30 }),
        fc.integer({ min: 0, max: 40 }),
        who,
        (capacity, speakers, start, reader) => {
          const ring = new MeetingRing(capacity);
          for (const s of speakers) ring.say({ id: PEOPLE[s] ?? 'p0', handle: 'h' }, 'x', 0);
          const id = PEOPLE[reader] ?? 'p0';
          const heard = ring.hear(start, id);
          expect(ring.status(heard.lastHeard, id).unread).toBe(0);
          expect(ring.hear(heard.lastHeard, id)).toEqual({ messages: [], messagesLost: false, lastHeard: heard.lastHeard });
          // Numbers are strictly increasing and none is the reader's own.
          const numbers = heard.messages.map((m) => m.number);
          expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
          expect(new Set(numbers).size).toBe(numbers.length);
          expect(heard.messages.every((m) => m.speakerId !== id)).toBe(true);
        },
      ),
    );
  });
});
