import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { connectInMemory } from '../helpers/mcp.js';
import { linkedTeam, linkState, startLinks, type TeamHub } from '../helpers/peer-hubs.js';
import { signRoster } from '../../src/trust/roster.js';
import { exportLines, verifyLines } from '../trust/export-lines.js';

/**
 * History sync between linked hubs (in one process, over loopback TCP): a
 * hub gets what it missed from any hub that holds it, whoever wrote it.
 */
const hubs = testHubsClosedAfterEach();
const unlimited = { config: { chat: { limits: { writeBurst: 10_000, writesPerMinute: 1_000_000 } } } };

/** Every message of a channel on a hub, as `author: text`, oldest first. */
async function messagesOn(hub: TeamHub, reader: string, channel = 'general'): Promise<string[]> {
  const out: string[] = [];
  let after = 0;
  for (;;) {
    const { events } = await hub.actors[reader]!.history({ thread: channel, after, limit: 500 });
    if (events.length === 0) return out;
    out.push(...events.filter((e) => e.type === 'message').map((e) => `${e.author}: ${String(e.content)}`));
    after = events[events.length - 1]!.seq;
  }
}

/** Stops a team hub's links and its hub; its home stays for a restart. */
async function stopHub(hub: TeamHub): Promise<string> {
  await hub.links.stop();
  await hub.t.hub.close();
  return hub.t.home;
}

/** Opens a hub again on its home and starts its links (it dials the peers it kept). */
async function restart(home: string, handles: string[]): Promise<TeamHub> {
  const t = await hubs.open({ ...unlimited, home });
  const actors = Object.fromEntries(handles.map((handle) => [handle, t.hub.actor(handle)]));
  return { ...(await startLinks(hubs, t)), actors };
}

