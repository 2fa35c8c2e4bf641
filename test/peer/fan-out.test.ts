import { describe, expect, it } from 'vitest';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';
import { linkedTeam, linkState, rosterOfHubs, startLinks, type TeamHub } from '../helpers/peer-hubs.js';
import { exportLines, headerFieldsOf, sealedBy, verifyLines } from '../trust/export-lines.js';

/**
 * Events crossing linked hubs (in one process, over loopback TCP): each hub
 * sends its own participants' events to the hubs that may receive them, and
 * each takes them in once, in order, through its gate.
 */
const hubs = testHubsClosedAfterEach();

/** What a channel holds on a hub, as `author: text`, oldest first. */
async function channelOn(hub: TeamHub, reader: string, channel = 'general'): Promise<string[]> {
  const { events } = await hub.actors[reader]!.history({ thread: channel, limit: 500 });
  return events.filter((e) => e.type === 'message').map((e) => `${e.author}: ${String(e.content)}`);
}

describe('fan-out between linked hubs', () => {
  it('fan-out - a channel spans three hubs: every message reaches every hub once, in each sender\'s order, both ways', async () => {
    const [a, b, c] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal']]);
    const sent: string[] = [];
    const posts: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      for (const [hub, handle] of [[a!, 'ann'], [b!, 'bea'], [c!, 'cal']] as const) {
        sent.push(`${handle}: ${handle} ${i}`);
        posts.push(hub.actors[handle]!.post({ thread: 'general', text: `${handle} ${i}` }));
      }
    }
    await Promise.all(posts);
    for (const [hub, reader] of [[a!, 'ann'], [b!, 'bea'], [c!, 'cal']] as const) {
      await expect.poll(async () => (await channelOn(hub, reader)).length, { timeout: 10_000 }).toBe(60);
      const seen = await channelOn(hub, reader);
      expect([...seen].sort()).toEqual([...sent].sort());
      for (const handle of ['ann', 'bea', 'cal']) {
        expect(seen.filter((line) => line.startsWith(`${handle}:`))).toEqual(Array.from({ length: 20 }, (_, i) => `${handle}: ${handle} ${i}`));
      }
    }
  }, 60_000);
});

