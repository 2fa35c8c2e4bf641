import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, restCall, startServe, stopHubs } from '../helpers/serve.js';

const cleanups: Array<() => void> = [];
afterEach(async () => {
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('the first roster', () => {
  it('roster - a participant (an admin in local mode) cannot end local mode with a roster of its own: a first roster needs the hub key\'s signature', async () => {
    const { home, cleanup } = tempHome('parley-first-roster-');
    cleanups.push(cleanup);
    const hub = await startServe(home);
    const alice = await joinOver(hub, { handle: 'alice', profile: { kind: 'human' } });
    const bob = await joinOver(hub, { handle: 'bob', profile: { kind: 'human' } });
    const mine = crypto.generateKeyPairSync('ed25519').privateKey;
    const takeover = signRoster({ org_id: 'mine', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: formatPublicKey(rawPublicKeyOf(mine)), role: 'admin' }], signatures: [] }, mine);
    const refused = await restCall(hub, alice, 'POST', '/hub/roster', takeover);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'FORBIDDEN', field: 'signatures' });
    // Still local mode: bob keeps his access.
    expect((await restCall(hub, bob, 'GET', '/whoami')).json).toMatchObject({ access: 'admin', trust: { mode: 'local' } });
    // Signed by the hub's key (what "parley roster init" does), the same participant may hand it in.
    const hubKey = readKeyFile(hubKeyPathOf(home));
    const me = (await restCall(hub, alice, 'GET', '/whoami')).json;
    const proper = signRoster(
      {
        org_id: 'team',
        version: 1,
        timestamp: '2026-11-24T12:00:00Z',
        members: [
          { pubkey: formatPublicKey(rawPublicKeyOf(hubKey)), role: 'admin' },
          { pubkey: formatPublicKey(Buffer.from(me.participant.publicKey as string, 'base64')), role: 'admin' },
        ],
        signatures: [],
      },
      hubKey,
    );
    const taken = await restCall(hub, alice, 'POST', '/hub/roster', proper);
    expect(taken.status, JSON.stringify(taken.json)).toBe(200);
    expect((await restCall(hub, bob, 'GET', '/whoami')).json).toMatchObject({ access: null, trust: { mode: 'roster', org: 'team' } });
    expect((await restCall(hub, bob, 'GET', '/threads')).json.error).toMatchObject({ code: 'NOT_IN_ROSTER' });
  });
});