describe('history sync', () => {
  it('history - C posts 300 while B is down and goes away; B, back, gets them from A, in order, signatures verified', async () => {
    const [a, b, c] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal']], { hub: unlimited });
    await a!.actors.ann!.post({ thread: 'general', text: 'before' });
    await expect.poll(async () => (await messagesOn(b!, 'bea')).length, { timeout: 10_000 }).toBe(1);
    const bHome = await stopHub(b!);
    const sent: string[] = [];
    for (let i = 0; i < 300; i++) {
      await c!.actors.cal!.post({ thread: 'general', text: `cal ${i}` });
      sent.push(`cal: cal ${i}`);
    }
    await expect.poll(async () => (await messagesOn(a!, 'ann')).length, { timeout: 20_000 }).toBe(301);
    await stopHub(c!);
    const b2 = await restart(bHome, ['bea']);
    await expect.poll(() => linkState(b2, a!), { timeout: 10_000 }).toBe('connected');
    await expect.poll(async () => (await messagesOn(b2, 'bea')).length, { timeout: 20_000 }).toBe(301);
    expect(await messagesOn(b2, 'bea')).toEqual(['ann: before', ...sent]);
    // Each kept with its author's signature: the channel's signed export verifies on B.
    expect(verifyLines(await exportLines(b2.actors.bea!, 'general'))).toBeUndefined();
    expect(b2.links.list().find((peer) => peer.key === a!.key)?.drops).toEqual({});
  }, 90_000);

  it('history - a hub that joins late gets a channel up to its retention (newest 50 of 120) and no more, with its policy', async () => {
    const [a, d] = await linkedTeam(hubs, [['human-ann', 'ann'], ['dee']], { hub: unlimited, unlinked: 1 });
    await a!.actors['human-ann']!.control('general', { access: { retention_messages: 50 } });
    for (let i = 0; i < 120; i++) await a!.actors.ann!.post({ thread: 'general', text: `ann ${i}` });
    await d!.links.add(a!.addr);
    await expect.poll(async () => (await messagesOn(d!, 'dee')).length, { timeout: 20_000 }).toBe(50);
    // A later round brings nothing more: the window is the channel's, on both hubs.
    await d!.links.remove(a!.key);
    await d!.links.add(a!.addr);
    await expect.poll(() => linkState(d!, a!), { timeout: 10_000 }).toBe('connected');
    await a!.actors.ann!.post({ thread: 'general', text: 'marker' });
    await expect.poll(async () => (await messagesOn(d!, 'dee')).at(-1), { timeout: 10_000 }).toBe('ann: marker');
    expect(await messagesOn(d!, 'dee')).toEqual([...Array.from({ length: 50 }, (_, i) => `ann: ann ${70 + i}`), 'ann: marker']);
    expect((await d!.actors.dee!.threadDetail('general')).access?.policy).toMatchObject({ version: 1, retention_messages: 50 });
  }, 90_000);

  it('history - allow_history_fetch: false keeps a channel\'s history from a new hub; what is written after it links still reaches it', async () => {
    const [a, d] = await linkedTeam(hubs, [['human-ann', 'ann'], ['dee']], { hub: unlimited, unlinked: 1 });
    await a!.actors['human-ann']!.control('general', { access: { allow_history_fetch: false } });
    for (let i = 0; i < 10; i++) await a!.actors.ann!.post({ thread: 'general', text: `ann ${i}` });
    await d!.links.add(a!.addr);
    // The policy reaches it (it decides what D's hub sends where), and no message before it linked.
    await expect.poll(async () => (await d!.actors.dee!.threadDetail('general').catch(() => undefined))?.access?.policy.allow_history_fetch, { timeout: 10_000 }).toBe(false);
    await a!.actors.ann!.post({ thread: 'general', text: 'after the link' });
    await expect.poll(async () => messagesOn(d!, 'dee'), { timeout: 10_000 }).toEqual(['ann: after the link']);
  }, 90_000);

  it('history - A and B cut apart, C linked to both: what each side posts reaches the other through C, and after the cut heals the three hold the same events once', async () => {
    const quick = { config: { ...unlimited.config, peers: { sync: { intervalSeconds: 0.2 } } } };
    const [a, b, c] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal']], { hub: quick });
    await a!.links.block(b!.key, 60_000);
    await b!.links.block(a!.key, 60_000);
    await expect.poll(() => [linkState(a!, b!), linkState(b!, a!)], { timeout: 10_000 }).toEqual(['refused', 'refused']);
    expect(a!.links.list().find((peer) => peer.key === b!.key)?.reason).toMatch(/^blocked by the operator until /);
    for (let i = 0; i < 20; i++) {
      await a!.actors.ann!.post({ thread: 'general', text: `ann ${i}` });
      await b!.actors.bea!.post({ thread: 'general', text: `bea ${i}` });
    }
    const ids = async (hub: TeamHub, reader: string): Promise<string[]> => {
      const { events } = await hub.actors[reader]!.history({ thread: 'general', limit: 500 });
      return events.filter((e) => e.type === 'message').map((e) => e.id).sort();
    };
    await expect.poll(async () => (await ids(c!, 'cal')).length, { timeout: 20_000 }).toBe(40);
    const all = await ids(c!, 'cal');
    // Still cut: A has B's events from C, and B has A's.
    await expect.poll(() => ids(a!, 'ann'), { timeout: 20_000 }).toEqual(all);
    await expect.poll(() => ids(b!, 'bea'), { timeout: 20_000 }).toEqual(all);
    expect(linkState(a!, b!)).toBe('refused');
    a!.links.unblock(b!.key);
    b!.links.unblock(a!.key);
    await expect.poll(() => [linkState(a!, b!), linkState(b!, a!)], { timeout: 10_000 }).toEqual(['connected', 'connected']);
    await a!.actors.ann!.post({ thread: 'general', text: 'healed' });
    await expect.poll(async () => (await ids(b!, 'bea')).length, { timeout: 10_000 }).toBe(41);
    const healed = await ids(a!, 'ann');
    expect(await ids(b!, 'bea')).toEqual(healed);
    await expect.poll(() => ids(c!, 'cal'), { timeout: 10_000 }).toEqual(healed);
    expect(new Set(healed).size).toBe(41);
  }, 90_000);

  it('history - a hub whose store is restored from an older backup converges with its peers, holding every event once', async () => {
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']], { hub: unlimited });
    const post = async (from: number, to: number): Promise<void> => {
      for (let i = from; i < to; i++) {
        await a!.actors.ann!.post({ thread: 'general', text: `ann ${i}` });
        await b!.actors.bea!.post({ thread: 'general', text: `bea ${i}` });
      }
    };
    await post(0, 5);
    await expect.poll(async () => (await messagesOn(b!, 'bea')).length, { timeout: 10_000 }).toBe(10);
    // The backup: B's store files, copied while B is stopped.
    const home = await stopHub(b!);
    const backup = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-backup-'));
    hubs.defer(() => fs.rmSync(backup, { recursive: true, force: true }));
    const storeFiles = fs.readdirSync(home).filter((name) => name.startsWith('parley.db'));
    for (const name of storeFiles) fs.copyFileSync(path.join(home, name), path.join(backup, name));
    let b2 = await restart(home, ['bea']);
    await expect.poll(() => linkState(b2, a!), { timeout: 10_000 }).toBe('connected');
    for (let i = 5; i < 10; i++) {
      await a!.actors.ann!.post({ thread: 'general', text: `ann ${i}` });
      await b2.actors.bea!.post({ thread: 'general', text: `bea ${i}` });
    }
    await expect.poll(async () => (await messagesOn(a!, 'ann')).length, { timeout: 10_000 }).toBe(20);
    await expect.poll(async () => (await messagesOn(b2, 'bea')).length, { timeout: 10_000 }).toBe(20);
    // Restored: B's store goes back to the backup (its keys stay), and it starts again.
    await stopHub(b2);
    for (const name of fs.readdirSync(home).filter((n) => n.startsWith('parley.db'))) fs.rmSync(path.join(home, name));
    for (const name of storeFiles) fs.copyFileSync(path.join(backup, name), path.join(home, name));
    b2 = await restart(home, ['bea']);
    expect((await messagesOn(b2, 'bea')).length).toBe(10);
    await expect.poll(async () => (await messagesOn(b2, 'bea')).length, { timeout: 20_000 }).toBe(20);
    const ids = async (hub: TeamHub, reader: string): Promise<string[]> => {
      const { events } = await hub.actors[reader]!.history({ thread: 'general', limit: 500 });
      return events.filter((e) => e.type === 'message').map((e) => e.id).sort();
    };
    expect(await ids(b2, 'bea')).toEqual(await ids(a!, 'ann'));
    expect(new Set(await ids(b2, 'bea')).size).toBe(20);
    // B writes on, under a new epoch: A takes it (no replay of the seqs B gave before).
    await b2.actors.bea!.post({ thread: 'general', text: 'after the restore' });
    await expect.poll(async () => (await messagesOn(a!, 'ann')).at(-1), { timeout: 10_000 }).toBe('bea: after the restore');
  }, 90_000);

  it('history - a DM or request to a participant of a hub that stays unreachable past its TTL is marked expired for its sender; the DM is not sent after', async () => {
    let shift = 0;
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']], { hub: { ...unlimited, now: () => Date.now() + shift } });
    const handed = await a!.actors.ann!.dm({ to: 'bea', text: 'while you are here' });
    await expect.poll(async () => (await a!.actors.ann!.sentDeliveries()).find((d) => d.id === handed.id)?.state, { timeout: 10_000 }).toBe('pending');
    await expect.poll(() => a!.t.hub.peerSync().cursor(b!.key) >= handed.seq, { timeout: 10_000 }).toBe(true);
    const home = await stopHub(b!);
    const lost = await a!.actors.ann!.dm({ to: 'bea', text: 'while you are away' });
    // Requests too: one in their DM, one in a channel.
    const asked = await a!.actors.ann!.request({ to: 'bea', intent: 'review', text: 'can you look?' });
    const askedInChannel = await a!.actors.ann!.request({ to: 'bea', thread: 'general', intent: 'review', text: 'anyone from B?' });
    const stateOf = async (id: string) => (await a!.actors.ann!.sentDeliveries()).find((d) => d.id === id);
    expect(await stateOf(lost.id)).toMatchObject({ to: 'bea', state: 'pending' });
    expect((await stateOf(askedInChannel.id))?.state).toBe('pending');
    // Six minutes on: past the DM's TTL (300 s), its addressee's hub never reached.
    shift = 6 * 60_000;
    for (const id of [lost.id, asked.id, askedInChannel.id]) expect(await stateOf(id)).toMatchObject({ to: 'bea', state: 'expired', expired_at: expect.any(String) });
    // The MCP inbox's sent list says so too, with when it expired.
    const mcp = await connectInMemory(a!.t.hub, 'ann', 'default');
    try {
      const sent = (await mcp.call('inbox', { peek: true })).value.sent as Array<{ id: string; state: string; at?: string }>;
      for (const id of [lost.id, asked.id, askedInChannel.id]) expect(sent.find((d) => d.id === id)).toMatchObject({ state: 'expired', at: (await stateOf(id))!.expired_at });
    } finally {
      await mcp.close();
    }
    // The one B's hub took before it went stays as it was.
    expect((await stateOf(handed.id))?.state).toBe('pending');
    const b2 = await hubs.open({ ...unlimited, home, now: () => Date.now() + shift });
    const back = { ...(await startLinks(hubs, b2)), actors: { bea: b2.hub.actor('bea') } };
    await expect.poll(() => linkState(back, a!), { timeout: 10_000 }).toBe('connected');
    await a!.actors.ann!.dm({ to: 'bea', text: 'now that you are back' });
    const dmTexts = async () => (await back.actors.bea.history({ thread: (await back.actors.bea.threads()).find((t) => t.kind === 'dm')!.id })).events.filter((e) => e.type === 'message').map((e) => String(e.content));
    await expect.poll(dmTexts, { timeout: 10_000 }).toEqual(['while you are here', 'now that you are back']);
    expect((await stateOf(lost.id))?.state).toBe('expired');
  }, 90_000);

  it('history - a hub the roster marks archive keeps a channel past its retention and serves a member hub only the channel\'s window; peer list says which peers are archives', async () => {
    let shift = 0;
    const clock = { ...unlimited, now: () => Date.now() + shift };
    const [a, b, c] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal']], { hub: clock, archives: [0] });
    expect(b!.links.list().map((peer) => [peer.key, peer.archive])).toEqual(expect.arrayContaining([[a!.key, true], [c!.key, false]]));
    await c!.actors.cal!.post({ thread: 'general', text: 'four days ago' });
    await expect.poll(async () => (await messagesOn(b!, 'bea')).length, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await messagesOn(a!, 'ann')).length, { timeout: 10_000 }).toBe(1);
    // Four days on (past the 72 h retention, within the archive's): B and C prune it, the archive keeps it.
    shift = 96 * 3_600_000;
    await c!.actors.cal!.post({ thread: 'general', text: 'now' });
    await expect.poll(async () => (await messagesOn(b!, 'bea')).length, { timeout: 10_000 }).toBe(2);
    await expect.poll(async () => (await messagesOn(a!, 'ann')).length, { timeout: 10_000 }).toBe(2);
    for (const hub of [a!, b!, c!]) await hub.t.hub.prune();
    expect(await messagesOn(b!, 'bea')).toEqual(['cal: now']);
    expect(await messagesOn(a!, 'ann')).toEqual(['cal: four days ago', 'cal: now']);
    // Served within the channel's retention only: B, a member hub, is not given it back.
    await b!.links.remove(a!.key);
    await b!.links.add(a!.addr);
    await expect.poll(() => linkState(b!, a!), { timeout: 10_000 }).toBe('connected');
    await a!.actors.ann!.post({ thread: 'general', text: 'marker' });
    await expect.poll(() => messagesOn(b!, 'bea'), { timeout: 10_000 }).toEqual(['cal: now', 'ann: marker']);
    expect(b!.links.list().find((peer) => peer.key === a!.key)?.drops).toEqual({});
  }, 90_000);

  it('history - a hub whose participant is let into a channel gets its history at once, not at the next interval', async () => {
    // Comparisons an hour apart: only the joining brings the channel's history within the test.
    const rare = { config: { ...unlimited.config, peers: { sync: { intervalSeconds: 3600 } } } };
    const [a, b] = await linkedTeam(hubs, [['human-ann', 'ann'], ['bea']], { hub: rare });
    const admin = a!.actors['human-ann']!;
    await admin.createChannel({ name: 'ops' });
    await admin.control('ops', { access: { readers: ['@human-ann', '@ann'] } });
    for (let i = 0; i < 15; i++) await a!.actors.ann!.post({ thread: 'ops', text: `ops ${i}` });
    await a!.actors.ann!.post({ thread: 'general', text: 'after ops' });
    // Once B has the later post in #general, it was sent all it would get of #ops: nothing.
    await expect.poll(async () => messagesOn(b!, 'bea'), { timeout: 10_000 }).toEqual(['ann: after ops']);
    expect(await messagesOn(b!, 'bea', 'ops').catch(() => [])).toEqual([]);

    await admin.control('ops', { access: { readers: ['@human-ann', '@ann', '@bea'] } });
    await expect.poll(async () => (await messagesOn(b!, 'bea', 'ops').catch(() => [])).length, { timeout: 10_000 }).toBe(15);
    expect(await messagesOn(b!, 'bea', 'ops')).toEqual(Array.from({ length: 15 }, (_, i) => `ann: ops ${i}`));
  }, 60_000);

  it('history - events of an author the roster removed since are taken as history: the roster in force when they were written had them', async () => {
    // D links only once cal and C's hub are gone: it never heard of them but from A's history.
    const [a, b, c, d] = await linkedTeam(hubs, [['ann'], ['bea'], ['cal'], ['dee']], { hub: unlimited, unlinked: 1 });
    await b!.links.block(a!.key, 60_000);
    await b!.links.block(c!.key, 60_000);
    await expect.poll(() => [linkState(b!, a!), linkState(b!, c!)], { timeout: 10_000 }).toEqual(['refused', 'refused']);
    for (let i = 0; i < 5; i++) await c!.actors.cal!.post({ thread: 'general', text: `cal ${i}` });
    await expect.poll(async () => (await messagesOn(a!, 'ann')).length, { timeout: 10_000 }).toBe(5);

    // Version 2, signed after the posts, leaves out C's hub and cal.
    const v1 = a!.t.hub.roster().current!;
    const cal = c!.t.hub.participantsWithAccess().find((p) => p.handle === 'cal')!.pubkey;
    const members = v1.members.filter((m) => m.pubkey !== c!.key && m.pubkey !== cal);
    const v2 = signRoster({ ...v1, version: 2, timestamp: new Date(Date.now() + 1000).toISOString(), members, signatures: [] }, a!.t.hub.internals.ctx.keys.hub().privateKey);
    for (const hub of [a!, b!, d!]) await hub.t.hub.acceptRoster(v2);

    const written = Array.from({ length: 5 }, (_, i) => `cal: cal ${i}`);
    b!.links.unblock(a!.key);
    await expect.poll(async () => messagesOn(b!, 'bea'), { timeout: 10_000 }).toEqual(written);
    // None refused for its author (the block itself may count a page it cut off).
    expect(b!.links.list().find((peer) => peer.key === a!.key)?.drops['author-not-in-roster']).toBeUndefined();
    await d!.links.add(a!.addr);
    await expect.poll(async () => messagesOn(d!, 'dee').catch(() => []), { timeout: 10_000 }).toEqual(written);
    expect(d!.links.list().find((peer) => peer.key === a!.key)?.drops).toEqual({});
  }, 60_000);
});
