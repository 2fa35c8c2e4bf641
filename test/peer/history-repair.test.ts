import '../../src/peer/promise-with-resolvers.js';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { Ed25519PrivateKey } from '@libp2p/interface';
import { lpStream } from '@libp2p/utils';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';
import { describe, expect, it } from 'vitest';
import type { PeerEvent } from '../../src/hub/index.js';
import { encodeEvents, EVENTS_PROTOCOL, MAX_EVENTS_FRAME_BYTES, decodeAck } from '../../src/peer/event-frames.js';
import { HELLO_PROTOCOL, MAX_HELLO_BYTES } from '../../src/peer/hello.js';
import { decodeQuestion, encodeAnswer, encodeDigest, HISTORY_PROTOCOL } from '../../src/peer/history-frames.js';
import { signedFieldsOfRow } from '../../src/store/signed-fields.js';
import { eventSigningBytes, signEvent, type SignedEventFields } from '../../src/trust/envelope.js';
import { formatPublicKey, privateKeyFromSeed } from '../../src/trust/node-id.js';
import { messageFields } from '../helpers/envelope.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { linkedTeam, type TeamHub } from '../helpers/peer-hubs.js';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import type { RunningHub } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';
import { fuzzerHello } from './fuzz-frames.js';

/**
 * History sync against a hand-made peer: a hub of the roster whose node is a
 * bare libp2p node, so that it can drop frames (a gap) or serve history no
 * Parley hub would (forged and tampered events of another hub's author).
 */
const hubs = testHubsClosedAfterEach();
const quick = { config: { peers: { sync: { intervalSeconds: 0.2 } } } };
const PASSWORD = 'see-the-gap';

interface HandMade {
  node: Libp2p;
  key: string;
  hubKey: Ed25519PrivateKey;
  /** The participant it hosts (named in its hello). */
  mallory: { key: Ed25519PrivateKey; raw: Uint8Array };
}

/** A team A (ann) and B (bea) linked, and a hand-made hub F hosting mallory, in the roster, linked to neither yet. */
async function teamWithHandMade(hub: typeof quick = quick, onB: string[] = ['bea']): Promise<{ a: TeamHub; b: TeamHub; f: HandMade }> {
  const hubKey = await generateKeyPair('Ed25519');
  const malloryKey = await generateKeyPair('Ed25519');
  const extra = [
    { pubkey: formatPublicKey(hubKey.publicKey.raw), role: 'member' as const, kind: 'hub' as const },
    { pubkey: formatPublicKey(malloryKey.publicKey.raw), role: 'operator' as const },
  ];
  const [a, b] = await linkedTeam(hubs, [['ann'], onB], { hub, extraMembers: extra });
  const node = await createLibp2p({ privateKey: hubKey, transports: [tcp()], connectionEncrypters: [noise()], streamMuxers: [yamux()] });
  hubs.defer(() => node.stop());
  return { a: a!, b: b!, f: { node, key: formatPublicKey(hubKey.publicKey.raw), hubKey, mallory: { key: malloryKey, raw: malloryKey.publicKey.raw } } };
}

/** F says hello to a hub: the hub then links it, hosting mallory. */
async function hello(f: HandMade, to: TeamHub): Promise<void> {
  const stream = await f.node.dialProtocol(multiaddr(to.addr), HELLO_PROTOCOL, { signal: AbortSignal.timeout(10_000) });
  const framed = lpStream(stream, { maxDataLength: MAX_HELLO_BYTES });
  await framed.write(fuzzerHello(to.t.hub, f.hubKey, to.key, [{ key: f.mallory.raw, handle: 'mallory', kind: 'agent' }]));
  await framed.read();
  await expect.poll(() => to.t.hub.participant('mallory')?.hub, { timeout: 10_000 }).toBe('fuzzer');
}

/** Mallory's message number `seq` in #general (its thread id on F, one epoch), sent with the seq of the one before. */
function malloryEvent(f: HandMade, seq: number): PeerEvent {
  const fields: SignedEventFields = messageFields({
    id: `01JB${String(seq).padStart(22, '0')}`,
    from: f.mallory.raw,
    thread: '01JAAAAAAAAAAAAAAAAAAAAAAA',
    content: `mallory ${seq}`,
    sender_seq: seq,
    sender_epoch: Buffer.alloc(16, 7),
  });
  return { bytes: eventSigningBytes(fields), sig: signEvent(privateKeyFromSeed(f.mallory.key.raw.subarray(0, 32)), fields), session: 'default', channel: 'general', dmWith: null, ...(seq > 1 ? { prev: seq - 1 } : {}) };
}

