import { afterEach, describe, expect, it } from 'vitest';
import { PresenceTracker } from '../../src/hub/presence.js';
import { openTestHub, type TestHub } from '../helpers/hub.js';

const profile = { kind: 'agent' as const, roles: [], client: 'claude' };
const alice = { id: 'p_alice', handle: 'alice', profile };

describe('presence tracker', () => {
  it('presence - a set state is visible with the profile in its details', () => {
    let now = 1_000_000;
    const tracker = new PresenceTracker(300_000, () => now);
    const set = tracker.set('s', alice, { state: 'thinking' });
    expect(set).toMatchObject({ handle: 'alice', state: 'thinking', seq: 1, details: { profile } });
    now += 1000;
    expect(tracker.get('s', 'p_alice')?.state).toBe('thinking');
  });

  it('presence - offline after the TTL without a sign of life, back on touch', () => {
    let now = 0;
    const tracker = new PresenceTracker(300_000, () => now);
    tracker.set('s', alice, { state: 'listening' });
    now += 300_000;
    expect(tracker.get('s', 'p_alice')?.state).toBe('listening');
    now += 1;
    expect(tracker.get('s', 'p_alice')?.state).toBe('offline');
    expect(tracker.sweep().map((c) => c.presence.state)).toEqual(['offline']);
    expect(tracker.sweep()).toEqual([]);
    const back = tracker.touch('s', alice);
    expect(back?.state).toBe('listening');
  });

  it('presence - conflicting updates resolve by the highest per-participant seq', () => {
    const tracker = new PresenceTracker(300_000, () => 0);
    expect(tracker.set('s', alice, { state: 'typing', seq: 5 })?.state).toBe('typing');
    expect(tracker.set('s', alice, { state: 'idle', seq: 3 })).toBeUndefined();
    expect(tracker.set('s', alice, { state: 'idle', seq: 5 })).toBeUndefined();
    expect(tracker.get('s', 'p_alice')).toMatchObject({ state: 'typing', seq: 5 });
    expect(tracker.set('s', alice, { state: 'thinking', seq: 9 })?.seq).toBe(9);
    expect(tracker.set('s', alice, { state: 'listening' })?.seq).toBe(10);
  });

  it('presence - sessions are separate', () => {
    const tracker = new PresenceTracker(300_000, () => 0);
    tracker.set('one', alice, { state: 'typing' });
    expect(tracker.get('two', 'p_alice')).toBeUndefined();
    expect(tracker.list('two')).toEqual([]);
  });
});

describe('presence through the hub', () => {
  let t: TestHub | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('presence - who lists every participant of the session, offline until seen', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    t = await openTestHub({ now: () => now, config: { presence: { ttlSeconds: 60 } } });
    const a = await t.hub.join({ handle: 'alice', session: 's', profile: { client: 'claude' } });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    await a.setPresence({ state: 'typing', thread: 'general' });
    const who = await b.who();
    const byHandle = Object.fromEntries(who.map((p) => [p.handle, p]));
    expect(byHandle.alice).toMatchObject({ state: 'typing', details: { profile: { client: 'claude' } } });
    expect(byHandle.bob?.state).toBe('listening');
    now += 61_000;
    expect((await b.who()).find((p) => p.handle === 'alice')?.state).toBe('offline');
  });

  it('presence - changes travel on the live stream', async () => {
    t = await openTestHub();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live();
    await a.setPresence({ state: 'thinking', seq: 7 });
    const first = await live.next();
    live.close();
    expect(first.value).toMatchObject({ kind: 'presence', presence: { handle: 'alice', state: 'thinking', seq: 7 } });
  });
});