describe('fan-out of DMs and after an absence', () => {
  it('fan-out - a DM reaches the one hub hosting its addressee, lands in its inbox there, and goes nowhere else', async () => {
    const [a, b, c] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal']]);
    const sent = await a!.actors.ann!.dm({ to: 'bea', text: 'the cache needs a TTL' });
    let thread = '';
    await expect
      .poll(async () => {
        const { items } = await b!.actors.bea!.inbox();
        thread ||= items[0]?.event.thread ?? '';
        return items.map((item) => [item.event.id, item.event.author, item.event.content]);
      }, { timeout: 10_000 })
      .toEqual([[sent.id, 'ann', 'the cache needs a TTL']]);
    // bea answers in the same DM thread on her hub: it comes back to ann's.
    const reply = await b!.actors.bea!.post({ thread, text: 'on it' });
    await expect.poll(async () => (await a!.actors.ann!.inbox()).items.map((item) => [item.event.id, item.event.content]), { timeout: 10_000 }).toEqual([[reply.id, 'on it']]);
    // Each side's thread list names the DM by the other participant and the hub hosting them.
    const dmOf = async (hub: typeof a, handle: string) => (await hub!.actors[handle]!.threads()).filter((t) => t.kind === 'dm').map((t) => [t.with, t.withHub]);
    expect(await dmOf(a, 'ann')).toEqual([['bea', 'hub-b']]);
    expect(await dmOf(b, 'bea')).toEqual([['ann', 'hub-a']]);
    // cal's hub holds neither.
    await a!.actors.ann!.post({ thread: 'general', text: 'a marker after the DM' });
    await expect.poll(async () => (await channelOn(c!, 'cal')).includes('ann: a marker after the DM'), { timeout: 10_000 }).toBe(true);
    const store = c!.t.hub.internals.store;
    expect([store.events.byId(sent.id), store.events.byId(reply.id)]).toEqual([undefined, undefined]);
  }, 60_000);

  it('fan-out - a hub that was stopped gets the 1,000 messages posted while it was away, in order, none twice', async () => {
    const unlimited = { config: { chat: { limits: { writeBurst: 10_000, writesPerMinute: 1_000_000 } } } };
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']], { hub: unlimited });
    await a!.actors.ann!.post({ thread: 'general', text: 'before' });
    await expect.poll(async () => (await channelOn(b!, 'bea')).length, { timeout: 10_000 }).toBe(1);
    await b!.links.stop();
    const home = b!.t.home;
    await b!.t.hub.close();
    // A's own events that do not cross (a channel's creation is A's to announce) are not counted as waiting for B.
    await a!.actors.ann!.createChannel({ name: 'aside' });
    const posts: Array<Promise<unknown>> = [];
    for (let i = 0; i < 1000; i++) posts.push(a!.actors.ann!.post({ thread: 'general', text: `while away ${i}` }));
    const firstAway = Date.now();
    await Promise.all(posts);
    // What A says waits for B: the 1,000 (and nothing else), and for how long, a minute and a half on.
    const later = Date.now() + 90_000;
    const waiting = a!.links.list(later).find((peer) => peer.key === b!.key);
    expect(waiting).toMatchObject({ state: 'offline', queued: 1000 });
    expect(waiting!.lagSeconds).toBeGreaterThanOrEqual(90);
    expect(waiting!.lagSeconds).toBeLessThanOrEqual(Math.floor((later - firstAway) / 1000) + 1);
    const again = await hubs.open({ ...unlimited, home });
    await startLinks(hubs, again);
    const bea = again.hub.actor('bea');
    const texts = async (): Promise<string[]> => {
      const out: string[] = [];
      let after = 0;
      for (;;) {
        const { events } = await bea.history({ thread: 'general', after, limit: 500 });
        if (events.length === 0) return out;
        out.push(...events.filter((e) => e.type === 'message').map((e) => String(e.content)));
        after = events[events.length - 1]!.seq;
      }
    };
    await expect.poll(async () => (await texts()).length, { timeout: 20_000 }).toBe(1001);
    expect(await texts()).toEqual(['before', ...Array.from({ length: 1000 }, (_, i) => `while away ${i}`)]);
  }, 60_000);

  it('fan-out - what a hub missed for longer than its TTL still reaches it, sent as history; what is written after goes live and is taken', async () => {
    // Both hubs' clocks (not their links'), moved forward while B is away.
    let shift = 0;
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']], { hub: { now: () => Date.now() + shift } });
    await b!.links.stop();
    const home = b!.t.home;
    await b!.t.hub.close();
    for (const text of ['one', 'two', 'three']) await a!.actors.ann!.post({ thread: 'general', text });
    // Six minutes on: past the TTL (300 s) and the allowed skew of what was posted.
    shift = 6 * 60_000;
    const again = await hubs.open({ home, now: () => Date.now() + shift });
    const b2 = { ...(await startLinks(hubs, again)), actors: { bea: again.hub.actor('bea') } };
    await expect.poll(async () => (await channelOn(b2, 'bea')).length, { timeout: 10_000 }).toBe(3);
    await a!.actors.ann!.post({ thread: 'general', text: 'four, just written' });
    await expect.poll(async () => (await channelOn(b2, 'bea')).length, { timeout: 10_000 }).toBe(4);
    expect(await channelOn(b2, 'bea')).toEqual(['ann: one', 'ann: two', 'ann: three', 'ann: four, just written']);
    expect(b2.links.list().find((peer) => peer.key === a!.key)?.drops).toEqual({});
  }, 60_000);
});

