import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { openTestHub } from '../helpers/hub.js';

/**
 * Model-based tests of cursor and inbox semantics: random sequences of posts,
 * DMs, mentions, subscription changes, inbox/peek/readNew calls, checked after
 * every step against a small reference model that knows only the rules:
 * every event meant for a participant reaches them exactly once, with the
 * right priority, and never their own.
 */
const PEOPLE = ['a', 'b', 'c'] as const;
type Person = (typeof PEOPLE)[number];
const THREADS = ['general', 'ops'] as const;
type ThreadName = (typeof THREADS)[number];
type Sub = 'subscribed' | 'muted' | 'unsubscribed';

type Op =
  | { kind: 'post'; by: Person; thread: ThreadName; mention: Person | null }
  | { kind: 'dm'; by: Person; to: Person }
  | { kind: 'inbox'; by: Person; limit: number }
  | { kind: 'peek'; by: Person; limit: number }
  | { kind: 'sub'; by: Person; thread: ThreadName; state: Sub };

const person = fc.constantFrom(...PEOPLE);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('post' as const), by: person, thread: fc.constantFrom(...THREADS), mention: fc.option(person) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('dm' as const), by: person, to: person }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('inbox' as const), by: person, limit: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('peek' as const), by: person, limit: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sub' as const), by: person, thread: fc.constantFrom(...THREADS), state: fc.constantFrom<Sub>('subscribed', 'muted', 'unsubscribed') }) },
);

interface ModelEvent {
  id: string;
  seq: number;
  thread: string;
  from: Person;
  /** Who this event targets (DM partner or mention). */
  target: Person | null;
}

class Model {
  events: ModelEvent[] = [];
  subs = new Map<string, Sub>();
  returned = new Map<Person, Set<string>>(PEOPLE.map((p) => [p, new Set()]));

  sub(p: Person, thread: string): Sub {
    return this.subs.get(`${p}|${thread}`) ?? (thread.startsWith('dm:') ? 'unsubscribed' : 'subscribed');
  }

  /** Everything still owed to p, with the priority it must come with. */
  owed(p: Person): Map<string, 'high' | 'normal' | 'low'> {
    const owed = new Map<string, 'high' | 'normal' | 'low'>();
    for (const e of this.events) {
      if (e.from === p || this.returned.get(p)?.has(e.id)) continue;
      if (e.target === p) owed.set(e.id, 'high');
      else if (this.sub(p, e.thread) === 'subscribed') owed.set(e.id, 'normal');
      else if (this.sub(p, e.thread) === 'muted') owed.set(e.id, 'low');
    }
    return owed;
  }
}

