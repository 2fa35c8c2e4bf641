import { describe, expect, it } from 'vitest';
import { PresenceTracker } from '../../src/hub/presence.js';
import { StopContinuations } from '../../src/hub/stop-continuations.js';

const profile = { kind: 'agent' as const, roles: [], client: 'claude' };
const alice = { id: 'p_alice', handle: 'alice', profile };

/**
 * What an agent CLI's hooks report shows for the presence TTL over the
 * declared state, then reverts (announced by the hub's sweep); and the
 * in-memory count of blocked stops stays bounded.
 */
describe('hook activity', () => {
  it('presence - a hook report shows its state and keeps the agent present for the TTL, then reverts; a declaration wins over it', () => {
    let now = 0;
    const tracker = new PresenceTracker(60_000, () => now);
    expect(tracker.report('s', alice, 'thinking', 60_000)).toMatchObject({ state: 'thinking', connection: 'connected' });
    // The same report again changes nothing anyone sees.
    expect(tracker.report('s', alice, 'thinking', 60_000)).toBeUndefined();
    now += 59_999;
    expect(tracker.expireActivities()).toEqual([]);
    now += 1;
    expect(tracker.get('s', 'p_alice')).toMatchObject({ state: 'offline', connection: 'offline' });
    expect(tracker.expireActivities()).toEqual([{ session: 's', presence: expect.objectContaining({ state: 'offline', connection: 'offline' }) }]);
    expect(tracker.expireActivities()).toEqual([]);

    // With a live connection it reverts to the declared state.
    tracker.open('s', alice, 'mcp');
    tracker.set('s', alice, { state: 'typing' });
    expect(tracker.report('s', alice, 'thinking', 60_000)).toMatchObject({ state: 'thinking', connection: 'connected' });
    expect(tracker.set('s', alice, { state: 'idle' })).toMatchObject({ state: 'idle' });
    tracker.report('s', alice, 'listening', 60_000);
    expect(tracker.endActivity('s', 'p_alice')).toMatchObject({ state: 'idle', connection: 'connected' });
    expect(tracker.endActivity('s', 'p_alice')).toBeUndefined();
  });

  it('stop continuations - counted per participant and client session, reset, and the least recently counted forgotten past the capacity', () => {
    const counts = new StopContinuations(2);
    expect(counts.blocked('p1', 'a')).toBe(1);
    expect(counts.blocked('p1', 'a')).toBe(2);
    expect(counts.count('p2', 'a')).toBe(0);
    counts.blocked('p1', 'b');
    counts.blocked('p1', 'a');
    // A third session: "b", counted least recently, is forgotten.
    counts.blocked('p1', 'c');
    expect([counts.count('p1', 'a'), counts.count('p1', 'b'), counts.count('p1', 'c')]).toEqual([3, 0, 1]);
    counts.reset('p1', 'a');
    expect(counts.count('p1', 'a')).toBe(0);
  });
});