/** F sends `events` to a hub as one live page of its fan-out, and reads the ack. */
async function fanOut(f: HandMade, to: TeamHub, events: PeerEvent[], through: number): Promise<number> {
  const stream = await f.node.dialProtocol(multiaddr(to.addr), EVENTS_PROTOCOL, { signal: AbortSignal.timeout(10_000) });
  const framed = lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES });
  await framed.write(encodeEvents({ through, events, live: true }));
  const ack = decodeAck((await framed.read({ signal: AbortSignal.timeout(10_000) })).subarray());
  await stream.close();
  return ack;
}

async function messagesOn(hub: TeamHub, reader: string): Promise<string[]> {
  const { events } = await hub.actors[reader]!.history({ thread: 'general', limit: 500 });
  return events.filter((e) => e.type === 'message').map((e) => String(e.content));
}

describe('history repair', () => {
  it('history repair - the page marks the channel and the author\'s hub "history incomplete" while a gap lasts, and not once it is filled', async () => {
    // B's human (the page's) is in the roster.
    const { a, b, f } = await teamWithHandMade({ config: { ...quick.config, webui: { password: PASSWORD } } } as typeof quick, ['bea', 'human']);
    await hello(f, a);
    await hello(f, b);
    const all = [1, 2, 3, 4, 5, 6, 7, 8].map((seq) => malloryEvent(f, seq));
    expect(await fanOut(f, b, [...all.slice(0, 3), ...all.slice(6)], 8)).toBe(8);
    const server = await hubs.serve(b.t);
    const { browser, close } = await launchBrowser();
    hubs.defer(close);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, { url: server.url } as RunningHub, PASSWORD);
    expect(await page.locator('#thread-title').textContent()).toBe('# general');
    const mark = page.locator('.thread-head .history-gap');
    await expect.poll(() => mark.textContent(), { timeout: 15_000 }).toContain('history incomplete');
    expect(await mark.getAttribute('title')).toMatch(/^@mallory's events before \d{4}-\d\d-\d\dT.* are missing; asked of the linked hubs$/);
    await expect.poll(() => page.locator('.linked-hub[data-hub="fuzzer"] .link-details').textContent(), { timeout: 15_000 }).toContain('history incomplete');
    await page.screenshot({ path: screenshotPath('history-incomplete') });
    // A gets all eight, B takes the three it lacks from A: the marks go at the page's next look.
    expect(await fanOut(f, a, all, 8)).toBe(8);
    await expect.poll(() => mark.count(), { timeout: 20_000 }).toBe(0);
    expect(await page.locator('.linked-hub[data-hub="fuzzer"]').textContent()).not.toContain('history incomplete');
  }, 60_000);

  it('history repair - a gap made by dropped frames is shown while it lasts, then filled from another hub that holds the events', async () => {
    const { a, b, f } = await teamWithHandMade();
    await hello(f, a);
    await hello(f, b);
    const all = [1, 2, 3, 4, 5, 6, 7, 8].map((seq) => malloryEvent(f, seq));
    // B gets 1-3 and 7-8: the frames with 4-6 were dropped on the way. A has nothing of mallory's yet.
    expect(await fanOut(f, b, all.slice(0, 3), 3)).toBe(3);
    expect(await fanOut(f, b, all.slice(6), 8)).toBe(8);
    const gaps = b.t.hub.peerSync().gaps();
    expect(gaps).toEqual([expect.objectContaining({ session: 'default', channel: 'general', author: 'mallory', hub: 'fuzzer', missingFrom: 6, holes: 1 })]);
    expect(await messagesOn(b, 'bea')).toEqual(['mallory 1', 'mallory 2', 'mallory 3', 'mallory 7', 'mallory 8']);
    // As `parley peer list`, status and doctor show it: on the link of the hub hosting the author.
    expect(b.links.list().find((peer) => peer.key === f.key)?.gaps).toEqual(gaps);
    // A gets all eight; B, comparing with A, takes the three it lacks, and the gap is gone.
    expect(await fanOut(f, a, all, 8)).toBe(8);
    await expect.poll(async () => (await messagesOn(b, 'bea')).length, { timeout: 10_000 }).toBe(8);
    expect(new Set(await messagesOn(b, 'bea'))).toEqual(new Set(all.map((_, i) => `mallory ${i + 1}`)));
    // Found again within a second of the pages that filled it.
    await expect.poll(() => b.links.list().find((peer) => peer.key === f.key)?.gaps, { timeout: 5_000 }).toEqual([]);
  }, 60_000);

  it('history repair - a peer serving forged or tampered history of another hub\'s author is refused and counted; the event is taken from a hub that holds it', async () => {
    const { a, b, f } = await teamWithHandMade();
    // B is cut from A while ann posts: B lacks it.
    await b.links.block(a.key, 60_000);
    const posted = await a.actors.ann!.post({ thread: 'general', text: 'the real one' });
    const { ctx } = a.t.hub.internals;
    await ctx.sealer.settled();
    const row = ctx.store.events.byId(posted.id)!;
    const real = signedFieldsOfRow(row, (id) => ctx.keys.participant(id).raw);
    const tampered: PeerEvent = { bytes: eventSigningBytes({ ...real, content: 'a tampered one' }), sig: ctx.store.events.signatureOf(row)!, session: 'default', channel: 'general', dmWith: null };
    const forgedFields = messageFields({ id: ctx.newId(), from: real.from, thread: real.thread, content: 'a forged one', sender_seq: real.sender_seq + 1, sender_epoch: real.sender_epoch });
    const forged: PeerEvent = { bytes: eventSigningBytes(forgedFields), sig: signEvent(privateKeyFromSeed(f.mallory.key.raw.subarray(0, 32)), forgedFields), session: 'default', channel: 'general', dmWith: null };
    // F claims ann's history and serves the two.
    await f.node.handle(HISTORY_PROTOCOL, async (stream) => {
      const framed = lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES });
      const question = decodeQuestion((await framed.read()).subarray());
      if ('digest' in question) {
        await framed.write(encodeDigest([{ session: 'default', channel: 'general', policy: 0, allowed: true, streams: [{ author: real.from, thread: real.thread, epoch: real.sender_epoch, from: 1, through: 99, held: 99 }] }]));
      } else {
        await framed.write(encodeAnswer({ page: { events: [tampered, forged], authors: [], more: false } }));
      }
      await stream.close();
    });
    await hello(f, b);
    await expect.poll(() => b.links.list().find((peer) => peer.key === f.key)?.drops['bad-signature'] ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(await messagesOn(b, 'bea')).toEqual([]);
    // The cut heals: B takes the real one from A, once.
    b.links.unblock(a.key);
    await expect.poll(() => messagesOn(b, 'bea'), { timeout: 10_000 }).toEqual(['the real one']);
  }, 60_000);

  it('history repair - a hub that closes while a peer\'s pages wait to be stored stops taking them and its event loop still turns', async () => {
    const { b, f } = await teamWithHandMade();
    let serve!: () => void;
    const closed = new Promise<void>((resolve) => (serve = resolve));
    const pages = Array.from({ length: 12 }, (_, p) => Array.from({ length: 10 }, (_, i) => malloryEvent(f, p * 10 + i + 1)));
    await f.node.handle(HISTORY_PROTOCOL, async (stream) => {
      const framed = lpStream(stream, { maxDataLength: MAX_EVENTS_FRAME_BYTES });
      const question = decodeQuestion((await framed.read()).subarray());
      if ('digest' in question) {
        await framed.write(encodeDigest([{ session: 'default', channel: 'general', policy: 0, allowed: true, streams: [{ author: f.mallory.raw, thread: '01JAAAAAAAAAAAAAAAAAAAAAAA', epoch: Buffer.alloc(16, 7), from: 1, through: 120, held: 120 }] }]));
        await stream.close();
        return;
      }
      // Every page at once, once B's hub is closing: they all wait while the first is stored, which fails.
      await closed;
      for (const [p, events] of pages.entries()) await framed.write(encodeAnswer({ page: { events, authors: [], more: p < pages.length - 1 } }));
      await stream.close().catch(() => undefined);
    });
    await hello(f, b);
    await b.t.hub.close();
    serve();
    // A spin over the pages left would hold the event loop: this timer would never fire.
    await expect(new Promise<string>((resolve) => setTimeout(() => resolve('turned'), 1000))).resolves.toBe('turned');
  }, 60_000);
});

