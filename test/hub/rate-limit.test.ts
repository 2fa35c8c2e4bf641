import { describe, expect, it } from 'vitest';
import { DEFAULT_WRITE_BURST, DEFAULT_WRITES_PER_MINUTE } from '../../src/config/defaults.js';
import type { Actor } from '../../src/hub/actor.js';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

describe('rate limit', () => {
  it('rate limit - on by default: an agent’s bursts and steady pace pass, a storm is held to the burst plus the sustained rate', async () => {
    let now = 1_000_000;
    const t = await hubs.open({ now: () => now });
    expect(t.hub.config.chat.limits).toMatchObject({ writeBurst: DEFAULT_WRITE_BURST, writesPerMinute: DEFAULT_WRITES_PER_MINUTE });
    const agent = await t.hub.join({ handle: 'agent', session: 's' });
    // A burst: 40 posts at once, then a steady 5 a second for two minutes.
    for (let i = 0; i < 40; i++) await agent.post({ thread: 'general', text: `burst ${i}` });
    for (let i = 0; i < 600; i++) {
      now += 200;
      await agent.post({ thread: 'general', text: `steady ${i}` });
    }
    // A storm: 30,000 posts tried within 11 s by another participant.
    const storm = await t.hub.join({ handle: 'storm', session: 's' });
    const before = t.hub.stats().events;
    let stored = 0;
    let refused = 0;
    const start = now;
    for (let i = 0; i < 30_000; i++) {
      now = start + Math.floor(((i + 1) * 11_000) / 30_000);
      try {
        await storm.post({ thread: 'general', text: `flood ${i}` });
        stored++;
      } catch (error) {
        expect((error as { code: string }).code).toBe('RATE_LIMITED');
        refused++;
      }
    }
    expect(stored).toBeGreaterThanOrEqual(DEFAULT_WRITE_BURST);
    expect(stored).toBeLessThanOrEqual(DEFAULT_WRITE_BURST + Math.ceil((11 * DEFAULT_WRITES_PER_MINUTE) / 60));
    expect(stored + refused).toBe(30_000);
    expect(t.hub.stats().events - before).toBe(stored);
  }, 60_000);

  it('rate limit - past the burst a participant is refused with RATE_LIMITED, nothing stored, others unaffected, and it refills', async () => {
    let now = 1_000_000;
    const t = await hubs.open({ now: () => now, config: { chat: { limits: { writeBurst: 3, writesPerMinute: 3 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    for (let i = 0; i < 3; i++) await a.post({ thread: 'general', text: `m${i}` });
    const before = t.hub.stats().events;
    const error = await caught(() => a.post({ thread: 'general', text: 'one too many' }));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toContain('bursts of 3, then 3 per minute');
    expect(error.message).toContain('Retry in 20 s');
    expect((await caught(() => a.dm({ to: 'bob', text: 'sneaky' }))).code).toBe('RATE_LIMITED');
    expect(t.hub.stats().events).toBe(before);
    await expect(b.post({ thread: 'general', text: 'bob is fine' })).resolves.toMatchObject({ seq: before + 1 });
    now += 20_000;
    await expect(a.post({ thread: 'general', text: 'after the refill' })).resolves.toMatchObject({ seq: before + 2 });
  });

  it('rate limit - writesPerMinute 0 turns it off', async () => {
    const t = await hubs.open({ config: { chat: { limits: { writeBurst: 1, writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    for (let i = 0; i < 100; i++) await a.post({ thread: 'general', text: `m${i}` });
    expect(t.hub.stats().events).toBeGreaterThanOrEqual(100);
  });

  it('rate limit - every write counts: DMs, requests, responses, meeting lines and entries, channels, side channels, every control', async () => {
    let now = 1_000_000;
    // The writers steer too (every control counts): agents are admins here.
    const t = await hubs.open({ now: () => now, config: { chat: { limits: { writeBurst: 1, writesPerMinute: 1 } }, trust: { localAccess: { agent: 'admin' } } } });
    const hub = t.hub;
    const human = await hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    let n = 0;
    /** A participant who has just spent its only write on a post; `prepare` runs first, with every bucket full again. */
    const spent = async (prepare?: (a: Actor) => Promise<void>): Promise<Actor> => {
      const actor = await hub.join({ handle: `writer-${++n}`, session: 's' });
      now += 60_000;
      await prepare?.(actor);
      await actor.post({ thread: 'general', text: 'my one write' });
      return actor;
    };
    const storedEvents = () => hub.stats().events;
    const refusedAndNothingStored = async (what: string, write: (a: Actor) => Promise<unknown>, prepare?: (a: Actor) => Promise<void>) => {
      const actor = await spent(prepare);
      const before = storedEvents();
      const error = await caught(() => write(actor));
      expect(error.code, what).toBe('RATE_LIMITED');
      expect(storedEvents(), what).toBe(before);
    };
    await refusedAndNothingStored('dm', (a) => a.dm({ to: 'human', text: 'hi' }));
    await refusedAndNothingStored('request', (a) => a.request({ to: 'human', intent: 'approve' }));
    let asked = '';
    await refusedAndNothingStored(
      'response',
      (a) => a.respond({ request_id: asked, status: 'Completed' }),
      async (a) => {
        asked = (await human.request({ to: a.participant.handle, intent: 'check' })).request_id;
      },
    );
    await refusedAndNothingStored('channel create', (a) => a.createChannel({ name: 'more' }));
    await refusedAndNothingStored('rename', (a) => a.renameThread({ thread: 'general', name: 'renamed' }));
    await refusedAndNothingStored('side open', (a) => a.openSide({ parent: 'general', title: 'aside' }));
    let side = '';
    await refusedAndNothingStored(
      'side close',
      (a) => a.closeSide({ thread: side, summary: 'done' }),
      async (a) => {
        side = (await human.openSide({ parent: 'general', title: `side of ${a.participant.handle}`, members: [a.participant.handle] })).id;
      },
    );
    await refusedAndNothingStored('prod', (a) => a.prod('general', ['human']));
    await refusedAndNothingStored('pause', (a) => a.pause('general'));
    await refusedAndNothingStored('invite', (a) => a.invite('general', 'newcomer'));
    await refusedAndNothingStored('mute', (a) => a.hardMute('general', [a.participant.handle === 'writer-1' ? 'writer-2' : 'writer-1']));
    // Meetings live in memory: their ring and member list must not change either.
    now += 60_000;
    await human.meetingJoin('standup');
    const ring = () => hub.actor('human', 's').meetingRing('standup');
    const lines = (await ring()).latest;
    const sayer = await spent();
    expect((await caught(() => sayer.meetingSay('standup', 'hello'))).code).toBe('RATE_LIMITED');
    expect((await caught(() => sayer.meetingJoin('standup'))).code).toBe('RATE_LIMITED');
    expect(await ring()).toMatchObject({ latest: lines, who: [expect.objectContaining({ handle: 'human' })] });
    expect((await ring()).who).toHaveLength(1);
    expect((await caught(() => sayer.meetingJoin('another'))).code).toBe('RATE_LIMITED');
    expect((await sayer.meetings()).map((m) => m.name)).toEqual(['standup']);
  });

  it('rate limit - reading, bookkeeping, presence and leaving are never refused', async () => {
    const t = await hubs.open({ config: { chat: { limits: { writeBurst: 1, writesPerMinute: 1 } } } });
    const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    await a.meetingJoin('standup');
    const dm = await human.dm({ to: 'alice', text: 'hi' });
    expect((await caught(() => a.post({ thread: 'general', text: 'spent' }))).code).toBe('RATE_LIMITED');
    await expect(a.meetingJoin('standup')).resolves.toMatchObject({ name: 'standup' });
    for (let i = 0; i < 5; i++) {
      await a.readNew({ thread: 'general' });
      await a.history({ thread: 'general' });
      await a.inbox();
      await a.ack({ ids: [dm.id] });
      await a.subscribe('general');
      await a.markRead(dm.thread, dm.seq);
      await a.setPresence({ state: 'thinking' });
      await a.updateProfile({ nickname: `Al ${i}` });
      await a.meetingHear({ meeting: 'standup' });
    }
    await expect(a.meetingLeave('standup')).resolves.toEqual({ left: true });
  });
});
