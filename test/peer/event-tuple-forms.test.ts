import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventTuple, EventTupleForms } from '../../src/peer/event-frames.js';

/** Items of the right and wrong kinds for each place of an event tuple, at their bounds. */
const bytes = (length: number) => new Uint8Array(length).fill(7);
const item = fc.constantFrom<unknown>(
  bytes(0),
  bytes(1),
  bytes(32),
  bytes(64),
  bytes(65),
  '',
  'general',
  'x'.repeat(200),
  'x'.repeat(201),
  null,
  undefined,
  0,
  -0,
  7,
  -1,
  1.5,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  Number.NaN,
  [],
  [['01KAPM5S0000000000000000T1', 'side', ['a']]],
  { length: 5 },
);
const good = [bytes(12), bytes(64), 'default', 'general', null] as const;
/** Tuples near the forms: a good one with some places changed, cut or lengthened. */
const tuple = fc
  .record({ length: fc.integer({ min: 0, max: 8 }), changes: fc.array(fc.tuple(fc.nat({ max: 7 }), item), { maxLength: 3 }) })
  .map(({ length, changes }) => {
    const t: unknown[] = Array.from({ length }, (_, i) => (i < good.length ? good[i] : i === 5 ? null : 3));
    for (const [at, value] of changes) if (at < t.length) t[at] = value;
    return t;
  });

describe('event tuples in a frame', () => {
  it('event tuple forms - the checks by hand take only what the full forms take, with the same value', () => {
    fc.assert(
      fc.property(fc.oneof(tuple, item), (value) => {
        const quick = EventTuple.safeParse(value);
        const full = EventTupleForms.safeParse(value);
        expect(quick.success).toBe(full.success);
        if (quick.success && full.success) expect(quick.data).toEqual(full.data);
      }),
      { numRuns: 20_000 },
    );
  });
});
