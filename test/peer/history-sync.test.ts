import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { linkedTeam, linkState, startLinks, type TeamHub } from '../helpers/peer-hubs.js';
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
});
