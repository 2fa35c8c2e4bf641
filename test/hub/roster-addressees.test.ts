import { afterEach, describe, expect, it } from 'vitest';
import { HINTS } from '../../src/errors/hints.js';
import type { Actor } from '../../src/hub/actor.js';
import type { Access } from '../../src/schema/access.js';
import type { Roster } from '../../src/schema/roster.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { openAgentHub, type AgentHub } from '../helpers/agent-hub.js';
import { caught } from '../helpers/hub.js';
import { connectInMemory, type McpTestClient } from '../helpers/mcp.js';
import { snapshot } from '../helpers/store-snapshot.js';

/**
 * With a roster in force, a request or a direct message to a participant
 * outside it is refused when sent, on every entry point (REST, MCP, the library),
 * and nothing is stored: its addressee could neither read nor answer it.
 */
let hub: AgentHub | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await hub?.close();
  hub = undefined;
});

const keyOf = (actor: Actor): string => formatPublicKey(Buffer.from(actor.participant.publicKey, 'base64'));

/** A served hub with @human, @coder and @stranger joined, then a roster (acme v1) in force that leaves @stranger out. */
async function rosterWithoutStranger(): Promise<{ h: AgentHub; humanToken: string; mcp: McpTestClient }> {
  const h = await openAgentHub(['coder', 'stranger'], { config: { chat: { limits: { writesPerMinute: 0 } } } });
  hub = h;
  // Opened in local mode, before the roster: a DM thread of @coder and @stranger already exists.
  await h.agents.coder!.actor.dm({ to: 'stranger', text: 'before the roster' });
  const { keys } = h.t.hub.internals.ctx;
  const members: Array<[string, Access]> = [
    [formatPublicKey(keys.hub().raw), 'admin'],
    [keyOf(h.human), 'admin'],
    [keyOf(h.agents.coder!.actor), 'operator'],
  ];
  const draft: Roster = { org_id: 'acme', version: 1, timestamp: '2026-11-24T12:00:01Z', members: members.map(([pubkey, role]) => ({ pubkey, role })), signatures: [] };
  await h.t.hub.acceptRoster(signRoster(draft, keys.hub().privateKey));
  const mcp = await connectInMemory(h.t.hub, 'coder', 'default', 'all');
  cleanups.push(() => mcp.close());
  return { h, humanToken: await h.t.hub.issueToken('human'), mcp };
}

async function rest(h: AgentHub, token: string, route: string, body: unknown): Promise<{ status: number; error: Record<string, unknown> | undefined }> {
  const res = await fetch(`${h.url}/api/v1${route}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, error: ((await res.json()) as { error?: Record<string, unknown> }).error };
}

describe('roster addressees - requests and DMs to a participant outside the roster in force', () => {
  it('roster addressees - a request to @stranger is refused over REST, MCP and the library, in a DM or a channel; nothing is stored', async () => {
    const { h, mcp } = await rosterWithoutStranger();
    const coder = h.agents.coder!;
    const stranger = `ed25519:${Buffer.from(h.agents.stranger!.actor.participant.publicKey, 'base64').toString('base64url')}`;
    const before = snapshot(h.t.hub);

    const overRest = await rest(h, coder.token, '/requests', { to: 'stranger', intent: 'review', params: { pr: 42 } });
    expect(overRest.status).toBe(422);
    expect(overRest.error).toMatchObject({ code: 'ADDRESSEE_NOT_IN_ROSTER', field: 'to', hint: 'add-to-roster', details: { handle: 'stranger', key: stranger, org: 'acme', version: 1 } });
    expect(overRest.error!.message).toBe(
      `Invalid to: @stranger (${stranger}) is not in roster acme v1, so they could neither read nor answer it; nothing was sent. Ask @human to add their key. ${HINTS['add-to-roster'].rest}`,
    );
    const inChannel = await rest(h, coder.token, '/requests', { to: 'stranger', intent: 'review', thread: 'general' });
    expect([inChannel.status, inChannel.error?.code]).toEqual([422, 'ADDRESSEE_NOT_IN_ROSTER']);

    const overMcp = await mcp.call('request_send', { to: 'stranger', intent: 'review' });
    expect(overMcp.isError).toBe(true);
    expect(overMcp.text).toMatch(/^ADDRESSEE_NOT_IN_ROSTER: Invalid to: @stranger \(ed25519:\S+\) is not in roster acme v1/);
    expect(overMcp.text.endsWith(HINTS['add-to-roster'].mcp)).toBe(true);

    expect(await caught(() => coder.actor.request({ to: 'stranger', intent: 'review' }))).toMatchObject({ code: 'ADDRESSEE_NOT_IN_ROSTER', field: 'to' });
    expect(snapshot(h.t.hub)).toEqual(before);
    expect(await coder.actor.openRequests()).toEqual({ incoming: [], outgoing: [] });

    // A member is reached as before.
    const sent = await rest(h, coder.token, '/requests', { to: 'human', intent: 'review' });
    expect([sent.status, sent.error]).toEqual([201, undefined]);
  });

  it('roster addressees - a DM to @stranger is refused over REST and MCP, in a new DM thread or the one made before the roster; nothing is stored', async () => {
    const { h, humanToken, mcp } = await rosterWithoutStranger();
    const before = snapshot(h.t.hub);

    // @human had no DM with @stranger: none is made.
    const overRest = await rest(h, humanToken, '/dm', { to: 'stranger', text: 'are you there?' });
    expect(overRest.status).toBe(422);
    expect(overRest.error).toMatchObject({ code: 'ADDRESSEE_NOT_IN_ROSTER', field: 'to', hint: 'add-to-roster' });
    expect(overRest.error!.message).toContain('@stranger (ed25519:');

    const overMcp = await mcp.call('chat_dm', { to: 'stranger', text: 'still there?' });
    expect(overMcp.isError).toBe(true);
    expect(overMcp.text).toMatch(/^ADDRESSEE_NOT_IN_ROSTER: Invalid to: @stranger /);
    // Posted into the DM thread of @coder and @stranger, by its name: the thread is at fault.
    const intoThread = await mcp.call('chat_post', { thread: 'dm:coder,stranger', text: 'hello again' });
    expect(intoThread.isError).toBe(true);
    expect(intoThread.text).toMatch(/^ADDRESSEE_NOT_IN_ROSTER: Invalid thread: @stranger /);
    expect(await caught(() => h.agents.coder!.actor.dm({ to: 'stranger', text: 'and again' }))).toMatchObject({ code: 'ADDRESSEE_NOT_IN_ROSTER', field: 'to' });

    expect(snapshot(h.t.hub)).toEqual(before);
    // A DM between members goes through.
    expect((await rest(h, humanToken, '/dm', { to: 'coder', text: 'hi' })).status).toBe(201);
  });
});
