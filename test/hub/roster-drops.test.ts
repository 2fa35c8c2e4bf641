import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { ParleyError } from '../../src/errors/parley-error.js';
import type { Access } from '../../src/schema/access.js';
import type { Roster } from '../../src/schema/roster.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { caught, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

/** A roster version that leaves out members who are using the hub right now needs a confirmation. */
const hubs = testHubsClosedAfterEach();

const PRESENCE_TTL_SECONDS = 60;

async function setup(): Promise<{ t: TestHub; boss: Actor; coder: Actor; idle: Actor; rosterOf: (version: number, list: Array<[Actor, Access]>) => Roster; clock: { now: number } }> {
  const clock = { now: Date.parse('2026-11-24T12:00:00Z') };
  const t = await hubs.open({ now: () => clock.now, config: { presence: { ttlSeconds: PRESENCE_TTL_SECONDS } } });
  const boss = await t.hub.join({ handle: 'boss', profile: { kind: 'human' } });
  const coder = await t.hub.join({ handle: 'coder' });
  const idle = await t.hub.join({ handle: 'idle' });
  const hub = t.hub.internals.ctx.keys.hub();
  const keyOf = (actor: Actor): string => formatPublicKey(Buffer.from(actor.participant.publicKey, 'base64'));
  const rosterOf = (version: number, list: Array<[Actor, Access]>): Roster =>
    signRoster(
      {
        org_id: 'team',
        version,
        timestamp: '2026-11-24T12:00:00Z',
        members: [{ pubkey: formatPublicKey(hub.raw), role: 'admin' }, ...list.map(([actor, role]) => ({ pubkey: keyOf(actor), role }))],
        signatures: [],
      },
      hub.privateKey,
    );
  return { t, boss, coder, idle, rosterOf, clock };
}

describe('roster versions that drop live members', () => {
  it('roster confirm - a version leaving out a member with a live session is refused, naming it and how to confirm; nothing changes; confirmed, it goes in force', async () => {
    const { t, boss, coder, idle, rosterOf } = await setup();
    await t.hub.acceptRoster(rosterOf(1, [[boss, 'admin'], [coder, 'member'], [idle, 'member']]));
    await coder.post({ thread: 'general', text: 'working on it' });
    // @idle never called: leaving it out needs no confirmation.
    await t.hub.acceptRoster(rosterOf(2, [[boss, 'admin'], [coder, 'member']]));
    const refused = await caught(() => t.hub.acceptRoster(rosterOf(3, [[boss, 'admin']])));
    expect(refused).toBeInstanceOf(ParleyError);
    const error = refused as ParleyError;
    expect([error.code, error.field]).toEqual(['ROSTER_UNCONFIRMED', 'confirm']);
    expect(error.details).toEqual({ dropped: [{ handle: 'coder', pubkey: formatPublicKey(Buffer.from(coder.participant.publicKey, 'base64')) }] });
    expect(error.message).toContain('Roster team v3 leaves out @coder, who holds a live session on this hub');
    expect(error.messageFor('library')).toContain('acceptRoster(roster, { confirm: true })');
    expect(error.messageFor('rest')).toContain('"confirm": true');
    expect(t.hub.roster().chain.map((r) => r.version)).toEqual([1, 2]);
    expect((await coder.post({ thread: 'general', text: 'still in' })).seq).toBeGreaterThan(0);

    await t.hub.acceptRoster(rosterOf(3, [[boss, 'admin']]), { confirm: true });
    expect(t.hub.trust).toMatchObject({ mode: 'roster', version: 3 });
    expect(await caught(() => coder.post({ thread: 'general', text: 'locked out' }))).toMatchObject({ code: 'NOT_IN_ROSTER' });
  });

  it('roster confirm - a first roster leaving out a participant with a live session (local mode) asks for confirmation too', async () => {
    const { t, boss, coder, rosterOf } = await setup();
    await coder.post({ thread: 'general', text: 'in local mode' });
    expect(await caught(() => t.hub.acceptRoster(rosterOf(1, [[boss, 'admin']])))).toMatchObject({ code: 'ROSTER_UNCONFIRMED', message: expect.stringContaining('leaves out @coder') });
    expect(t.hub.trust.mode).toBe('local');
    await t.hub.acceptRoster(rosterOf(1, [[boss, 'admin']]), { confirm: true });
    expect(t.hub.trust).toMatchObject({ mode: 'roster', version: 1 });
  });

  it('roster confirm - a member last seen longer ago than the presence TTL holds no live session: leaving it out needs no confirmation', async () => {
    const { t, boss, coder, rosterOf, clock } = await setup();
    await t.hub.acceptRoster(rosterOf(1, [[boss, 'admin'], [coder, 'member']]));
    await coder.post({ thread: 'general', text: 'then gone' });
    clock.now += PRESENCE_TTL_SECONDS * 1000 - 1;
    expect(await caught(() => t.hub.acceptRoster(rosterOf(2, [[boss, 'admin']])))).toMatchObject({ code: 'ROSTER_UNCONFIRMED' });
    clock.now += 2;
    await t.hub.acceptRoster(rosterOf(2, [[boss, 'admin']]));
    expect(t.hub.trust).toMatchObject({ mode: 'roster', version: 2 });
  });
});
