import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fixturePath } from '../fixtures/child-process.js';
import { skipBecause } from '../helpers/skip.js';

/**
 * mDNS on a LAN of the test's own: a network namespace (a user namespace
 * makes it without privileges) whose loopback carries the multicast, so no
 * other machine hears it. Three hubs there look for others by mDNS and none
 * is told of another: the two of one roster link, the one of another org is
 * heard but never dialled, and nothing found is kept in a home.
 */

/** Why a namespace cannot be made here, if it cannot. */
function namespaceRefusal(): string | undefined {
  const made = spawnSync('unshare', ['--user', '--map-root-user', '--net', 'ip', 'link', 'set', 'lo', 'up'], { encoding: 'utf8' });
  if (made.error) return `unshare cannot run here (${made.error.message})`;
  if (made.status !== 0) return `a network namespace cannot be made here: ${made.stderr.trim() || `unshare exited ${String(made.status)}`}`;
  return undefined;
}

interface HubView {
  name: string;
  key: string;
  peers: Array<{ key: string; name: string; state: string }>;
  heard: string[];
  kept: number;
}

/** Runs the three hubs of test/fixtures/mdns-lan.mjs in a namespace of their own; what each showed. */
async function runLan(): Promise<HubView[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-mdns-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const child = spawn('unshare', ['--user', '--map-root-user', '--net', 'sh', '-c', 'ip link set lo up && exec "$0" "$1" "$2"', process.execPath, fixturePath('mdns-lan.mjs'), dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, err).toBe(0);
  return JSON.parse(out.trim()) as HubView[];
}

describe('mDNS discovery', () => {
  it('mdns - in a namespace of its own, two hubs of one roster find each other and link; a hub of another org is heard, never linked', async (context) => {
    const refusal = namespaceRefusal();
    if (refusal) skipBecause(context, refusal);
    const [a, b, c] = await runLan();
    expect(a!.peers).toEqual([{ key: b!.key, name: 'hub-b', state: 'connected' }]);
    expect(b!.peers).toEqual([{ key: a!.key, name: 'hub-a', state: 'connected' }]);
    // C announced itself and heard the others, but neither side dialled: no link, no record of one.
    expect(a!.heard).toContain('hub-c');
    expect(c!.heard).toEqual(['hub-a', 'hub-b']);
    expect(c!.peers).toEqual([]);
    // What mDNS finds is found again at the next start: nothing is kept in a home.
    expect([a!.kept, b!.kept, c!.kept]).toEqual([0, 0, 0]);
  }, 60_000);
});
