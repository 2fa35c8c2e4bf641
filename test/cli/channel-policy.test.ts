import { describe, expect, it } from 'vitest';
import { verifyPolicy, type ChannelPolicy } from '../../src/trust/channel-policy.js';
import { parsePublicKey } from '../../src/trust/node-id.js';
import { servedCli } from './served-cli.js';

/**
 * Channel access policies on a running hub: set through the CLI
 * (`parley channel policy`) and REST (the thread's controls route), shown in
 * the thread view and by the CLI, enforced over REST for a non-reader, and
 * refused for a non-admin with nothing stored.
 */
const served = servedCli({ join: [['human', 'human'], ['alice', 'agent'], ['bob', 'agent']] });
const cli = served.cli;
const rest = (who: string, route: string, body?: unknown) => served.rest(who, body === undefined ? 'GET' : 'POST', route, body);

type AccessView = { policy: ChannelPolicy; signer: string; sig: string; channel: string; handles: Record<string, string> };
const accessOf = async (channel: string): Promise<AccessView | undefined> => (await rest('human', `/threads/${channel}`)).json.access as AccessView | undefined;

/** Each test makes its own channel, so none depends on what another left. */
async function newChannel(name: string): Promise<void> {
  expect((await rest('human', '/threads', { name })).status).toBe(201);
}

describe('channel policy', () => {
  it('channel policy - the CLI sets and shows it, REST enforces it, and its signature verifies', async () => {
    await newChannel('vault');
    expect((await cli('channel', 'policy', 'vault', '--as', 'human')).stdout).toContain('no access policy');
    const set = await cli('channel', 'policy', 'vault', '--readers', '@alice,admin', '--writers', '@alice', '--retention-hours', '24', '--no-history-fetch', '--as', 'human');
    expect(set.stderr).toBe('');
    expect(set.stdout).toMatch(/^access policy recorded: seq \d+/);
    const view = (await accessOf('vault'))!;
    expect(view.policy).toMatchObject({ version: 1, retention_hours: 24, retention_messages: 10_000, allow_history_fetch: false, writers: [{ key: expect.stringMatching(/^ed25519:/) }] });
    expect(view.handles[view.signer]).toBe('human');
    expect(verifyPolicy(view.policy, parsePublicKey(view.signer), Buffer.from(view.sig, 'base64url'))).toBe(true);
    const shown = await cli('channel', 'policy', 'vault', '--as', 'human');
    expect(shown.stdout).toContain('readers:   @alice, admin+');
    expect(shown.stdout).toContain('24 hours');

    expect((await rest('alice', '/threads/vault/messages', { text: 'inside' })).status).toBe(201);
    const post = await rest('bob', '/threads/vault/messages', { text: 'outside' });
    expect(post.status).toBe(403);
    expect(post.json.error).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect(String((post.json.error as { message: string }).message)).toContain('among its writers');
    const read = await rest('bob', '/threads/vault/history');
    expect(read.status).toBe(403);
    expect(String((read.json.error as { message: string }).message)).toContain('among its readers');
    const listed = (await rest('bob', '/threads')).json.threads as Array<{ name: string }>;
    expect(listed.map((t) => t.name)).not.toContain('vault');
  });

  it('channel policy - a non-admin is refused, bad input names the field, and nothing is stored', async () => {
    await newChannel('locked');
    expect((await rest('human', '/threads/locked/controls', { access: { readers: ['@alice', 'admin'] } })).status).toBe(201);
    const before = (await accessOf('locked'))!.policy;
    expect(before.version).toBe(1);
    const byAgent = await rest('alice', '/threads/locked/controls', { access: { readers: ['@alice'] } });
    expect(byAgent.status).toBe(403);
    expect(byAgent.json.error).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    const badAdmin = await rest('human', '/threads/locked/controls', { access: { admins: ['@bob'] } });
    expect(badAdmin.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'control.access.admins.0' });
    const badHours = await cli('channel', 'policy', 'locked', '--retention-hours', 'soon', '--as', 'human');
    expect(badHours.status).not.toBe(0);
    expect(badHours.stderr).toContain('control.access.retention_hours');
    expect((await accessOf('locked'))!.policy).toEqual(before);
  });
});
