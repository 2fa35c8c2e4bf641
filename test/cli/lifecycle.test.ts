import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { childEnv, joinOver, startServe, track } from '../helpers/serve.js';
import { openStream } from '../helpers/sse.js';
import { runCli } from './run-cli.js';
import { homePerTest } from './home-per-test.js';

/**
 * The hub lifecycle from the command line (fixed contract): `parley status`
 * says whether a hub runs on the home and what it is doing, `parley stop`
 * stops it gracefully and returns once its store is closed.
 */
const home = homePerTest();

let stopStream: () => void = () => undefined;

// Registered after homePerTest's: after hooks run last-registered first, so the stream ends before the hubs stop.
afterEach(() => {
  stopStream();
  stopStream = () => undefined;
});

describe('hub lifecycle', () => {
  it('status - names the URL, pid, uptime and who is connected; exits 1 with a clear line when no hub runs', async () => {
    const dir = home();
    const idle = await runCli(['status', '--home', dir], childEnv(dir));
    expect(idle.status).toBe(1);
    expect(idle.stdout).toContain(`No hub is running on home ${dir}`);
    const idleJson = await runCli(['status', '--json'], childEnv(dir));
    expect(idleJson.status).toBe(1);
    expect(JSON.parse(idleJson.stdout)).toEqual({ running: false, home: dir });

    const hub = await startServe(dir);
    const alice = await joinOver(hub, { handle: 'alice', session: 'proj' });
    await joinOver(hub, { handle: 'bob', session: 'proj' });
    // alice holds a live stream open; bob never connects.
    const stream = await openStream(`${hub.url}/api/v1/stream`, alice);
    stopStream = stream.drop;

    const shown = await runCli(['status', '--home', dir], childEnv(dir));
    expect(shown.stderr).toBe('');
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain(`URL:        ${hub.url}`);
    expect(shown.stdout).toContain(`pid:        ${hub.child.pid}`);
    expect(shown.stdout).toMatch(/uptime: +\d+s/);
    expect(shown.stdout).toContain('connected:  1: @alice (proj, connected)');
    expect(shown.stdout).toContain('trust:      local mode (no roster) — humans admin, agents operator');

    const json = await runCli(['status', '--json'], childEnv(dir));
    const status = JSON.parse(json.stdout) as { running: boolean; url: string; pid: number; uptimeSeconds: number; startedAt: string; connected: unknown[] };
    expect(status).toMatchObject({ running: true, url: hub.url, pid: hub.child.pid, connected: [{ session: 'proj', handle: 'alice', connection: 'connected' }], trust: { mode: 'local', localAccess: { human: 'admin', agent: 'operator' } } });
    expect(status.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(Date.parse(status.startedAt)).toBeLessThanOrEqual(Date.now());
  });

  it('stop - stops the hub gracefully and returns once the store is closed and the home free', async () => {
    const dir = home();
    const hub = await startServe(dir);
    const token = await joinOver(hub, { handle: 'alice' });
    const posted = await fetch(`${hub.url}/api/v1/threads/general/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'kept across the stop' }),
    });
    expect(posted.status).toBe(201);
    const exited = new Promise<number | null>((resolve) => hub.child.once('exit', (code) => resolve(code)));

    const stopped = await runCli(['stop', '--home', dir], childEnv(dir));
    expect(stopped.status).toBe(0);
    expect(stopped.stdout).toContain(`Parley hub stopped (pid ${hub.child.pid})`);
    // When stop returns, the hub has exited cleanly (SIGTERM, not a kill), its lock is released and the home is free.
    expect(await exited).toBe(0);
    expect(hub.output()).toContain('closed cleanly');
    expect(fs.existsSync(path.join(dir, 'hub.lock.json'))).toBe(false);
    const reopened = await openHub({ home: dir, logger: createSilentLogger() });
    try {
      const history = await reopened.actor('alice').history({ thread: 'general' });
      expect(JSON.stringify(history)).toContain('kept across the stop');
    } finally {
      await reopened.close();
    }

    const again = await runCli(['stop', '--home', dir], childEnv(dir));
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`No hub is running on home ${dir}; nothing to stop.`);
  });

  it('stop - does not signal a live process that the lock file names but that is not this home\'s hub', async () => {
    const dir = home();
    // Some other program now has the pid the lock file records (a hub killed outright left the file behind).
    const bystander = track(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
    await new Promise((resolve) => bystander.once('spawn', resolve));
    fs.writeFileSync(path.join(dir, 'hub.lock.json'), JSON.stringify({ pid: bystander.pid, startedAt: new Date().toISOString(), url: 'http://127.0.0.1:9', key: `ed25519:${'A'.repeat(43)}` }));
    fs.writeFileSync(path.join(dir, 'admin.token'), 'pa_left-behind\n', { mode: 0o600 });
    const refused = await runCli(['stop', '--home', dir], childEnv(dir));
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`pid ${bystander.pid}`);
    expect(refused.stderr).toContain('not signalled');
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
    const status = await runCli(['status', '--home', dir], childEnv(dir));
    expect(status.status).toBe(1);
    expect(status.stdout).toContain(`A hub (pid ${bystander.pid}) holds home ${dir}, but nothing answers at http://127.0.0.1:9`);
  });

  it('stop - refuses a timeout that is not a whole number of milliseconds, naming the flag', async () => {
    const dir = home();
    const bad = await runCli(['stop', '--timeout', 'soon'], childEnv(dir));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--timeout');
  });
});
