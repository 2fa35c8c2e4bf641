import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import crypto from 'node:crypto';
import { decodeEventTuple } from '../../src/trust/envelope.js';
import { rawPublicKeyOf } from '../../src/trust/node-id.js';
import { readKeyFile } from '../../src/trust/key-files.js';
import { githubPat } from '../redaction/fixtures.js';
import { handedIn, messageFields, signedEnvelope, verifiedExport } from '../helpers/envelope.js';
import { caught, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';
import { cliAt, joinOver, restCall } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';

const hubs = testHubsClosedAfterEach();
const served = servedHubsPerTest();

/** A message envelope signed by `signer`'s own key (as a client holding its key makes one). */
const envelope = signedEnvelope;

async function hubWith(config: Record<string, unknown> = {}, now?: () => number): Promise<{ hub: TestHub; alice: Actor; bob: Actor }> {
  const t = await hubs.open({ config, ...(now ? { now } : {}) });
  const alice = await t.hub.join({ handle: 'alice' });
  const bob = await t.hub.join({ handle: 'bob' });
  return { hub: t, alice, bob };
}

describe('signed envelopes handed in by their author', () => {
  it('ingest - a message its author signed is stored as signed (its id, signed time and signature kept) and verifies in a signed export', async () => {
    const { hub, alice } = await hubWith();
    const handed = envelope(hub, alice, { content: 'hello, in my own words' });
    const stored = await alice.ingest(handed);
    const history = await alice.history({ thread: 'general' });
    const event = history.events.find((e) => e.id === stored.id)!;
    expect(event).toMatchObject({ content: 'hello, in my own words', author: 'alice', type: 'message' });
    expect(hub.hub.internals.store.events.byId(stored.id)?.sig?.toString('base64url')).toBe(handed.sig);
    expect((await verifiedExport(alice, 'general')).report.events).toBeGreaterThanOrEqual(2);
    expect(hub.hub.stats().envelopes).toMatchObject({ accepted: 1 });
  });

  it('ingest - expired, from the future and replayed envelopes are dropped, counted, and never stored; the clock skew is honoured', async () => {
    let now = Date.parse('2026-11-24T12:00:00Z');
    const { hub, alice } = await hubWith({ trust: { clockSkewSecs: 30 } }, () => now);
    const before = hub.hub.stats().events;
    const old = await caught(() => alice.ingest(envelope(hub, alice, { ts: now - 331_000, ttl_secs: 300 })));
    expect(old).toMatchObject({ code: 'ENVELOPE_REJECTED', field: 'ts' });
    expect(old.message).toMatch(/expired/);
    // Within ttl + skew: taken.
    await alice.ingest(envelope(hub, alice, { ts: now - 329_000, ttl_secs: 300 }));
    const ahead = await caught(() => alice.ingest(envelope(hub, alice, { ts: now + 31_000 })));
    expect(ahead).toMatchObject({ code: 'ENVELOPE_REJECTED' });
    expect(ahead.message).toMatch(/future/);
    const once = envelope(hub, alice);
    await alice.ingest(once);
    const again = await caught(() => alice.ingest(once));
    expect(again).toMatchObject({ code: 'ENVELOPE_REJECTED', field: 'id' });
    expect(again.message).toMatch(/already received/);
    // Still refused after its id would have been forgotten: the store has it, and its TTL is over anyway.
    now += 400_000;
    expect((await caught(() => alice.ingest(once))).message).toMatch(/expired/);
    expect(hub.hub.stats().events).toBe(before + 2);
    expect(hub.hub.stats().envelopes).toEqual({ accepted: 2, dropped: expect.objectContaining({ expired: 2, future: 1, duplicate: 1 }) as unknown });
  });

  it('ingest - at the replay cap new envelopes are refused rather than old ids forgotten', async () => {
    const { hub, alice } = await hubWith({ trust: { replayMaxIds: 16 } });
    for (let i = 0; i < 16; i++) await alice.ingest(envelope(hub, alice));
    expect(await caught(() => alice.ingest(envelope(hub, alice)))).toMatchObject({ code: 'RATE_LIMITED' });
    expect(hub.hub.stats().envelopes.dropped.full).toBe(1);
  });

  it('ingest - a changed byte, another author\'s envelope, an unknown key, a forbidden role and a secret are each refused with nothing stored', async () => {
    const { hub, alice, bob } = await hubWith({ trust: { access: { bob: 'observer' } } });
    const before = hub.hub.stats().events;
    const good = envelope(hub, alice);
    // One character of the text changed after signing.
    const text = Buffer.from(good.envelope, 'base64url').toString('latin1');
    const changed = Buffer.from(text.replace('signed by my own key', 'signed by my own kez'), 'latin1');
    expect(changed.equals(Buffer.from(good.envelope, 'base64url'))).toBe(false);
    expect(await caught(() => alice.ingest({ envelope: changed.toString('base64url'), sig: good.sig }))).toMatchObject({ code: 'BAD_SIGNATURE', field: 'sig' });
    // Signed by alice, handed in by carol.
    const carol = await hub.hub.join({ handle: 'carol' });
    expect(await caught(() => carol.ingest(good))).toMatchObject({ code: 'FORBIDDEN', field: 'envelope.from' });
    // Signed by a key no participant here has.
    const stranger = crypto.generateKeyPairSync('ed25519').privateKey;
    const strangerFields = decodeEventTuple(Buffer.from(envelope(hub, alice).envelope, 'base64url'));
    strangerFields.from = rawPublicKeyOf(stranger);
    const fromStranger = handedIn(strangerFields, stranger);
    expect(await caught(() => alice.ingest(fromStranger))).toMatchObject({ code: 'NOT_IN_ROSTER', field: 'envelope.from' });
    // Bob signs his own, but bob is an observer.
    expect(await caught(() => bob.ingest(envelope(hub, bob)))).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    const secret = await caught(() => alice.ingest(envelope(hub, alice, { content: `my token is ${githubPat()} ok` })));
    expect(secret).toMatchObject({ code: 'INVALID_INPUT', field: 'envelope.content' });
    expect(await caught(() => alice.ingest(envelope(hub, alice, { kind: 'control', content: { pause: { on: true } } })))).toMatchObject({ field: 'envelope.kind' });
    expect(await caught(() => alice.ingest({ envelope: good.envelope, sig: 'short' }))).toMatchObject({ code: 'INVALID_INPUT', field: 'sig' });
    expect(hub.hub.stats().events).toBe(before);
    expect(hub.hub.stats().envelopes.dropped).toMatchObject({ badSignature: 1, forbidden: 1, notInRoster: 1 });
    // The refused good envelope was not used up: its author can still hand it in.
    await alice.ingest(good);
  });

  it('ingest - an envelope into a DM of others is refused like a post (no way into a thread one cannot see), and the DM stays closed', async () => {
    const { hub, alice, bob } = await hubWith();
    const carol = await hub.hub.join({ handle: 'carol' });
    const secret = await alice.dm({ to: 'bob', text: 'the launch code is 1234' });
    const { ctx } = hub.hub.internals;
    const intoDm = envelope(hub, carol, { thread: secret.thread });
    expect(await caught(() => carol.ingest(intoDm))).toMatchObject({ code: 'NOT_FOUND', field: 'envelope.thread' });
    expect(await caught(() => carol.history({ thread: secret.thread }))).toMatchObject({ code: 'NOT_FOUND' });
    expect([...ctx.state.threads.get(secret.thread)!.members.keys()].sort()).toEqual([alice.participant.id, bob.participant.id].sort());
    // Addressed to someone outside the DM: refused too.
    expect(await caught(() => alice.ingest(envelope(hub, alice, { thread: secret.thread, to: ctx.keys.participant(carol.participant.id).raw })))).toMatchObject({ field: 'envelope.to' });
  });

  it('ingest - what would not verify once stored, or would hold the replay guard too long, is refused: tidied meta, a reused sender_seq, a long TTL; writes are rate limited', async () => {
    const { hub, alice } = await hubWith({ trust: { maxTtlSecs: 600 }, chat: { limits: { writeBurst: 6, writesPerMinute: 1 } } });
    expect(await caught(() => alice.ingest(envelope(hub, alice, { meta: { tags: [' urgent '] } })))).toMatchObject({ code: 'INVALID_INPUT', field: 'envelope.meta' });
    expect(await caught(() => alice.ingest(envelope(hub, alice, { ttl_secs: 601 })))).toMatchObject({ code: 'INVALID_INPUT', field: 'envelope.ttl_secs' });
    await alice.ingest(envelope(hub, alice, { sender_seq: 10, meta: { tags: ['urgent'] } }));
    expect(await caught(() => alice.ingest(envelope(hub, alice, { sender_seq: 10 })))).toMatchObject({ code: 'ENVELOPE_REJECTED', field: 'envelope.sender_seq' });
    expect(await caught(() => alice.ingest(envelope(hub, alice, { sender_seq: 9 })))).toMatchObject({ field: 'envelope.sender_seq' });
    // Another epoch counts on its own.
    await alice.ingest(envelope(hub, alice, { sender_seq: 1, sender_epoch: Buffer.alloc(16, 6) }));
    // The export of what was taken in verifies.
    expect((await verifiedExport(alice, 'general')).report.events).toBeGreaterThan(2);
    // Past the burst: refused like posts.
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) {
      answers.push(
        await alice.ingest(envelope(hub, alice, { sender_seq: 100 + i })).then(
          () => 'taken',
          (error: { code?: string }) => error.code ?? 'error',
        ),
      );
    }
    expect(answers).toContain('taken');
    expect(answers.at(-1)).toBe('RATE_LIMITED');
  });

  it('ingest - a channel access policy that leaves the author out of its writers refuses its envelope like its post', async () => {
    const { hub, alice, bob } = await hubWith();
    const human = await hub.hub.join({ handle: 'human', profile: { kind: 'human' } });
    await human.control('general', { access: { writers: ['@bob'] } });
    const before = hub.hub.stats().events;
    expect(await caught(() => alice.ingest(envelope(hub, alice)))).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    await bob.ingest(envelope(hub, bob));
    expect(hub.hub.stats().events).toBe(before + 1);
  });

  it('ingest - malformed, truncated or oversized envelopes give a clear error and never crash or store anything', async () => {
    const { hub, alice } = await hubWith({ trust: { maxEnvelopeBytes: 2048 } });
    const good = Buffer.from(envelope(hub, alice).envelope, 'base64url');
    const sig = envelope(hub, alice).sig;
    const before = hub.hub.stats().events;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 300 }),
          fc.integer({ min: 1, max: good.length - 1 }).map((n) => good.subarray(0, n)),
          fc.integer({ min: 2049, max: 4000 }).map((n) => Buffer.alloc(n, 0x61)),
        ),
        async (bytes) => {
          const error = await caught(() => alice.ingest({ envelope: Buffer.from(bytes).toString('base64url'), sig }));
          expect(['INVALID_INPUT', 'PAYLOAD_TOO_LARGE', 'BAD_SIGNATURE']).toContain(error.code);
        },
      ),
      { numRuns: 150 },
    );
    expect(hub.hub.stats().events).toBe(before);
  });

  it('ingest - over REST, a client holding its own key hands in its signed message; parley status counts what was dropped', async () => {
    const { hub, home } = await served.serve(served.home('parley-ingest-'));
    const token = await joinOver(hub, { handle: 'alice' });
    const me = await restCall(hub, token, 'GET', '/whoami');
    const id = me.json.participant.id as string;
    const key = readKeyFile(path.join(home, 'keys', 'participants', `${id}.key`));
    const threads = await restCall(hub, token, 'GET', '/threads');
    const general = (threads.json.threads as Array<{ id: string; name: string }>).find((th) => th.name === 'general')!;
    const raw = Buffer.from(me.json.participant.publicKey as string, 'base64');
    const body = handedIn(messageFields({ id: '01KAPM5S0000000000000000Q1', from: raw, thread: general.id, content: 'over REST', sender_epoch: Buffer.alloc(16, 3) }), key);
    const taken = await restCall(hub, token, 'POST', '/envelopes', body);
    expect(taken.status, JSON.stringify(taken.json)).toBe(201);
    expect(taken.json).toMatchObject({ id: '01KAPM5S0000000000000000Q1', thread: general.id });
    const replay = await restCall(hub, token, 'POST', '/envelopes', body);
    expect(replay.status).toBe(422);
    expect(replay.json.error).toMatchObject({ code: 'ENVELOPE_REJECTED' });
    const bad = await restCall(hub, token, 'POST', '/envelopes', { envelope: body.envelope });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'sig' });
    const status = cliAt(home, hub.url)('status');
    expect(status.stdout).toMatch(/envelopes: {2}1 signed elsewhere taken in; dropped: 1 duplicate/);
    expect(fs.existsSync(path.join(home, 'keys', 'hub.key'))).toBe(true);
  });
});