describe('what crossed, exported', () => {
  it('fan-out - a signed export of a channel on one hub verifies with the messages written on another (signed for that hub\'s thread id)', async () => {
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']]);
    await a!.actors.ann!.post({ thread: 'general', text: 'from a' });
    await b!.actors.bea!.post({ thread: 'general', text: 'from b' });
    await expect.poll(async () => (await channelOn(b!, 'bea')).length, { timeout: 10_000 }).toBe(2);
    const lines = await exportLines(b!.actors.bea!, 'general');
    const header = JSON.parse(lines[0]!) as { thread: { id: string; name: string; kind: string; signed_as?: string[] } };
    const aThread = (await a!.actors.ann!.threads()).find((t) => t.name === 'general')!.id;
    expect(header.thread.signed_as).toEqual([aThread]);
    expect(verifyLines(lines)).toBeUndefined();
    // Without the hub's word that the thread is signed as A's id there, A's message does not belong in it.
    const { signed_as: _dropped, ...bare } = header.thread;
    const body = lines.slice(1, -1);
    const resealed = sealedBy(b!.t.hub.internals.ctx.keys.hub(), { ...headerFieldsOf(lines), thread: bare }, body);
    expect(verifyLines(resealed)?.message).toMatch(/belongs to thread .* not the exported/);
  }, 30_000);
});

describe('requests across linked hubs', () => {
  it('fan-out - a request to a participant of another hub is open there; its response comes back and closes it on the asking hub', async () => {
    const [a, b, c] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal']]);
    const asked = await a!.actors.ann!.request({ to: 'bea', intent: 'review', params: { pr: 42 }, text: 'can you look at this?' });
    await expect
      .poll(async () => (await b!.actors.bea!.openRequests()).incoming.map((r) => [r.request_id, r.from, r.intent, r.params, r.text, r.status]), { timeout: 10_000 })
      .toEqual([[asked.request_id, 'ann', 'review', { pr: 42 }, 'can you look at this?', 'open']]);
    expect((await a!.actors.ann!.openRequests()).outgoing.map((r) => r.request_id)).toEqual([asked.request_id]);
    const answered = await b!.actors.bea!.respond({ request_id: asked.request_id, status: 'Completed', result: { approved: true } });
    await expect.poll(async () => (await a!.actors.ann!.openRequests()).outgoing, { timeout: 10_000 }).toEqual([]);
    const response = (await a!.actors.ann!.inbox()).items.find((item) => item.event.type === 'response');
    expect(response?.event).toMatchObject({ id: answered.id, author: 'bea', content: { request_id: asked.request_id, status: 'Completed', result: { approved: true } } });
    // A request in a DM goes to its addressee's hub only.
    expect(c!.t.hub.internals.store.requests.get(asked.request_id)).toBeUndefined();
  }, 60_000);
});

