import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Roster } from '../../src/schema/roster.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { joinOver, restCall, type Json, type RunningHub } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';

const served = servedHubsPerTest();

/** A served hub in local mode with two humans, alice and bob, who both have spoken in #general. */
async function localHub(): Promise<{ hub: RunningHub; home: string; alice: string; bob: string }> {
  const { hub, home } = await served.serve(served.home('parley-first-roster-'));
  const alice = await joinOver(hub, { handle: 'alice', profile: { kind: 'human' } });
  const bob = await joinOver(hub, { handle: 'bob', profile: { kind: 'human' } });
  expect((await restCall(hub, alice, 'POST', '/threads/general/messages', { text: 'hello' })).status).toBe(201);
  expect((await restCall(hub, bob, 'POST', '/threads/general/messages', { text: 'hi alice' })).status).toBe(201);
  return { hub, home, alice, bob };
}

/** The roster lines of a signed export of #general, downloaded with `token`. */
async function exportedRosters(hub: RunningHub, token: string): Promise<Json[]> {
  const res = await fetch(`${hub.url}/api/v1/threads/general/export?format=signed`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return (await res.text())
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Json)
    .filter((line) => line.type === 'roster');
}

const adminPost = (hub: RunningHub, body: unknown): Promise<Response> =>
  fetch(`${hub.url}/api/v1/hub/roster`, { method: 'POST', headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

const keyOf = async (hub: RunningHub, token: string): Promise<string> =>
  formatPublicKey(Buffer.from((await restCall(hub, token, 'GET', '/whoami')).json.participant.publicKey as string, 'base64'));

describe('the first roster', () => {
  it('roster - a participant (an admin in local mode) cannot end local mode: not with a roster of its own, not with the roster an export carries, not with one the hub key signed', async () => {
    const { hub, home, alice, bob } = await localHub();
    // The attack: the local roster of a signed export, handed back as the hub's roster.
    const [local] = await exportedRosters(hub, alice);
    expect(local).toMatchObject({ scope: 'local' });
    const fromExport = await restCall(hub, alice, 'POST', '/hub/roster', local!.roster);
    expect(fromExport.status).toBe(403);
    expect(fromExport.json.error.code).toBe('FORBIDDEN');
    expect(fromExport.json.error.message).toContain('only the hub\'s owner may put it in force');

    const mine = crypto.generateKeyPairSync('ed25519').privateKey;
    const takeover = signRoster({ org_id: 'mine', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: formatPublicKey(rawPublicKeyOf(mine)), role: 'admin' }], signatures: [] }, mine);
    const own = await restCall(hub, alice, 'POST', '/hub/roster', takeover);
    expect(own.status).toBe(403);
    expect(own.json.error.code).toBe('FORBIDDEN');

    const hubKey = readKeyFile(hubKeyPathOf(home));
    const proper = signRoster(
      {
        org_id: 'team',
        version: 1,
        timestamp: '2026-11-24T12:00:00Z',
        members: [
          { pubkey: formatPublicKey(rawPublicKeyOf(hubKey)), role: 'admin' },
          { pubkey: await keyOf(hub, alice), role: 'admin' },
        ],
        signatures: [],
      },
      hubKey,
    );
    const signedByHub = await restCall(hub, alice, 'POST', '/hub/roster', proper);
    expect(signedByHub.status).toBe(403);
    expect(signedByHub.json.error.code).toBe('FORBIDDEN');
    // Still local mode: bob keeps his access.
    expect((await restCall(hub, bob, 'GET', '/whoami')).json).toMatchObject({ access: 'admin', trust: { mode: 'local' } });
  });

  it('roster - the roster an export carries vouches for that export only: not even the admin token puts it in force', async () => {
    const { hub, bob } = await localHub();
    const [local] = await exportedRosters(hub, bob);
    const refused = await adminPost(hub, local!.roster);
    expect(refused.status).toBe(422);
    const error = ((await refused.json()) as Json).error as Json;
    expect(error).toMatchObject({ code: 'BAD_SIGNATURE', field: 'signatures.0' });
    expect(error.message).toContain('signed as the roster of a signed export (parley/export-roster/v1)');
    expect((await restCall(hub, bob, 'GET', '/whoami')).json).toMatchObject({ access: 'admin', trust: { mode: 'local' } });
  });

  it('roster - the hub\'s owner (the admin token) puts a first roster in force; its admins then push later versions', async () => {
    const { hub, home, alice, bob } = await localHub();
    const hubKey = readKeyFile(hubKeyPathOf(home));
    const members: Roster['members'] = [
      { pubkey: formatPublicKey(rawPublicKeyOf(hubKey)), role: 'admin' },
      { pubkey: await keyOf(hub, alice), role: 'admin' },
      { pubkey: await keyOf(hub, bob), role: 'member' },
    ];
    const v1 = signRoster({ org_id: 'team', version: 1, timestamp: '2026-11-24T12:00:00Z', members, signatures: [] }, hubKey);
    const taken = await adminPost(hub, v1);
    expect(taken.status).toBe(200);
    expect((await restCall(hub, bob, 'GET', '/whoami')).json).toMatchObject({ access: 'member', trust: { mode: 'roster', org: 'team', version: 1 } });
    // A later version, signed by an admin of v1 and pushed by an admin participant, is accepted.
    const v2 = signRoster({ ...v1, version: 2, members: members.map((m, i) => (i === 2 ? { ...m, role: 'operator' as const } : m)), signatures: [] }, hubKey);
    const later = await restCall(hub, alice, 'POST', '/hub/roster', v2);
    expect(later.status, JSON.stringify(later.json)).toBe(200);
    expect((await restCall(hub, bob, 'GET', '/whoami')).json).toMatchObject({ access: 'operator', trust: { mode: 'roster', version: 2 } });
  });
});
