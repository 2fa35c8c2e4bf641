import { describe, expect, it } from 'vitest';
import { ReplayGuard } from '../../src/trust/replay-guard.js';

const T0 = Date.parse('2026-11-24T12:00:00Z');

function guard(options: Partial<{ clockSkewSecs: number; maxIds: number }> = {}): { guard: ReplayGuard; clock: { now: number } } {
  const clock = { now: T0 };
  return { guard: new ReplayGuard({ clockSkewSecs: options.clockSkewSecs ?? 30, maxIds: options.maxIds ?? 1000, now: () => clock.now }), clock };
}

describe('replay guard', () => {
  it('replay - an envelope within its TTL passes once; the same id again is a duplicate', () => {
    const { guard: g } = guard();
    expect(g.admit('a', T0 - 10_000, 300)).toBe('ok');
    expect(g.admit('a', T0 - 10_000, 300)).toBe('duplicate');
    // A different timestamp does not make an old id new.
    expect(g.admit('a', T0, 300)).toBe('duplicate');
    expect(g.admit('b', T0, 300)).toBe('ok');
    expect(g.size).toBe(2);
  });

  it('replay - past ts + ttl + skew is expired, ahead of now + skew is from the future, and the skew is honoured both ways', () => {
    const { guard: g } = guard({ clockSkewSecs: 30 });
    // ts + 300 s + 30 s skew is the last moment it is valid.
    expect(g.admit('edge', T0 - 330_000, 300)).toBe('ok');
    expect(g.admit('late', T0 - 330_001, 300)).toBe('expired');
    expect(g.admit('ahead-ok', T0 + 30_000, 300)).toBe('ok');
    expect(g.admit('ahead', T0 + 30_001, 300)).toBe('future');
    const strict = guard({ clockSkewSecs: 0 }).guard;
    expect(strict.admit('late', T0 - 300_001, 300)).toBe('expired');
    expect(strict.admit('ahead', T0 + 1, 300)).toBe('future');
    // Refused envelopes are not remembered.
    expect(g.size).toBe(2);
  });

  it('replay - an id is remembered exactly as long as its envelope could pass the TTL check, then forgotten', () => {
    const { guard: g, clock } = guard({ clockSkewSecs: 0 });
    expect(g.admit('a', T0, 10)).toBe('ok');
    expect(g.admit('b', T0, 100)).toBe('ok');
    clock.now = T0 + 10_000;
    expect(g.admit('a', T0, 10)).toBe('duplicate');
    clock.now = T0 + 11_000;
    // Expired now, and no longer held in memory.
    expect(g.admit('a', T0, 10)).toBe('expired');
    expect(g.size).toBe(1);
    clock.now = T0 + 101_000;
    expect(g.check('c', clock.now, 10)).toBe('ok');
    expect(g.size).toBe(0);
  });

  it('replay - at the cap new envelopes are refused, never an early forgetting of ids, until old ones expire', () => {
    const { guard: g, clock } = guard({ clockSkewSecs: 0, maxIds: 3 });
    for (const id of ['a', 'b', 'c']) expect(g.admit(id, T0, 5)).toBe('ok');
    expect(g.admit('d', T0, 5)).toBe('full');
    // Still a duplicate, not forgotten to make room.
    expect(g.admit('a', T0, 5)).toBe('duplicate');
    clock.now = T0 + 6_000;
    expect(g.admit('d', clock.now, 5)).toBe('ok');
    expect(g.size).toBe(1);
  });
});
