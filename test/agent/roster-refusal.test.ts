import { describe, expect, it } from 'vitest';
import { createAgent, type AgentResult } from '../../src/agent/index.js';
import type { Actor } from '../../src/hub/actor.js';
import type { Access } from '../../src/schema/access.js';
import type { Roster } from '../../src/schema/roster.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { agentOnHub } from '../helpers/agent-on-hub.js';
import type { AgentHub } from '../helpers/agent-hub.js';
import { EventLog, hubOptionsFor, scriptedModel } from '../helpers/agent-loop.js';

/**
 * The agent loop refused by the hub for good (its key is not in the roster
 * in force): it ends with reason "error" and the hub's message, never with a
 * rejected run().
 */
const loop = agentOnHub();

const keyOf = (actor: Actor): string => formatPublicKey(Buffer.from(actor.participant.publicKey, 'base64'));

/** Puts roster acme `version` in force, signed with the hub key: the hub, @human (admin) and the given members. */
async function rosterOf(h: AgentHub, version: number, extra: Array<[Actor, Access]> = []): Promise<void> {
  const { keys } = h.t.hub.internals.ctx;
  const members: Array<[string, Access]> = [[formatPublicKey(keys.hub().raw), 'admin'], [keyOf(h.human), 'admin'], ...extra.map(([actor, role]): [string, Access] => [keyOf(actor), role])];
  const draft: Roster = { org_id: 'acme', version, timestamp: `2026-11-24T12:00:0${version}Z`, members: members.map(([pubkey, role]) => ({ pubkey, role })), signatures: [] };
  await h.t.hub.acceptRoster(signRoster(draft, keys.hub().privateKey), { confirm: true });
}

describe('the agent loop outside the roster', () => {
  it('ends with reason "error" and the NOT_IN_ROSTER message when its key is not in the roster as it starts', async () => {
    const hub = await loop.open();
    await rosterOf(hub, 1);
    const events = new EventLog();
    const model = scriptedModel(() => ({ text: 'never asked' }));
    const result: AgentResult = await createAgent({ ...hubOptionsFor(hub), model, onEvent: events.push, log: false }).run();
    expect(result.reason).toBe('error');
    expect(result.message).toMatch(/^Could not link @bot to the hub: Your key \(@bot, ed25519:[\w-]+\) is not in roster acme v1; nothing was done\. Ask @human to add it: parley roster add ed25519:/);
    expect(result.turns).toBe(0);
    expect(model.doGenerateCalls).toEqual([]);
    expect(events.of('stopped').map((e) => e.result)).toEqual([result]);
  });

  it('ends with reason "error" at once when a roster put in force while it waits leaves its key out', async () => {
    const hub = await loop.open();
    await rosterOf(hub, 1, [[hub.agents.bot!.actor, 'member']]);
    const events = new EventLog();
    const agent = createAgent({ ...hubOptionsFor(hub), model: scriptedModel(() => ({ text: 'never asked' })), onEvent: events.push, log: false });
    const done = loop.run(agent);
    await events.next('waiting');
    await rosterOf(hub, 2);
    // Waking it, so it reads the hub again (the wait itself is refused on its next call).
    await hub.human.post({ thread: 'general', text: 'anyone?' });
    const result = await done;
    expect(result.reason).toBe('error');
    expect(result.message).toMatch(/^The hub refused @bot: Your key \(@bot, ed25519:[\w-]+\) is not in roster acme v2; nothing was done\./);
    expect(events.of('error')).toEqual([]);
  });
});
