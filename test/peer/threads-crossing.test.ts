import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { linkedTeam, type TeamHub } from '../helpers/peer-hubs.js';

/**
 * What a message carries besides its text, and the threads beside a
 * channel, across linked hubs: a mention of a participant of another hub
 * reaches them there; a side channel opened on one hub is one thread on
 * every hub (its events meet there whichever hub they come from), nested
 * ones too, and its closing summary closes it everywhere.
 */
const hubs = testHubsClosedAfterEach();

async function messagesIn(hub: TeamHub, reader: string, thread: string): Promise<string[]> {
  const { events } = await hub.actors[reader]!.history({ thread, limit: 100 }).catch(() => ({ events: [] }));
  return events.filter((e) => e.type === 'message').map((e) => `${e.author}: ${String(e.content)}`);
}

describe('mentions across linked hubs', () => {
  it('threads - a mention of a participant of another hub crosses and is in their inbox there as a mention', async () => {
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']]);
    const sent = await a!.actors.ann!.post({ thread: 'general', text: 'can you look, @bea?' });
    await expect.poll(() => messagesIn(b!, 'bea', 'general'), { timeout: 10_000 }).toEqual(['ann: can you look, @bea?']);
    const { items } = await b!.actors.bea!.peek({ limit: 10 });
    expect(items.filter((item) => item.event.id === sent.id).map((item) => [item.reason, item.event.meta?.mentions])).toEqual([['mention', [b!.t.hub.participant('bea')!.id]]]);
  }, 60_000);
});

describe('side channels across linked hubs', () => {
  it('threads - a side channel opened on A is one thread on A and B, nested ones too; both sides post in it; its summary closes it on both', async () => {
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']]);
    const ann = a!.actors.ann!;
    const bea = b!.actors.bea!;
    const side = await ann.openSide({ parent: 'general', title: 'retry policy', members: ['bea'] });
    await ann.post({ thread: side.id, text: 'three tries, then give up?' });
    // On B the side channel has A's id, hangs from B's #general, and bea, a member, is subscribed.
    await expect.poll(() => messagesIn(b!, 'bea', side.id), { timeout: 10_000 }).toEqual(['ann: three tries, then give up?']);
    const onB = (await bea.threads()).find((t) => t.id === side.id);
    const generalOnB = (await bea.threads()).find((t) => t.kind === 'channel' && t.name === 'general');
    expect(onB).toMatchObject({ kind: 'side', name: 'retry policy', parent: generalOnB!.id, subscription: 'subscribed' });

    await bea.post({ thread: side.id, text: 'five, with back-off' });
    const nested = await bea.openSide({ parent: side.id, title: 'back-off numbers' });
    await bea.post({ thread: nested.id, text: 'start at 1 s, double, cap at 60 s' });
    await expect.poll(() => messagesIn(a!, 'ann', side.id), { timeout: 10_000 }).toEqual(['ann: three tries, then give up?', 'bea: five, with back-off']);
    await expect.poll(() => messagesIn(a!, 'ann', nested.id), { timeout: 10_000 }).toEqual(['bea: start at 1 s, double, cap at 60 s']);
    expect((await ann.threads()).find((t) => t.id === nested.id)).toMatchObject({ kind: 'side', parent: side.id });

    const closed = await ann.closeSide({ thread: side.id, summary: 'five tries with back-off' });
    await expect.poll(async () => (await bea.threadDetail(side.id)).controls.closed, { timeout: 10_000 }).toBe(true);
    expect((await bea.threadDetail(side.id)).controls.summary).toBe('Side channel "retry policy" closed. Summary: five tries with back-off');
    // The summary in B's #general links the side channel, as on A.
    const summaryOnB = (await bea.history({ thread: 'general', limit: 50 })).events.find((e) => e.id === closed.summary_event);
    expect(summaryOnB?.meta?.link).toBe(side.id);
    await expect(bea.post({ thread: side.id, text: 'one more thing' })).rejects.toMatchObject({ code: 'THREAD_CLOSED' });
  }, 60_000);
});
