import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/parley');
const children: ChildProcess[] = [];
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function env(home: string): NodeJS.ProcessEnv {
  const { PARLEY_PORT: _p, PARLEY_HOME: _h, ...rest } = process.env;
  return { ...rest, PARLEY_HOME: home };
}

/** Starts `parley serve` and resolves once it says it is running. */
function startServe(home: string): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: env(home), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('running')) resolve({ child, output: () => out });
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${out}`)));
  });
}

describe('cli', () => {
  it('cli - --help lists the commands and exits 0; an unknown command exits 2', () => {
    const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('serve');
    const bad = spawnSync(process.execPath, [BIN, 'frobnicate'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('parley --help');
  });

  it('cli - serve names where its data lives, refuses a second hub on the home, and stops cleanly on SIGTERM', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const first = await startServe(home);
    expect(first.output()).toContain(path.join(home, 'parley.db'));
    const url = /API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(first.output())?.[1];
    expect(url).toBeDefined();
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    // Over a real socket too, a foreign Host header (DNS rebinding) is refused.
    const rebinding = await new Promise<number | undefined>((resolve, reject) => {
      http.get(`${url}/healthz`, { headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject);
    });
    expect(rebinding).toBe(403);
    const second = spawnSync(process.execPath, [BIN, 'serve', '--port', '0'], { env: env(home), encoding: 'utf8', timeout: 20_000 });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);
    expect(second.stderr).toContain(url);
    const exited = new Promise<number | null>((resolve) => first.child.once('exit', (code) => resolve(code)));
    first.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(first.output()).toContain('closed cleanly');
  });

  it('cli - serve on a port already taken exits 1 naming the port, and leaves the home free', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const run = spawnSync(process.execPath, [BIN, 'serve', '--port', String(port)], { env: env(home), encoding: 'utf8', timeout: 20_000 });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`Port ${port}`);
      // The refused hub released the home: another one can start on it.
      const next = await startServe(home);
      expect(next.output()).toContain('running');
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('cli - an invalid config value exits 2 naming the key', () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const run = spawnSync(process.execPath, [BIN, 'serve'], {
      env: { ...env(home), PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS: 'lots' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('chat.limits.maxMessageChars');
    expect(run.stderr).toContain('PARLEY_CHAT_LIMITS_MAX_MESSAGE_CHARS');
    const flag = spawnSync(process.execPath, [BIN, 'serve', '--set', 'meeting.ringSize=0'], { env: env(home), encoding: 'utf8', timeout: 20_000 });
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain('meeting.ringSize');
    expect(flag.stderr).toContain('--set meeting.ringSize');
    const unknown = spawnSync(process.execPath, [BIN, 'serve', '--set', 'chat.enabeld=false'], { env: env(home), encoding: 'utf8', timeout: 20_000 });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('chat.enabeld');
  });
});
