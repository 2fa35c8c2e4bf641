import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPolicy, type ChannelPolicy } from '../../src/trust/channel-policy.js';
import { parsePublicKey } from '../../src/trust/node-id.js';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/**
 * Channel access policies on a running hub: set through the CLI
 * (`parley channel policy`) and REST (the thread's controls route), shown in
 * the thread view and by the CLI, enforced over REST for a non-reader, and
 * refused for a non-admin with nothing stored.
 */
let hub: RunningHub;
let home: string;
let cleanup: () => void;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  hub = await startServe(home);
  expect((await cli('join', 'human', '--kind', 'human')).status).toBe(0);
  tokens.human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
  tokens.alice = await joinOver(hub, { handle: 'alice' });
  tokens.bob = await joinOver(hub, { handle: 'bob' });
}, 120_000);

afterAll(async () => {
  await stopHubs();
  cleanup();
});

function cli(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: childEnv(home, { PARLEY_URL: hub.url }), stdio: ['ignore', 'pipe', 'pipe'] });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, stdout, stderr })));
}

async function rest(who: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${hub.url}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${tokens[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

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