describe('steering across linked hubs', () => {
  it('fan-out - a pause set by an admin on one hub refuses an agent\'s post on another; lifted there, it posts again; a mute holds the same way', async () => {
    // Polled posts are writes: the rate limit is off, so that only steering refuses them.
    const [a, b] = await linkedTeam(hubs, [['human-ann', 'ann'], ['bea']], { hub: { config: { chat: { limits: { writesPerMinute: 0 } } } } });
    await a!.actors['human-ann']!.control('general', { pause: { on: true } });
    /** What bea's post in #general on B comes to: posted, or the code it was refused with. */
    const post = async (): Promise<string> => {
      try {
        await b!.actors.bea!.post({ thread: 'general', text: 'may I?' });
        return 'posted';
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    await expect.poll(post, { timeout: 10_000 }).toBe('THREAD_PAUSED');
    await a!.actors['human-ann']!.control('general', { pause: { on: false } });
    await expect.poll(post, { timeout: 10_000 }).toBe('posted');
    // bea is muted in #general by the admin on A: her own hub refuses her posts there.
    await a!.actors['human-ann']!.control('general', { mute: { targets: ['bea'] } });
    await expect.poll(post, { timeout: 10_000 }).toBe('PARTICIPANT_MUTED');
  }, 60_000);
});

describe('one handle on two hubs', () => {
  it('fan-out - a handle held on two hubs: the bare handle is refused naming both; handle@hubname reaches each', async () => {
    const [a, b] = await linkedTeam(hubs, [['ann', 'sam'], ['sam']]);
    // A keeps B's @sam apart from its own.
    await expect.poll(() => a!.t.hub.participant('sam@hub-b')?.hub, { timeout: 10_000 }).toBe('hub-b');
    const ann = a!.actors.ann!;
    const refused = await caught(() => ann.dm({ to: 'sam', text: 'which one?' }));
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', field: 'to' });
    expect(refused.message).toBe('Invalid to: @sam is held on more than one hub: @sam@hub-a (this hub), @sam@hub-b. Name one as handle@hubname.');
    const toB = await ann.dm({ to: 'sam@hub-b', text: 'the one on b' });
    const toA = await ann.dm({ to: '@sam@hub-a', text: 'the one here' });
    await expect.poll(async () => (await b!.actors.sam!.inbox()).items.map((item) => item.event.id), { timeout: 10_000 }).toEqual([toB.id]);
    expect((await a!.actors.sam!.inbox()).items.map((item) => item.event.id)).toEqual([toA.id]);
    // A hub name no linked hub has is no one.
    expect(await caught(() => ann.dm({ to: 'sam@nowhere', text: 'hello?' }))).toMatchObject({ code: 'NOT_FOUND', field: 'to' });
  }, 60_000);

  it('fan-out - two linked hubs that share a name: handle@thatname is refused as naming more than one, nothing is sent', async () => {
    const [a, b, c] = await linkedTeam(hubs, [['ann', 'sam'], ['sam'], ['sam']], { names: ['hub-a', 'box', 'box'] });
    await expect.poll(() => a!.t.hub.participantsWithAccess().filter((p) => p.hub === 'box').length, { timeout: 10_000 }).toBe(2);
    const refused = await caught(() => a!.actors.ann!.dm({ to: 'sam@box', text: 'which box?' }));
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', field: 'to' });
    expect(refused.message).toBe('Invalid to: @sam@box names more than one participant: 2 hubs here go by the name "box". Each hub needs a name of its own (peers.name); "parley doctor" names them.');
    // Nothing went out: a marker posted after reaches B and C, and no DM came before it.
    await a!.actors.ann!.post({ thread: 'general', text: 'marker' });
    for (const hub of [b!, c!]) {
      await expect.poll(async () => (await channelOn(hub, 'sam')).includes('ann: marker'), { timeout: 10_000 }).toBe(true);
      expect((await hub.actors.sam!.inbox()).items.filter((item) => item.reason === 'dm')).toEqual([]);
    }
  }, 60_000);
});

describe('who receives nothing', () => {
  it('fan-out - a hub a newer roster leaves out is cut off and receives nothing more; the others go on', async () => {
    const [a, b, c] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal']]);
    await a!.actors.ann!.post({ thread: 'general', text: 'before v2' });
    await expect.poll(async () => (await channelOn(c!, 'cal')).includes('ann: before v2'), { timeout: 10_000 }).toBe(true);
    // Version 2 keeps A and B and their participants; C and cal are out.
    const keep = [a!, b!].flatMap((h) => h.t.hub.participantsWithAccess().filter((p) => p.hub === undefined).map((p) => ({ pubkey: p.pubkey, role: 'operator' as const })));
    await a!.t.hub.acceptRoster(rosterOfHubs([a!.t, b!.t], 'team', 2, keep));
    await expect.poll(() => linkState(a!, c!), { timeout: 10_000 }).toBe('refused');
    await expect.poll(() => b!.t.hub.roster().current?.version, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => linkState(b!, c!), { timeout: 10_000 }).toBe('refused');
    await a!.actors.ann!.post({ thread: 'general', text: 'after v2' });
    await expect.poll(async () => (await channelOn(b!, 'bea')).includes('ann: after v2'), { timeout: 10_000 }).toBe(true);
    expect(await channelOn(c!, 'cal')).toEqual(['ann: before v2']);
    expect(a!.links.list().find((peer) => peer.key === c!.key)?.drops['removed-from-roster']).toBe(1);
  }, 60_000);
});
