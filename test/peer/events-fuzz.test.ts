import '../../src/peer/promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Ed25519PrivateKey, Stream } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import fc from 'fast-check';
import { createLibp2p, type Libp2p } from 'libp2p';
import { describe, expect, it } from 'vitest';
import type { PeerEvent } from '../../src/hub/index.js';
import { BadFrame, decodeAck, encodeEvents, EVENTS_PROTOCOL, MAX_EVENTS_FRAME_BYTES } from '../../src/peer/event-frames.js';
import { decodeAnswer, decodeDigest, decodeQuestion, decodeTaken, encodeQuestion, HISTORY_PROTOCOL } from '../../src/peer/history-frames.js';
import { HELLO_PROTOCOL, MAX_HELLO_BYTES } from '../../src/peer/hello.js';
import { ROSTER_PROTOCOL } from '../../src/peer/roster-exchange.js';
import { signRoster } from '../../src/trust/roster.js';
import { eventSigningBytes, signEvent, type SignedEventFields } from '../../src/trust/envelope.js';
import { signPolicy } from '../../src/trust/channel-policy.js';
import { formatPublicKey, parsePublicKey, privateKeyFromSeed } from '../../src/trust/node-id.js';
import { messageFields } from '../helpers/envelope.js';
import { testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';
import { rosterOfHubs, startLinks, type PeerHub } from '../helpers/peer-hubs.js';
import { githubPat } from '../redaction/fixtures.js';
import { arbitraryFrame, fuzzerHello } from './fuzz-frames.js';

/**
 * The fan-out protocol driven by a hand-made peer: a hub of the roster whose
 * node is a bare libp2p node, so that it can send what no Parley hub would —
 * events of participants it does not host, bad signatures, arbitrary and
 * out-of-order frames. Each is refused and counted; the link stays usable.
 */
const hubs = testHubsClosedAfterEach();

interface Fuzzer {
  t: TestHub;
  a: PeerHub;
  node: Libp2p;
  key: string;
  fuzzerKey: Ed25519PrivateKey;
  /** A participant the fuzzer hosts (named in its hello), and one it holds a key of but does not host. */
  mallory: { key: Ed25519PrivateKey; raw: Uint8Array };
  eve: { key: Ed25519PrivateKey; raw: Uint8Array };
}

async function fuzzerLinked(malloryRole: 'operator' | 'admin' = 'operator'): Promise<Fuzzer> {
  const t = await hubs.open();
  await t.hub.join({ handle: 'ann' });
  const hubKey = await generateKeyPair('Ed25519');
  const [malloryKey, eveKey] = [await generateKeyPair('Ed25519'), await generateKeyPair('Ed25519')];
  const extra = [
    { pubkey: formatPublicKey(hubKey.publicKey.raw), role: 'member' as const, kind: 'hub' as const },
    ...[malloryKey, eveKey, null].map((k) => ({ pubkey: k ? formatPublicKey(k.publicKey.raw) : t.hub.participantsWithAccess()[0]!.pubkey, role: k === malloryKey ? malloryRole : ('operator' as const) })),
  ];
  await t.hub.acceptRoster(rosterOfHubs([t], 'team', 1, extra));
  const a = await startLinks(hubs, t);
  const node = await createLibp2p({ privateKey: hubKey, transports: [tcp()], connectionEncrypters: [noise()], streamMuxers: [yamux()] });
  hubs.defer(() => node.stop());
  const hello = fuzzerHello(t.hub, hubKey, a.key, [{ key: malloryKey.publicKey.raw, handle: 'mallory', kind: 'agent' }]);
  const stream = await node.dialProtocol(multiaddr(a.addr), HELLO_PROTOCOL, { signal: AbortSignal.timeout(10_000) });
  const framed = lpStream(stream, { maxDataLength: MAX_HELLO_BYTES });
  await framed.write(hello);
  await framed.read();
  const key = formatPublicKey(hubKey.publicKey.raw);
  await expect.poll(() => a.links.list().find((peer) => peer.key === key)?.state, { timeout: 10_000 }).toBe('connected');
  await expect.poll(() => t.hub.participant('mallory')?.hub, { timeout: 10_000 }).toBe('fuzzer');
  return { t, a, node, key, fuzzerKey: hubKey, mallory: { key: malloryKey, raw: malloryKey.publicKey.raw }, eve: { key: eveKey, raw: eveKey.publicKey.raw } };
}

let n = 0;
/** A message in #general of the default session, signed by `signer` (with `from` its key unless given; `more` for another kind). */
function event(f: Fuzzer, signer: { key: Ed25519PrivateKey; raw: Uint8Array }, text: string, from: Uint8Array = signer.raw, more: Partial<SignedEventFields> = {}): PeerEvent {
  n += 1;
  const fields: SignedEventFields = messageFields({ id: f.t.hub.internals.ctx.newId(), from, thread: '01JAAAAAAAAAAAAAAAAAAAAAAA', content: text, sender_seq: n, sender_epoch: Buffer.alloc(16, 9), ...more });
  return { bytes: eventSigningBytes(fields), sig: signEvent(privateKeyFromSeed(signer.key.raw.subarray(0, 32)), fields), session: 'default', channel: 'general', dmWith: null };
}

async function openEvents(f: Fuzzer): Promise<{ stream: Stream; framed: ReturnType<typeof lpStream> }> {
  const stream = await f.node.dialProtocol(multiaddr(f.a.addr), EVENTS_PROTOCOL, { signal: AbortSignal.timeout(10_000) });
  return { stream, framed: lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES }) };
}

