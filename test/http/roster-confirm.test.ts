import { describe, expect, it } from 'vitest';
import type { Roster } from '../../src/schema/roster.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { joinOver, restCall } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';

const served = servedHubsPerTest();

describe('POST /hub/roster and members with live sessions', () => {
  it('roster confirm - a push leaving out a member who is using the hub answers 409 ROSTER_UNCONFIRMED naming it; a bad confirm names the field; confirm: true puts it in force', async () => {
    const { hub, home } = await served.serve(served.home('parley-roster-confirm-'));
    const boss = await joinOver(hub, { handle: 'boss', profile: { kind: 'human' } });
    const coder = await joinOver(hub, { handle: 'coder' });
    const keyOf = async (token: string): Promise<string> => formatPublicKey(Buffer.from((await restCall(hub, token, 'GET', '/whoami')).json.participant.publicKey as string, 'base64'));
    const hubKey = readKeyFile(hubKeyPathOf(home));
    const admin: Roster['members'][number] = { pubkey: formatPublicKey(rawPublicKeyOf(hubKey)), role: 'admin' };
    const bossMember: Roster['members'][number] = { pubkey: await keyOf(boss), role: 'admin' };
    const coderKey = await keyOf(coder);
    const v1 = signRoster({ org_id: 'team', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [admin, bossMember, { pubkey: coderKey, role: 'member' }], signatures: [] }, hubKey);
    const first = await fetch(`${hub.url}/api/v1/hub/roster`, { method: 'POST', headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' }, body: JSON.stringify(v1) });
    expect(first.status).toBe(200);
    expect((await restCall(hub, coder, 'POST', '/threads/general/messages', { text: 'working' })).status).toBe(201);

    const v2 = signRoster({ ...v1, version: 2, members: [admin, bossMember], signatures: [] }, hubKey);
    const refused = await restCall(hub, boss, 'POST', '/hub/roster', v2);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'ROSTER_UNCONFIRMED', field: 'confirm', hint: 'confirm-roster', details: { dropped: [{ handle: 'coder', pubkey: coderKey }] } });
    expect(refused.json.error.message).toContain('leaves out @coder, who holds a live session on this hub');
    expect(refused.json.error.message).toContain('send it again with "confirm": true');
    expect((await restCall(hub, coder, 'GET', '/whoami')).json).toMatchObject({ access: 'member', trust: { version: 1 } });

    const bad = await restCall(hub, boss, 'POST', '/hub/roster', { ...v2, confirm: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'confirm' });
    expect((await restCall(hub, coder, 'GET', '/whoami')).json).toMatchObject({ trust: { version: 1 } });

    const confirmed = await restCall(hub, boss, 'POST', '/hub/roster', { ...v2, confirm: true });
    expect(confirmed.status, JSON.stringify(confirmed.json)).toBe(200);
    expect(confirmed.json.accepted).toEqual({ org_id: 'team', version: 2, members: 2 });
    expect((await restCall(hub, coder, 'GET', '/threads')).json.error).toMatchObject({ code: 'NOT_IN_ROSTER' });
  });
});