describe('inbox model', () => {
  it('inbox model - every event meant for a participant arrives exactly once, with its priority, never their own', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const t = await openTestHub();
        try {
          const actors = new Map<Person, Actor>();
          for (const p of PEOPLE) actors.set(p, await t.hub.join({ handle: p, session: 's' }));
          const actor = (p: Person): Actor => actors.get(p)!;
          await actor('a').createChannel({ name: 'ops', members: ['b', 'c'] });
          // Drain the set-up events (thread creation) so the model starts empty.
          for (const p of PEOPLE) while ((await actor(p).inbox({ limit: 500 })).items.length > 0);
          const model = new Model();
          const dmThreads = new Map<string, string>();

          for (const step of ops) {
            if (step.kind === 'post') {
              const text = step.mention ? `hi @${step.mention}` : 'hello';
              const r = await actor(step.by).post({ thread: step.thread, text });
              const target = step.mention && step.mention !== step.by ? step.mention : null;
              model.events.push({ id: r.id, seq: r.seq, thread: step.thread, from: step.by, target });
            } else if (step.kind === 'dm') {
              if (step.to === step.by) continue;
              const r = await actor(step.by).dm({ to: step.to, text: 'psst' });
              dmThreads.set(r.thread, `dm:${[step.by, step.to].sort().join(',')}`);
              model.events.push({ id: r.id, seq: r.seq, thread: dmThreads.get(r.thread)!, from: step.by, target: step.to });
            } else if (step.kind === 'sub') {
              await actor(step.by).subscribe(step.thread);
              if (step.state === 'muted') await actor(step.by).mute(step.thread);
              if (step.state === 'unsubscribed') await actor(step.by).unsubscribe(step.thread);
              model.subs.set(`${step.by}|${step.thread}`, step.state);
            } else {
              const owed = model.owed(step.by);
              const peekBefore = await actor(step.by).peek({ limit: step.limit });
              const result = step.kind === 'inbox' ? await actor(step.by).inbox({ limit: step.limit }) : await actor(step.by).peek({ limit: step.limit });
              const ids = result.items.map((i) => i.event.id);
              // Peek changes nothing: the call after it sees the same items.
              expect(ids).toEqual(peekBefore.items.map((i) => i.event.id));
              expect(new Set(ids).size).toBe(ids.length);
              expect(result.items.length).toBe(Math.min(step.limit, owed.size));
              expect(result.more).toBe(owed.size > step.limit);
              for (const item of result.items) {
                expect(item.event.from).not.toBe(actor(step.by).participant.id);
                expect(owed.get(item.event.id)).toBe(item.priority);
              }
              // High items come first, and all of them before any other when they do not fit.
              const highOwed = [...owed.values()].filter((p) => p === 'high').length;
              expect(result.items.filter((i) => i.priority === 'high').length).toBe(Math.min(step.limit, highOwed));
              if (step.kind === 'inbox') for (const id of ids) model.returned.get(step.by)!.add(id);
            }
          }
          // In the end, draining delivers exactly what is still owed.
          for (const p of PEOPLE) {
            const owed = model.owed(p);
            const drained: string[] = [];
            for (;;) {
              const r = await actor(p).inbox({ limit: 3 });
              if (r.items.length === 0) break;
              drained.push(...r.items.map((i) => i.event.id));
            }
            expect(drained.sort()).toEqual([...owed.keys()].sort());
          }
        } finally {
          await t.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('readNew model - each event of a thread is read once, in order, own skipped, newPointer monotonic', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({ kind: fc.constant('post' as const), by: person }),
            fc.record({ kind: fc.constant('read' as const), by: person, limit: fc.integer({ min: 1, max: 4 }) }),
          ),
          { minLength: 1, maxLength: 50 },
        ),
        async (ops) => {
          const t = await openTestHub();
          try {
            const actors = new Map<Person, Actor>();
            for (const p of PEOPLE) actors.set(p, await t.hub.join({ handle: p, session: 's' }));
            const start = new Map<Person, number>();
            for (const p of PEOPLE) start.set(p, (await actors.get(p)!.readNew({ thread: 'general', limit: 1000 })).newPointer);
            const posted: Array<{ seq: number; by: Person }> = [];
            const read = new Map<Person, number[]>(PEOPLE.map((p) => [p, []]));
            const pointer = new Map<Person, number>(start);
            for (const step of ops) {
              if (step.kind === 'post') {
                posted.push({ seq: (await actors.get(step.by)!.post({ thread: 'general', text: 'x' })).seq, by: step.by });
                continue;
              }
              const r = await actors.get(step.by)!.readNew({ thread: 'general', limit: step.limit });
              const after = posted.filter((e) => e.seq > pointer.get(step.by)!);
              const page = after.slice(0, step.limit);
              expect(r.events.map((e) => e.seq)).toEqual(page.filter((e) => e.by !== step.by).map((e) => e.seq));
              expect(r.newPointer).toBe(page.length > 0 ? page[page.length - 1]!.seq : pointer.get(step.by));
              expect(r.more).toBe(after.length > step.limit);
              pointer.set(step.by, r.newPointer);
              read.get(step.by)!.push(...r.events.map((e) => e.seq));
            }
            for (const p of PEOPLE) {
              const seen = read.get(p)!;
              expect(new Set(seen).size).toBe(seen.length);
              expect(seen).toEqual([...seen].sort((x, y) => x - y));
            }
          } finally {
            await t.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
