import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { linkedTeam, type TeamHub } from '../helpers/peer-hubs.js';

/**
 * Presence across linked hubs: each hub gossips its own participants'
 * presence; the others show it under that hub's name, and show them offline
 * (still listed) once the link to their hub is down.
 */
const hubs = testHubsClosedAfterEach();

async function whoOn(hub: TeamHub, reader: string, handle: string): Promise<{ connection: string; state: string; hub?: string } | undefined> {
  const found = (await hub.actors[reader]!.who()).find((p) => p.handle === handle);
  return found && { connection: found.connection, state: found.state, ...(found.hub === undefined ? {} : { hub: found.hub }) };
}

describe('presence across linked hubs', () => {
  it('presence - a participant waiting on B shows waiting on A under B\'s name, and offline (still listed) once B is gone', async () => {
    const [a, b] = await linkedTeam(hubs, [['ann'], ['bea']]);
    const nameOfB = 'hub-b';
    expect(await whoOn(a!, 'ann', 'bea')).toEqual({ connection: 'offline', state: 'offline', hub: nameOfB });
    // bea waits on her inbox on B: present there, and so on A.
    const stop = new AbortController();
    const waiting = b!.actors.bea!.wait({ timeout_ms: 60_000 }, stop.signal).catch(() => undefined);
    await expect.poll(() => whoOn(a!, 'ann', 'bea'), { timeout: 10_000 }).toEqual({ connection: 'waiting', state: 'listening', hub: nameOfB });
    // A's own participant is shown on B the same way, with A's name.
    expect((await whoOn(b!, 'bea', 'ann'))?.hub).toBe('hub-a');
    expect((await whoOn(a!, 'ann', 'ann'))?.hub).toBeUndefined();
    // B goes away: bea is offline on A, and still listed.
    await b!.links.stop();
    await expect.poll(() => whoOn(a!, 'ann', 'bea'), { timeout: 10_000 }).toEqual({ connection: 'offline', state: 'offline', hub: nameOfB });
    stop.abort();
    await waiting;
  }, 60_000);
});
