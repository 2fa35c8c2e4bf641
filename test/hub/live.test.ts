import { describe, expect, it } from 'vitest';
import type { LiveItem } from '../../src/hub/live-bus.js';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';
import { takeItems } from '../helpers/live-items.js';

const hubs = testHubsClosedAfterEach();

const seqs = (items: LiveItem[]) => items.map((i) => (i.kind === 'event' ? i.event.seq : -1));

describe('live subscription', () => {
  it('live - delivers committed events of the session in seq order', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live({ ephemeral: false });
    const posted = await Promise.all([1, 2, 3].map((i) => a.post({ thread: 'general', text: `m${i}` })));
    const items = await takeItems(live, 3);
    live.close();
    expect(seqs(items)).toEqual(posted.map((p) => p.seq));
  });

  it('live - resume with since replays the gap, then continues live, with no duplicate', async () => {
    // 1200 posts at once on purpose: the write limit is off.
    const t = await hubs.open({ config: { chat: { limits: { writesPerMinute: 0 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const first = await a.post({ thread: 'general', text: 'seen' });
    const missed = [];
    for (let i = 0; i < 1200; i++) missed.push(a.post({ thread: 'general', text: `missed ${i}` }));
    const missedSeqs = (await Promise.all(missed)).map((p) => p.seq);
    const live = b.live({ since: first.seq, ephemeral: false });
    const replayed = await takeItems(live, 600);
    const later = await a.post({ thread: 'general', text: 'live again' });
    const rest = await takeItems(live, 601);
    live.close();
    expect(seqs([...replayed, ...rest])).toEqual([...missedSeqs, later.seq]);
  });

  it('live - a thread filter and an inbox filter', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    await a.createChannel({ name: 'side-talk' });
    const onlyGeneral = b.live({ thread: 'general', ephemeral: false });
    const inbox = b.live({ inbox: true, ephemeral: false });
    await a.post({ thread: 'side-talk', text: 'not subscribed' });
    const g = await a.post({ thread: 'general', text: 'general' });
    const own = await b.post({ thread: 'general', text: 'own' });
    const d = await a.dm({ to: 'bob', text: 'dm' });
    const generalItems = await takeItems(onlyGeneral, 2);
    const inboxItems = await takeItems(inbox, 2);
    onlyGeneral.close();
    inbox.close();
    expect(seqs(generalItems)).toEqual([g.seq, own.seq]);
    expect(seqs(inboxItems)).toEqual([g.seq, d.seq]);
  });

  it('live - other participants’ DMs and other sessions never appear', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    await t.hub.join({ handle: 'bob', session: 's' });
    const c = await t.hub.join({ handle: 'carol', session: 's' });
    const elsewhere = await t.hub.join({ handle: 'dave', session: 'other' });
    const live = c.live({ ephemeral: false });
    await a.dm({ to: 'bob', text: 'private' });
    await elsewhere.post({ thread: 'general', text: 'other session' });
    const marker = await a.post({ thread: 'general', text: 'public' });
    const [item] = await takeItems(live, 1);
    live.close();
    expect(item?.kind === 'event' && item.event.id).toBe(marker.id);
  });

  it('live - a consumer too far behind is cut off with SLOW_CONSUMER and can resume', async () => {
    const t = await hubs.open({ config: { inbox: { liveQueueLimit: 16 } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const start = (await a.post({ thread: 'general', text: 'start' })).seq;
    const live = b.live({ ephemeral: false });
    const posted = await Promise.all(Array.from({ length: 40 }, (_, i) => a.post({ thread: 'general', text: `x${i}` })));
    const error = await caught(() => live.next());
    expect(error.code).toBe('SLOW_CONSUMER');
    const resumed = b.live({ since: start, ephemeral: false });
    const items = await takeItems(resumed, 40);
    resumed.close();
    expect(seqs(items)).toEqual(posted.map((p) => p.seq));
  });

  it('live - meeting traffic travels on the stream', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live();
    await a.meetingSay('standup', 'hi all');
    const items = await takeItems(live, 3);
    live.close();
    const said = items.find((i) => i.kind === 'meeting' && i.action === 'said');
    expect(said).toMatchObject({ kind: 'meeting', meeting: 'standup', participant: 'alice', message: { number: 1, content: 'hi all' } });
  });

  it('live - closing the hub ends streams after the last committed event, and ends waits with HUB_CLOSED', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const live = b.live({ ephemeral: false });
    const waiting = b.wait({ timeout_ms: 60_000 }).catch((error: unknown) => error);
    const last = a.post({ thread: 'general', text: 'last words' });
    await t.close();
    await last;
    const items: LiveItem[] = [];
    for await (const item of live) items.push(item);
    expect(items.map((i) => (i.kind === 'event' ? i.event.content : i.kind))).toEqual(['last words']);
    // The wait saw the post (a waking item) before the shutdown, or was ended by it.
    const outcome = await waiting;
    expect((outcome as { code?: string }).code === 'HUB_CLOSED' || (outcome as { items?: unknown[] }).items?.length === 1).toBe(true);
  });

  it('live - a wait pending at shutdown ends with HUB_CLOSED', async () => {
    const t = await hubs.open();
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const waiting = b.wait({ timeout_ms: 60_000 }).catch((error: unknown) => error);
    await t.close();
    expect(await waiting).toMatchObject({ code: 'HUB_CLOSED' });
  });

  it('live - for await ends cleanly when the consumer breaks', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const before = t.hub.stats().liveListeners;
    await a.post({ thread: 'general', text: 'one' });
    let got: string | undefined;
    const live = b.live({ ephemeral: false });
    void a.post({ thread: 'general', text: 'two' });
    for await (const item of live) {
      if (item.kind === 'event') got = item.event.content as string;
      break;
    }
    expect(got).toBe('two');
    expect(t.hub.stats().liveListeners).toBe(before);
  });
});
