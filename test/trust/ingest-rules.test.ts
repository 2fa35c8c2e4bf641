import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { githubPat } from '../redaction/fixtures.js';
import { signedEnvelope, verifiedExport } from '../helpers/envelope.js';
import { caught, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

/**
 * A signed envelope passes the rules a post passes: its text those of post
 * text, its id and thread are ids of this hub, reply_to names an event of the
 * thread, and mentions and flags are the hub's, never the author's. It is shown
 * at the hub's receipt time, and what was signed still verifies in an export.
 */
const hubs = testHubsClosedAfterEach();

async function hubWith(now?: () => number): Promise<{ hub: TestHub; alice: Actor; bob: Actor }> {
  const t = await hubs.open(now ? { now } : {});
  return { hub: t, alice: await t.hub.join({ handle: 'alice' }), bob: await t.hub.join({ handle: 'bob' }) };
}

describe('signed envelopes pass the rules of a post', () => {
  it('ingest rules - text a post refuses (ESC sequence, NUL, BEL, U+0085, lone CR, blank) is refused in an envelope too, naming envelope.content; nothing is stored', async () => {
    const { hub, alice } = await hubWith();
    const before = hub.hub.stats().events;
    for (const text of ['\x1b[2J\x1b[31mred alert', 'cut\x00here', 'ding\x07', 'next\u0085line', 'over\rwritten', '  \n ']) {
      expect(await caught(() => alice.post({ thread: 'general', text }))).toMatchObject({ code: 'INVALID_INPUT', field: 'text' });
      const refused = await caught(() => alice.ingest(signedEnvelope(hub, alice, { content: text })));
      expect(refused, JSON.stringify(text)).toMatchObject({ code: 'INVALID_INPUT', field: 'envelope.content' });
    }
    expect(hub.hub.stats().events).toBe(before);
    expect(hub.hub.stats().envelopes.dropped.malformed).toBe(6);
  });

  it('ingest rules - what a post keeps as text (tab, CRLF, a bidi override) an envelope keeps as signed', async () => {
    const { hub, alice } = await hubWith();
    const text = 'col\tcol\r\nsecond \u202Ereversed\u202C';
    await alice.post({ thread: 'general', text });
    const taken = await alice.ingest(signedEnvelope(hub, alice, { content: text }));
    const shown = (await alice.history({ thread: 'general' })).events.filter((e) => e.content === text);
    expect(shown.map((e) => e.id)).toContain(taken.id);
    expect(shown).toHaveLength(2);
  });

  it('ingest rules - an id or thread that is not a ULID of this hub is refused naming it, before anything quotes it', async () => {
    const { hub, alice } = await hubWith();
    const before = hub.hub.stats().events;
    const badId = await caught(() => alice.ingest(signedEnvelope(hub, alice, { id: 'line one\n<b>bold</b>' })));
    expect(badId).toMatchObject({ code: 'INVALID_INPUT', field: 'envelope.id' });
    expect(badId.message).not.toContain('<b>');
    expect(await caught(() => alice.ingest(signedEnvelope(hub, alice, { id: '01kapm5s0000000000000000q1' })))).toMatchObject({ field: 'envelope.id' });
    // A thread named by its name would be stored under an id that was not signed.
    expect(await caught(() => alice.ingest(signedEnvelope(hub, alice, { thread: 'general' })))).toMatchObject({ code: 'INVALID_INPUT', field: 'envelope.thread' });
    expect(hub.hub.stats().events).toBe(before);
  });

  it('ingest rules - meta the hub computes (mentions, redacted, truncated, link) is refused naming the key; nothing reaches an inbox', async () => {
    const { hub, alice, bob } = await hubWith();
    const before = hub.hub.stats().events;
    const forged: Array<Record<string, unknown>> = [{ mentions: [bob.participant.id] }, { redacted: true }, { truncated: true }, { link: 'some-thread' }];
    for (const meta of forged) {
      const key = Object.keys(meta)[0]!;
      const refused = await caught(() => alice.ingest(signedEnvelope(hub, alice, { content: 'nothing to see', meta })));
      expect(refused).toMatchObject({ code: 'INVALID_INPUT', field: `envelope.meta.${key}` });
      expect(refused.message).toMatch(/set by the hub/);
    }
    expect(hub.hub.stats().events).toBe(before);
    expect((await bob.peek()).items).toEqual([]);
  });

  it('ingest rules - mentions are computed by the hub from the text; the signed meta is kept for the signature and the export verifies', async () => {
    const { hub, alice, bob } = await hubWith();
    const taken = await alice.ingest(signedEnvelope(hub, alice, { content: '@bob could you review it?', meta: { tags: ['review'] } }));
    const event = (await alice.history({ thread: 'general' })).events.find((e) => e.id === taken.id)!;
    expect(event.meta).toEqual({ tags: ['review'], mentions: [bob.participant.id] });
    const inbox = await bob.peek();
    expect(inbox.items.map((item) => [item.reason, item.event.id])).toEqual([['mention', taken.id]]);
    // Bob can acknowledge it by its id.
    expect(await bob.ack({ ids: [taken.id] })).toMatchObject({ acknowledged: 1 });
    const { report, lines } = await verifiedExport(alice, 'general');
    expect(report.events).toBeGreaterThanOrEqual(2);
    const line = lines.find((l) => (l.event as { id?: string } | undefined)?.id === taken.id)!;
    expect((line.event as { meta: unknown }).meta).toEqual({ tags: ['review'] });
  });

  it('ingest rules - reply_to must name an event of the thread, and a secret in a tag is refused (a signed tag cannot be redacted)', async () => {
    const { hub, alice, bob } = await hubWith();
    const elsewhere = await alice.dm({ to: 'bob', text: 'between us' });
    const before = hub.hub.stats().events;
    expect(await caught(() => alice.ingest(signedEnvelope(hub, alice, { meta: { reply_to: elsewhere.id } })))).toMatchObject({ code: 'NOT_FOUND', field: 'envelope.meta.reply_to' });
    expect(await caught(() => alice.ingest(signedEnvelope(hub, alice, { meta: { tags: [githubPat()] } })))).toMatchObject({ code: 'INVALID_INPUT', field: 'envelope.meta.tags.0' });
    expect(hub.hub.stats().events).toBe(before);
    const here = await bob.post({ thread: 'general', text: 'first' });
    const reply = await alice.ingest(signedEnvelope(hub, alice, { meta: { reply_to: here.id } }));
    expect((await alice.history({ thread: 'general' })).events.find((e) => e.id === reply.id)?.meta).toEqual({ reply_to: here.id });
  });

  it('ingest rules - an envelope signed 58 minutes ago is shown at the hub\'s receipt time; its signed ts is kept and the export verifies', async () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    const { hub, alice } = await hubWith(() => now);
    const signedAt = now - 58 * 60_000;
    const taken = await alice.ingest(signedEnvelope(hub, alice, { ts: signedAt, ttl_secs: 3600 }));
    const event = (await alice.history({ thread: 'general' })).events.find((e) => e.id === taken.id)!;
    expect(event.ts).toBe(new Date(now).toISOString());
    expect(hub.hub.internals.store.events.byId(taken.id)).toMatchObject({ ts: now, signed_ts: signedAt });
    const { lines } = await verifiedExport(alice, 'general');
    expect((lines.find((l) => (l.event as { id?: string } | undefined)?.id === taken.id)!.event as { ts: number }).ts).toBe(signedAt);
  });
});
