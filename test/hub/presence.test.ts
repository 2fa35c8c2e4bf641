import { describe, expect, it } from 'vitest';
import { PresenceTracker } from '../../src/hub/presence.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

const profile = { kind: 'agent' as const, roles: [], client: 'claude' };
const alice = { id: 'p_alice', handle: 'alice', profile };

describe('presence tracker', () => {
  it('presence - a set state is visible with the profile in its details while connected', () => {
    const tracker = new PresenceTracker(300_000, () => 1_000_000);
    expect(tracker.set('s', alice, { state: 'thinking' })).toMatchObject({ handle: 'alice', state: 'offline', connection: 'offline', seq: 1, details: { profile } });
    tracker.open('s', alice, 'mcp');
    expect(tracker.get('s', 'p_alice')).toMatchObject({ state: 'thinking', connection: 'connected' });
  });

  it('presence - connected while a session or stream is held, waiting while a wait is, offline when none is left', () => {
    const tracker = new PresenceTracker(300_000, () => 0);
    expect(tracker.open('s', alice, 'mcp')).toMatchObject({ state: 'listening', connection: 'connected' });
    expect(tracker.open('s', alice, 'stream')).toBeUndefined();
    expect(tracker.open('s', alice, 'wait')).toMatchObject({ connection: 'waiting' });
    expect(tracker.close('s', 'p_alice', 'wait')).toMatchObject({ connection: 'connected' });
    expect(tracker.close('s', 'p_alice', 'mcp')).toBeUndefined();
    expect(tracker.close('s', 'p_alice', 'stream')).toMatchObject({ state: 'offline', connection: 'offline' });
    // A close without an open changes nothing.
    expect(tracker.close('s', 'p_alice', 'stream')).toBeUndefined();
  });

  it('presence - a one-shot call moves last seen only; gone once offline past the TTL', () => {
    let now = 1000;
    const tracker = new PresenceTracker(60_000, () => now);
    tracker.touch('s', alice);
    expect(tracker.get('s', 'p_alice')).toMatchObject({ state: 'offline', connection: 'offline', lastSeen: new Date(1000).toISOString() });
    now += 60_000;
    expect(tracker.isGone('s', 'p_alice')).toBe(false);
    now += 1;
    expect(tracker.isGone('s', 'p_alice')).toBe(true);
    tracker.open('s', alice, 'wait');
    now += 3_600_000;
    expect(tracker.isGone('s', 'p_alice')).toBe(false);
  });

  it('presence - conflicting updates resolve by the highest per-participant seq', () => {
    const tracker = new PresenceTracker(300_000, () => 0);
    tracker.open('s', alice, 'mcp');
    expect(tracker.set('s', alice, { state: 'typing', seq: 5 })?.state).toBe('typing');
    expect(tracker.set('s', alice, { state: 'idle', seq: 3 })).toBeUndefined();
    expect(tracker.set('s', alice, { state: 'idle', seq: 5 })).toBeUndefined();
    expect(tracker.get('s', 'p_alice')).toMatchObject({ state: 'typing', seq: 5 });
    expect(tracker.set('s', alice, { state: 'thinking', seq: 9 })?.seq).toBe(9);
    // Connections coming and going do not take seq numbers from the participant's own counter.
    tracker.open('s', alice, 'wait');
    tracker.close('s', 'p_alice', 'wait');
    expect(tracker.set('s', alice, { state: 'listening', seq: 10 })?.seq).toBe(10);
  });

  it('presence - sessions are separate', () => {
    const tracker = new PresenceTracker(300_000, () => 0);
    tracker.open('one', alice, 'mcp');
    tracker.set('one', alice, { state: 'typing' });
    expect(tracker.get('two', 'p_alice')).toBeUndefined();
    expect(tracker.list('two')).toEqual([]);
  });
});

describe('presence through the hub', () => {
  const hubs = testHubsClosedAfterEach();

  const stateOf = async (observer: { who(): Promise<Array<{ handle: string; state: string; connection: string }>> }, handle: string) => {
    const found = (await observer.who()).find((p) => p.handle === handle);
    return found && { state: found.state, connection: found.connection };
  };

  it('presence - one-shot calls leave a participant offline; a live stream makes it connected, a wait waiting, and closing both offline', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's', profile: { client: 'claude' } });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    await a.post({ thread: 'general', text: 'one shot' });
    await a.setPresence({ state: 'typing', thread: 'general' });
    expect(await stateOf(b, 'alice')).toEqual({ state: 'offline', connection: 'offline' });

    const live = a.live();
    expect(await stateOf(b, 'alice')).toEqual({ state: 'typing', connection: 'connected' });
    const waiting = a.wait({ timeout_ms: 60_000 });
    expect(await stateOf(b, 'alice')).toEqual({ state: 'typing', connection: 'waiting' });
    await b.dm({ to: 'alice', text: 'wake up' });
    await waiting;
    expect(await stateOf(b, 'alice')).toEqual({ state: 'typing', connection: 'connected' });
    live.close();
    expect(await stateOf(b, 'alice')).toEqual({ state: 'offline', connection: 'offline' });
    const who = await b.who();
    expect(who.find((p) => p.handle === 'alice')).toMatchObject({ details: { profile: { client: 'claude' } } });
  });

  it('presence - changes, declared and of connection, travel on the live stream', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live();
    const aliceLive = a.live();
    await a.setPresence({ state: 'thinking', seq: 7 });
    aliceLive.close();
    const frames = [(await live.next()).value, (await live.next()).value, (await live.next()).value, (await live.next()).value];
    live.close();
    expect(frames).toMatchObject([
      // A stream carries its own participant coming online first (the page sees itself connected).
      { kind: 'presence', presence: { handle: 'bob', state: 'listening', connection: 'connected' } },
      { kind: 'presence', presence: { handle: 'alice', state: 'listening', connection: 'connected' } },
      { kind: 'presence', presence: { handle: 'alice', state: 'thinking', connection: 'connected', seq: 7 } },
      { kind: 'presence', presence: { handle: 'alice', state: 'offline', connection: 'offline' } },
    ]);
  });

  it('meeting - a participant whose last connection closes leaves every meeting it was in', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const session = a.holdPresence('mcp');
    const stream = a.live();
    await a.meetingJoin('standup');
    await a.meetingJoin('retro');
    await b.meetingJoin('standup');
    session();
    // Still connected through its stream: still in.
    expect((await b.meetingWho('standup')).who.map((m) => m.handle)).toEqual(['alice', 'bob']);
    stream.close();
    expect((await b.meetingWho('standup')).who.map((m) => m.handle)).toEqual(['bob']);
    expect((await b.meetingWho('retro')).who).toEqual([]);
  });

  it('meeting - a caller taken with one-shot calls is freed once its holder is offline past the TTL, so ghosts do not fill the room', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const t = await hubs.open({ now: () => now, config: { presence: { ttlSeconds: 60 }, meeting: { maxParticipants: 2 } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const c = await t.hub.join({ handle: 'carol', session: 's' });
    await a.meetingJoin('standup');
    await b.meetingJoin('standup');
    await expect(c.meetingJoin('standup')).rejects.toMatchObject({ code: 'MEETING_FULL' });
    now += 61_000;
    // bob is still there (a call of his is a sign of life); alice said nothing for the TTL and is gone.
    await b.meetingHear({ meeting: 'standup' });
    expect((await c.meetingJoin('standup')).who.map((m) => m.handle)).toEqual(['bob', 'carol']);
  });
});
