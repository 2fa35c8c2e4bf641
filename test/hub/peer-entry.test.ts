import { afterEach, describe, expect, it } from 'vitest';
import { signedEnvelope } from '../helpers/envelope.js';
import { caught, openTestHub, type TestHub } from '../helpers/hub.js';

/**
 * The hub-internal entry the peer links will use: envelopes another hub of
 * the roster holds come in through the same gate (the signer's standing, the
 * channel's policy) and the same message rules as a participant's own, taken
 * once by id whatever their age.
 */
let t: TestHub | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function hubWith(config: Record<string, unknown> = {}, now?: () => number) {
  t = await openTestHub({ config, ...(now ? { now } : {}) });
  const human = await t.hub.join({ handle: 'human', profile: { kind: 'human' } });
  const alice = await t.hub.join({ handle: 'alice' });
  const bob = await t.hub.join({ handle: 'bob' });
  return { t, human, alice, bob, peers: t.hub.internals.peers };
}

describe('peer entry - sync mode', () => {
  it('sync - history past its TTL is taken (sync has no TTL), where handing it in live is refused as expired', async () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    const { t, alice, peers } = await hubWith({}, () => now);
    const old = signedEnvelope(t, alice, { ts: now - 86_400_000, ttl_secs: 300, content: 'said yesterday' });
    expect(await caught(() => alice.ingest(old))).toMatchObject({ code: 'ENVELOPE_REJECTED', field: 'ts' });
    const taken = await peers.syncEnvelope(old);
    const history = await alice.history({ thread: 'general' });
    expect(history.events.find((e) => e.id === taken.id)).toMatchObject({ content: 'said yesterday', author: 'alice' });
    expect(t.hub.internals.store.events.byId(taken.id)?.sig?.toString('base64url')).toBe(old.sig);
  });

  it('sync - the same event from two peers is stored once: the second is answered with the first, counted as a duplicate', async () => {
    const { t, alice, peers } = await hubWith();
    const envelope = signedEnvelope(t, alice);
    const before = t.hub.stats().events;
    const first = await peers.syncEnvelope(envelope);
    const second = await peers.syncEnvelope(envelope);
    expect(second).toEqual({ id: first.id, seq: first.seq, thread: first.thread, duplicate: true });
    expect(t.hub.stats().events).toBe(before + 1);
    expect(t.hub.stats().envelopes).toMatchObject({ accepted: 1, dropped: { duplicate: 1 } });
  });

  it('sync - the signer\'s standing gates it: an observer, or an author a channel policy leaves out of its writers, is refused and nothing is stored', async () => {
    const { t, human, alice, bob, peers } = await hubWith({ trust: { access: { bob: 'observer' } } });
    const before = t.hub.stats().events;
    expect(await caught(() => peers.syncEnvelope(signedEnvelope(t, bob)))).toMatchObject({ code: 'FORBIDDEN_ROLE', message: expect.stringContaining('post needs member') });
    await human.control('general', { access: { writers: ['@human'] } });
    const afterPolicy = t.hub.stats().events;
    expect(afterPolicy).toBe(before + 1);
    expect(await caught(() => peers.syncEnvelope(signedEnvelope(t, alice)))).toMatchObject({ code: 'FORBIDDEN_ROLE', field: 'envelope.thread' });
    expect(t.hub.stats().events).toBe(afterPolicy);
    expect(t.hub.stats().envelopes.dropped).toMatchObject({ forbidden: 1 });
  });

  it('sync - a linked hub\'s history is not held to one participant\'s write rate; a live hand-in is', async () => {
    const { t, alice, peers } = await hubWith({ chat: { limits: { writeBurst: 1, writesPerMinute: 1 } } });
    for (let i = 0; i < 5; i++) await peers.syncEnvelope(signedEnvelope(t, alice, { content: `synced ${i}` }));
    await alice.ingest(signedEnvelope(t, alice));
    expect(await caught(() => alice.ingest(signedEnvelope(t, alice)))).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('sync - handed in as text, only messages are taken in; a control (which comes only through the peer intake, under its own entry) is refused naming its kind', async () => {
    const { t, alice, peers } = await hubWith();
    const before = t.hub.stats().events;
    expect(await caught(() => peers.syncEnvelope(signedEnvelope(t, alice, { kind: 'control', content: { pause: { on: true } } })))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'envelope.kind',
    });
    expect(t.hub.stats().events).toBe(before);
  });
});