/** Writes one frame and reads the ack; 'reset' when the stream ends without one. */
async function send(framed: ReturnType<typeof lpStream>, frame: Uint8Array): Promise<number | 'reset'> {
  try {
    await framed.write(frame, { signal: AbortSignal.timeout(10_000) });
    return decodeAck((await framed.read({ signal: AbortSignal.timeout(10_000) })).subarray());
  } catch {
    return 'reset';
  }
}

function generalTexts(f: Fuzzer): string[] {
  const { ctx } = f.t.hub.internals;
  const general = [...ctx.state.threads.values()].find((th) => th.name === 'general')!;
  return ctx.store.events.readAfter(general.id, 0, 1000).filter((row) => row.type === 'message').map((row) => `${row.author}: ${row.content}`);
}

describe('fan-out protocol from a hand-made peer', () => {
  it('events fuzz - a hub hands in only its own participants\' events: forged authors and bad signatures are refused and counted, the rest stored and acknowledged', async () => {
    const f = await fuzzerLinked();
    const dropsOf = () => f.a.links.list().find((peer) => peer.key === f.key)?.drops ?? {};
    const annRaw = parsePublicKey(f.t.hub.participantsWithAccess().find((p) => p.handle === 'ann')!.pubkey);
    const { framed } = await openEvents(f);
    const page = [
      event(f, f.mallory, 'a good one'),
      // eve is in the roster, but the fuzzer's hello does not say it hosts her.
      event(f, f.eve, 'eve is not hosted there'),
      // ann is hosted here: no linked hub may speak for her (even with a signature that checks against the key it claims, it would be refused first).
      event(f, f.eve, 'i am ann', annRaw),
      { ...event(f, f.mallory, 'tampered'), sig: new Uint8Array(64).fill(7) },
      event(f, f.mallory, 'a second good one'),
    ];
    expect(await send(framed, encodeEvents({ through: 10, live: true, events: page }))).toBe(10);
    expect(generalTexts(f)).toEqual(['mallory: a good one', 'mallory: a second good one']);
    expect(dropsOf()).toMatchObject({ 'not-hosted': 2, 'bad-signature': 1 });
    // The same page again (a resend after a lost ack): each event is held once.
    expect(await send(framed, encodeEvents({ through: 11, live: true, events: [page[0]!, page[4]!] }))).toBe(11);
    expect(generalTexts(f)).toEqual(['mallory: a good one', 'mallory: a second good one']);
  }, 60_000);

  it('events fuzz - sent live, an event past its TTL or dated ahead is refused and counted; sent as history, an old one is taken once', async () => {
    const f = await fuzzerLinked();
    const dropsOf = () => f.a.links.list().find((peer) => peer.key === f.key)?.drops ?? {};
    const old = event(f, f.mallory, 'written twenty minutes ago', f.mallory.raw, { ts: Date.now() - 20 * 60_000 });
    const ahead = event(f, f.mallory, 'dated twenty minutes ahead', f.mallory.raw, { ts: Date.now() + 20 * 60_000 });
    const { framed } = await openEvents(f);
    expect(await send(framed, encodeEvents({ through: 3, live: true, events: [old, ahead, event(f, f.mallory, 'just written')] }))).toBe(3);
    expect(generalTexts(f)).toEqual(['mallory: just written']);
    expect(dropsOf()).toEqual({ expired: 1, future: 1 });
    // The same old event in a page of history (what a hub that was away catches up on): taken, whatever its age.
    expect(await send(framed, encodeEvents({ through: 4, live: false, events: [old] }))).toBe(4);
    expect(await send(framed, encodeEvents({ through: 5, live: false, events: [old] }))).toBe(5);
    expect(generalTexts(f)).toEqual(['mallory: just written', 'mallory: written twenty minutes ago']);
    expect(dropsOf()).toEqual({ expired: 1, future: 1 });
  }, 60_000);

  it('events fuzz - content of the wrong shape for its kind is refused as malformed, the page acknowledged; a good page is acknowledged before a bad frame resets the stream', async () => {
    const f = await fuzzerLinked();
    const dropsOf = () => f.a.links.list().find((peer) => peer.key === f.key)?.drops ?? {};
    const { framed } = await openEvents(f);
    const page = [
      event(f, f.mallory, '', f.mallory.raw, { kind: 'control', content: null }),
      event(f, f.mallory, 'tags that are a number', f.mallory.raw, { meta: { tags: 5 } }),
      event(f, f.mallory, 'a good one'),
    ];
    expect(await send(framed, encodeEvents({ through: 3, live: true, events: page }))).toBe(3);
    expect(generalTexts(f)).toEqual(['mallory: a good one']);
    expect(dropsOf()).toEqual({ 'malformed-event': 2 });
    // A good page and, before its ack, a frame that is not one: the good page is stored and acknowledged, then the stream reset.
    await framed.write(encodeEvents({ through: 4, live: true, events: [event(f, f.mallory, 'before the bad frame')] }));
    await framed.write(new Uint8Array([0xff, 0x00]));
    expect(decodeAck((await framed.read({ signal: AbortSignal.timeout(10_000) })).subarray())).toBe(4);
    await expect(framed.read({ signal: AbortSignal.timeout(10_000) })).rejects.toThrow();
    expect(generalTexts(f)).toEqual(['mallory: a good one', 'mallory: before the bad frame']);
    await expect.poll(() => dropsOf()['malformed-frame'], { timeout: 10_000 }).toBe(1);
  }, 60_000);

  it('events fuzz - a request from a linked hub passes the rules of one sent here: over the hop limit it is refused; within it, it is open for its addressee', async () => {
    const f = await fuzzerLinked();
    const annRaw = parsePublicKey(f.t.hub.participantsWithAccess().find((p) => p.handle === 'ann')!.pubkey);
    const request = (id: string, hop: number) => event(f, f.mallory, '', f.mallory.raw, { kind: 'request', to: annRaw, content: { request_id: id, intent: 'review', params: { pr: 7 }, hop } });
    const { framed } = await openEvents(f);
    expect(await send(framed, encodeEvents({ through: 3, live: true, events: [request('too-deep-request', 4), request('a-fine-request', 0)] }))).toBe(3);
    expect(f.a.links.list().find((peer) => peer.key === f.key)?.drops).toMatchObject({ 'refused-by-rules': 1 });
    const ann = f.t.hub.actor('ann');
    expect((await ann.openRequests()).incoming.map((r) => [r.request_id, r.from, r.params])).toEqual([['a-fine-request', 'mallory', { pr: 7 }]]);
  }, 60_000);

  it('events fuzz - an access policy from a linked hub is taken only signed by the control\'s author, with a signature that holds', async () => {
    const f = await fuzzerLinked('admin');
    const malloryText = formatPublicKey(f.mallory.raw);
    const policy = { thread: 'their-id-of-general', version: 1, readers: [{ key: malloryText }], writers: [{ access: 'member' as const }], admins: [{ access: 'admin' as const }], retention_hours: 72, retention_messages: 10_000, allow_history_fetch: true };
    const signedBy = (signer: { key: Ed25519PrivateKey; raw: Uint8Array }, of = policy) => ({
      policy: of,
      signer: formatPublicKey(signer.raw),
      sig: signPolicy(of, privateKeyFromSeed(signer.key.raw.subarray(0, 32))).toString('base64url'),
    });
    const access = (content: unknown) => event(f, f.mallory, '', f.mallory.raw, { kind: 'control', content: { access: content } });
    const tampered = { ...signedBy(f.mallory), policy: { ...policy, readers: [{ access: 'observer' as const }] } };
    const { framed } = await openEvents(f);
    const page = [access(signedBy(f.eve)), access(tampered), access(signedBy(f.mallory))];
    expect(await send(framed, encodeEvents({ through: 3, live: true, events: page }))).toBe(3);
    expect(f.a.links.list().find((peer) => peer.key === f.key)?.drops).toMatchObject({ 'bad-signature': 2 });
    const general = [...f.t.hub.internals.ctx.state.threads.values()].find((th) => th.name === 'general')!;
    expect(general.state.access).toEqual(signedBy(f.mallory));
    expect(f.t.hub.internals.ctx.store.events.readAfter(general.id, 0, 100).filter((row) => row.type === 'control').map((row) => JSON.parse(row.content) as unknown)).toEqual([{ access: signedBy(f.mallory) }]);

    // An invitation's profile is free text: one holding a secret is refused (a signed control cannot be redacted).
    const ann = f.t.hub.participant('ann')!;
    const invite = (nickname: string) => event(f, f.mallory, '', f.mallory.raw, { kind: 'control', content: { invite: { participant_id: ann.id, handle: 'ann', profile: { nickname } } } });
    expect(await send(framed, encodeEvents({ through: 5, live: true, events: [invite(githubPat()), invite('reviewer')] }))).toBe(5);
    expect(f.a.links.list().find((peer) => peer.key === f.key)?.drops).toMatchObject({ 'bad-signature': 2, 'malformed-event': 1 });
    expect(general.members.get(ann.id)).toMatchObject({ invited: true, inviteProfile: { nickname: 'reviewer' } });
  }, 60_000);

  it('events fuzz - events of a participant who joined the peer under a newer roster, sent before its hello: taken once the hello and roster are read, none lost', async () => {
    const f = await fuzzerLinked();
    const newbieKey = await generateKeyPair('Ed25519');
    const newbie = { key: newbieKey, raw: newbieKey.publicKey.raw };
    // The peer's roster v2 lists newbie; this hub holds v1. Asked again, its hello names newbie and v2, and it hands v2 over.
    const { ctx } = f.t.hub.internals;
    const v1 = f.t.hub.roster().current!;
    const v2 = signRoster({ ...v1, version: 2, timestamp: '2026-11-27T12:00:02Z', members: [...v1.members, { pubkey: formatPublicKey(newbie.raw), role: 'operator' }], signatures: [] }, ctx.keys.hub().privateKey);
    const hosted = [
      { key: f.mallory.raw, handle: 'mallory', kind: 'agent' as const },
      { key: newbie.raw, handle: 'newbie', kind: 'agent' as const },
    ];
    await f.node.handle(HELLO_PROTOCOL, async (stream) => {
      const framed = lpStream(stream, { maxDataLength: MAX_HELLO_BYTES });
      await framed.read();
      await framed.write(fuzzerHello(f.t.hub, f.fuzzerKey, f.a.key, hosted, 2));
      await stream.close();
    });
    await f.node.handle(ROSTER_PROTOCOL, async (stream) => {
      await lpStream(stream, { maxDataLength: 4 * 1024 * 1024 }).write(Buffer.from(JSON.stringify(v2)));
      await stream.close();
    });
    const { framed } = await openEvents(f);
    expect(await send(framed, encodeEvents({ through: 2, live: true, events: [event(f, newbie, 'first words'), event(f, f.mallory, 'and mine'), event(f, newbie, 'second words')] }))).toBe(2);
    expect(generalTexts(f)).toEqual(['mallory: and mine', 'newbie: first words', 'newbie: second words']);
    expect(f.t.hub.roster().current?.version).toBe(2);
    expect(f.a.links.list().find((peer) => peer.key === f.key)?.drops).toEqual({});
  }, 60_000);

  it('events fuzz - a side channel is placed by the id its hub gave it, but never into a thread of that id that is not its side channel', async () => {
    const f = await fuzzerLinked();
    const general = [...f.t.hub.internals.ctx.state.threads.values()].find((th) => th.name === 'general')!;
    const inSide = (text: string, id: string) => ({ ...event(f, f.mallory, text), side: [{ id, title: 'a side', members: [] }] });
    const sideId = f.t.hub.internals.ctx.newId();
    const { framed } = await openEvents(f);
    // The first names #general's own id as a side channel of #general: refused; the second opens a side channel.
    expect(await send(framed, encodeEvents({ through: 2, live: true, events: [inSide('into general?', general.id), inSide('in the side', sideId)] }))).toBe(2);
    expect(f.a.links.list().find((peer) => peer.key === f.key)?.drops).toMatchObject({ 'malformed-event': 1 });
    expect(generalTexts(f)).toEqual([]);
    const side = f.t.hub.internals.ctx.state.threads.get(sideId);
    expect(side).toMatchObject({ kind: 'side', name: 'a side', parentId: general.id });
    expect(f.t.hub.internals.ctx.store.events.readAfter(sideId, 0, 10).filter((row) => row.type === 'message').map((row) => row.content)).toEqual(['in the side']);
  }, 60_000);

  it('events fuzz - arbitrary, oversized and out-of-order frames reset the stream, are counted, store nothing; the next stream is taken', async () => {
    const f = await fuzzerLinked();
    const malformed = () => f.a.links.list().find((peer) => peer.key === f.key)?.drops['malformed-frame'] ?? 0;
    const frames = fc.sample(arbitraryFrame(400, 1), { numRuns: 20, seed: 28 });
    for (const frame of frames) {
      const { framed } = await openEvents(f);
      expect(await send(framed, frame)).toBe('reset');
    }
    await expect.poll(malformed, { timeout: 10_000 }).toBe(frames.length);
    // Too large to be a frame at all.
    const big = await f.node.dialProtocol(multiaddr(f.a.addr), EVENTS_PROTOCOL, { signal: AbortSignal.timeout(10_000) });
    await lpStream(big, { maxDataLength: MAX_EVENTS_FRAME_BYTES * 2 }).write(new Uint8Array(MAX_EVENTS_FRAME_BYTES + 1)).catch(() => undefined);
    await expect.poll(malformed, { timeout: 10_000 }).toBe(frames.length + 1);
    // Out of order on one stream: the second page is not after the first.
    const { framed } = await openEvents(f);
    expect(await send(framed, encodeEvents({ through: 5, live: true, events: [event(f, f.mallory, 'first page')] }))).toBe(5);
    expect(await send(framed, encodeEvents({ through: 5, live: true, events: [event(f, f.mallory, 'replayed page')] }))).toBe('reset');
    await expect.poll(malformed, { timeout: 10_000 }).toBe(frames.length + 2);
    expect(generalTexts(f)).toEqual(['mallory: first page']);
    // The link recovers: a new stream is taken.
    const next = await openEvents(f);
    expect(await send(next.framed, encodeEvents({ through: 6, live: true, events: [event(f, f.mallory, 'after the resets')] }))).toBe(6);
    expect(generalTexts(f)).toEqual(['mallory: first page', 'mallory: after the resets']);
    expect(f.a.links.list().find((peer) => peer.key === f.key)?.state).toBe('connected');
  }, 60_000);

  it('history fuzz - any bytes decode as a history frame or are refused as a bad frame, never anything else', () => {
    fc.assert(
      fc.property(arbitraryFrame(2000), (bytes) => {
        for (const decode of [decodeQuestion, decodeDigest, decodeAnswer, decodeTaken]) {
          try {
            decode(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(BadFrame);
          }
        }
      }),
      { numRuns: 300, seed: 29 },
    );
  });

  it('history fuzz - arbitrary questions on the history protocol reset the stream and are counted; a good question is then answered', async () => {
    const f = await fuzzerLinked();
    const malformed = () => f.a.links.list().find((peer) => peer.key === f.key)?.drops['malformed-frame'] ?? 0;
    const open = async () => lpStream(await f.node.dialProtocol(multiaddr(f.a.addr), HISTORY_PROTOCOL, { signal: AbortSignal.timeout(10_000) }), { maxDataLength: MAX_EVENTS_FRAME_BYTES });
    const frames = fc.sample(arbitraryFrame(400, 1), { numRuns: 20, seed: 30 });
    for (const frame of frames) {
      const framed = await open();
      await framed.write(frame);
      await expect(framed.read({ signal: AbortSignal.timeout(10_000) })).rejects.toThrow();
    }
    await expect.poll(malformed, { timeout: 10_000 }).toBe(frames.length);
    const framed = await open();
    await framed.write(encodeQuestion({ digest: { sinceTs: 0 } }));
    const digest = decodeDigest((await framed.read({ signal: AbortSignal.timeout(10_000) })).subarray());
    expect(digest.map((channel) => channel.channel)).toContain('general');
    expect(f.a.links.list().find((peer) => peer.key === f.key)?.state).toBe('connected');
  }, 60_000);
});
