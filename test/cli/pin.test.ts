import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/**
 * The pin control on a running hub, through the CLI (`parley pin|unpin`) and
 * REST (the thread's controls route): it shows in the thread's view, and bad
 * input is refused naming the field, with nothing stored.
 */
let hub: RunningHub;
let home: string;
let cleanup: () => void;
let token: string;

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  hub = await startServe(home);
  expect((await cli('join', 'human', '--kind', 'human')).status).toBe(0);
  token = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
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

async function rest(path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${hub.url}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const controls = async (): Promise<Record<string, unknown>> => (await rest('/threads/general')).json.controls as Record<string, unknown>;

describe('pin', () => {
  it('pin - parley pin and unpin set the thread’s pin, shown in its view', async () => {
    const pinned = await cli('pin', 'general', '--as', 'human');
    expect(pinned.stdout).toMatch(/^pinned the thread: seq \d+/);
    expect(await controls()).toMatchObject({ pinned: true, pinnedBy: 'human' });
    const unpinned = await cli('unpin', 'general', '--as', 'human');
    expect(unpinned.stdout).toMatch(/^unpinned the thread: seq \d+/);
    expect((await controls()).pinned).toBe(false);
    // The history says what happened in words, as for every other control.
    const history = await cli('history', 'general', '--as', 'human');
    expect(history.stdout).toMatch(/@human pinned the thread\n.*@human unpinned the thread\n/);
  });

  it('pin - bad input names the field (REST) or the missing argument (CLI), and stores nothing', async () => {
    const before = (await controls()).pinned;
    const answer = await rest('/threads/general/controls', { pin: { on: 'yes' } });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'control.pin.on' });
    const missing = await cli('pin', '--as', 'human');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('parley pin THREAD');
    expect((await controls()).pinned).toBe(before);
  });
});
