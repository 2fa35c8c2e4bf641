import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, childEnv, cliAt, startServe, track } from '../helpers/serve.js';
import { homePerTest } from './home-per-test.js';

const newHome = homePerTest();

const env = (home: string): NodeJS.ProcessEnv => childEnv(home);

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
    const home = newHome();
    const first = await startServe(home);
    expect(first.output()).toContain(path.join(home, 'parley.db'));
    const url = first.url;
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
    const home = newHome();
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
    const home = newHome();
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
    // A key serve also has a flag for (--port), given with --set: taken, and an error names --set, not the flag.
    const setPort = spawnSync(process.execPath, [BIN, 'serve', '--set', 'server.port=70000'], { env: env(home), encoding: 'utf8', timeout: 20_000 });
    expect(setPort.status).toBe(2);
    expect(setPort.stderr).toContain('Invalid config key "server.port" (from --set server.port)');
    const bothPort = spawnSync(process.execPath, [BIN, 'serve', '--set', 'server.port=0', '--port', '70000'], { env: env(home), encoding: 'utf8', timeout: 20_000 });
    expect(bothPort.status).toBe(2);
    expect(bothPort.stderr).toContain('Invalid config key "server.port" (from --port)');
  });

  it('cli - join registers through the running hub and prints a token; joining again keeps the identity; rotate revokes', async () => {
    const home = newHome();
    const hub = await startServe(home);
    const url = hub.url;
    const cli = cliAt(home, url);
    expect(fs.statSync(path.join(home, 'admin.token')).mode & 0o777).toBe(0o600);

    const first = cli('join', 'coder-1', '--client', 'claude', '--role', 'coder', '--session', 'proj', '--json');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const joined = JSON.parse(first.stdout) as { participant: { id: string; handle: string; profile: { client: string; roles: string[] } }; token: string };
    expect(joined.participant).toMatchObject({ handle: 'coder-1', profile: { client: 'claude', roles: ['coder'] } });
    const again = JSON.parse(cli('join', 'coder-1', '--session', 'proj', '--json').stdout) as { participant: { id: string }; token: string };
    expect(again.participant.id).toBe(joined.participant.id);
    expect(fs.statSync(path.join(home, 'credentials.json')).mode & 0o777).toBe(0o600);

    const whoami = async (token: string) => (await fetch(`${url}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await whoami(joined.token)).toBe(200);
    const rotated = cli('token', 'rotate', 'coder-1', '--session', 'proj', '--json');
    expect(rotated.status).toBe(0);
    const fresh = (JSON.parse(rotated.stdout) as { token: string }).token;
    expect(await whoami(joined.token)).toBe(401);
    expect(await whoami(again.token)).toBe(401);
    expect(await whoami(fresh)).toBe(200);

    const bad = cli('join', 'not a handle', '--session', 'proj');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('handle');
    // Without the admin token, registering is refused.
    const forged = await fetch(`${url}/api/v1/participants`, { method: 'POST', headers: { authorization: `Bearer ${fresh}`, 'content-type': 'application/json' }, body: '{"handle":"intruder"}' });
    expect(forged.status).toBe(401);
  });

  it('cli - join with no hub running on the home says how to start one and exits 1', () => {
    const home = newHome();
    const run = spawnSync(process.execPath, [BIN, 'join', 'coder-1'], { env: env(home), encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('parley serve');
  });

  it('cli - three terminals hold a conversation through the CLI', async () => {
    const home = newHome();
    const hub = await startServe(home);
    const url = hub.url;
    const cli = cliAt(home, url);
    expect(cli('join', 'human', '--kind', 'human').status).toBe(0);
    expect(cli('join', 'coder').status).toBe(0);
    expect(cli('join', 'reviewer').status).toBe(0);

    expect(cli('say', 'general', 'hello @coder, please start', '--as', 'human').stdout.trim()).toMatch(/^posted: seq \d+, id [0-9A-Z]{26}$/);
    const inbox = JSON.parse(cli('inbox', '--as', 'coder', '--json').stdout) as { items: Array<{ reason: string; event: { content: string } }> };
    expect(inbox.items.map((i) => [i.reason, i.event.content])).toContainEqual(['mention', 'hello @coder, please start']);
    expect(cli('dm', 'reviewer', 'can you review?', '--as', 'coder').status).toBe(0);
    const readable = cli('inbox', '--peek', '--as', 'reviewer');
    expect(readable.stdout).toMatch(/high\s+dm\s+.*@coder: can you review\? {2}← respond/);
    // Colours only on a terminal: piped output is plain; FORCE_COLOR asks for them anyway.
    const coloured = cliAt(home, url, { FORCE_COLOR: '1' })('search', 'please', '--as', 'reviewer').stdout;
    expect(coloured).toContain('\x1b[');
    expect(stripVTControlCharacters(coloured)).toContain('@human: hello @coder, please start');
    const read = cli('read', 'general', '--as', 'reviewer');
    expect(read.stdout).toMatch(/@human: hello @coder, please start/);
    expect(read.stdout).not.toContain('\x1b[');
    expect(cli('read', 'general', '--as', 'reviewer').stdout.trim()).toBe('(nothing new)');
    // The DM was only peeked at: wait returns it at once, and then nothing is left.
    expect(cli('wait', '--timeout', '50', '--as', 'reviewer').stdout).toContain('@coder: can you review?');
    expect(cli('wait', '--timeout', '50', '--as', 'reviewer').stdout.trim()).toBe('(nothing arrived)');
    // One-shot commands do not make anyone present: everyone here is offline, seen recently.
    expect(cli('who', '--as', 'human').stdout).toMatch(/@coder\s+offline/);
    expect(cli('threads', '--as', 'human').stdout).toMatch(/channel\s+#general/);
    expect(cli('search', 'please', '--as', 'reviewer').stdout).toContain('@human: hello @coder, please start');

    const noCredentials = cli('say', 'general', 'x');
    expect(noCredentials.status).toBe(1);
    expect(noCredentials.stderr).toContain('PARLEY_TOKEN');
    expect(cli('say', 'general').status).toBe(2);
    const paused = cli('say', 'nowhere', 'x', '--as', 'coder');
    expect(paused.status).toBe(1);
    expect(paused.stderr).toContain('No thread "nowhere"');
  });

  it('cli - a request and its response, a meeting, steering and a side channel, all from the command line', async () => {
    const home = newHome();
    const hub = await startServe(home);
    const url = hub.url;
    const cli = cliAt(home, url);
    for (const [handle, kind] of [['human', 'human'], ['coder', 'agent'], ['reviewer', 'agent']]) expect(cli('join', handle!, '--kind', kind!).status).toBe(0);

    const sent = JSON.parse(cli('request', 'reviewer', 'review', '--params', '{"file":"cache.ts"}', '--as', 'coder', '--json').stdout) as { request_id: string };
    const malformed = cli('respond', sent.request_id, 'Completed', '--result', '{not json', '--as', 'reviewer');
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toContain('Invalid --result');
    const short = sent.request_id.slice(-6);
    expect(cli('respond', sent.request_id, 'Completed', '--text', 'looks good', '--as', 'reviewer').stdout.trim()).toBe(`responded Completed to ${short}`);
    expect(cli('inbox', '--as', 'coder').stdout).toContain(`@reviewer answered ${short}: Completed — looks good`);

    expect(cli('meeting', 'say', 'standup', 'draft is up', '--as', 'coder').stdout.trim()).toBe('said #1 in standup');
    expect(cli('meeting', 'hear', 'standup', '--as', 'human').stdout).toContain('#1 @coder: draft is up');

    expect(cli('thread', 'create', 'design', '--member', 'coder', '--as', 'human').stdout).toMatch(/^created #design/);
    expect(cli('pause', 'design', '--as', 'human').stdout).toMatch(/^paused the thread: seq \d+/);
    const refused = cli('say', 'design', 'hello?', '--as', 'coder');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('paused');
    expect(cli('resume', 'design', '--as', 'human').status).toBe(0);
    const side = cli('thread', 'side', 'design', 'eviction policy', '--as', 'coder', '--json');
    const sideId = (JSON.parse(side.stdout) as { id: string }).id;
    expect(cli('thread', 'close', sideId, 'LRU with a cap', '--as', 'coder').stdout).toMatch(/^closed; summary posted/);
    const transcript = cli('export', 'design', '--as', 'human');
    expect(transcript.stdout).toContain('LRU with a cap');
    expect(cli('thread', 'bogus', '--as', 'human').status).toBe(2);
  });

  it('cli - tail follows a thread live and, across a hub restart, misses nothing and repeats nothing', async () => {
    const home = newHome();
    let hub = await startServe(home);
    const url = hub.url;
    const port = new URL(url).port;
    const cli = cliAt(home, url);
    expect(cli('join', 'human', '--kind', 'human').status).toBe(0);
    expect(cli('join', 'coder').status).toBe(0);

    const tailer = spawn(process.execPath, [BIN, 'tail', 'general', '--last', '0', '--as', 'human'], { env: { ...env(home), PARLEY_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
    track(tailer);
    let seen = '';
    const waiters: Array<() => void> = [];
    tailer.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      for (const wake of waiters.splice(0)) wake();
    });
    const until = async (text: string): Promise<void> => {
      while (!seen.includes(text)) await new Promise<void>((resolve) => waiters.push(resolve));
    };

    // The tail connects asynchronously: keep posting until the first line shows (no fixed sleep).
    for (let i = 0; !seen.includes('@coder:'); i++) {
      expect(cli('say', 'general', `warm-up ${i}`, '--as', 'coder').status).toBe(0);
      await Promise.race([until('@coder:'), new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    expect(cli('say', 'general', 'before restart', '--as', 'coder').status).toBe(0);
    await until('before restart');

    const exited = new Promise((resolve) => hub.child.once('exit', resolve));
    hub.child.kill('SIGTERM');
    await exited;
    hub = await startServe(home, { port });
    expect(cli('say', 'general', 'after restart 1', '--as', 'coder').status).toBe(0);
    expect(cli('say', 'general', 'after restart 2', '--as', 'coder').status).toBe(0);
    await until('after restart 2');
    const lines = seen.trim().split('\n').filter((l) => !l.includes('warm-up'));
    expect(lines.map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''))).toEqual(['@coder: before restart', '@coder: after restart 1', '@coder: after restart 2']);
  });
});

describe('cli doctor', () => {
  it('doctor - reports each check, passes against a running hub with a password, and says what to do when one fails', async () => {
    const home = newHome();
    // No hub, and the configured port held by another program.
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      squatter.close();
    });
    const takenPort = (squatter.address() as net.AddressInfo).port;
    const idle = spawnSync(process.execPath, [BIN, 'doctor', '--json'], {
      env: { ...env(home), PARLEY_URL: 'http://127.0.0.1:9', PARLEY_PORT: String(takenPort) },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(idle.status).toBe(1);
    const report = JSON.parse(idle.stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean; detail: string }> };
    expect(report.checks.map((c) => c.name)).toEqual(['home', 'config', 'settings', 'store', 'hub', 'port', 'password', 'trust', 'peers']);
    // No roster configured: local mode, said plainly with the access each kind gets.
    expect(report.checks.find((c) => c.name === 'trust')).toEqual({ name: 'trust', ok: true, detail: 'local mode (no roster) — humans admin, agents operator' });
    expect(report.checks.find((c) => c.name === 'hub')?.detail).toContain('parley serve');
    expect(report.checks.find((c) => c.name === 'port')).toMatchObject({ ok: false, detail: expect.stringContaining(`${takenPort} is taken`) });

    const { url } = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: 'pw' } });
    const healthy = spawnSync(process.execPath, [BIN, 'doctor'], { env: { ...env(home), PARLEY_URL: url, PARLEY_WEBUI_PASSWORD: 'pw' }, encoding: 'utf8', timeout: 20_000 });
    expect(healthy.stdout).toMatch(/^ok +store +.*integrity ok/m);
    expect(healthy.stdout).toMatch(/^ok +trust +local mode \(no roster\) — humans admin, agents operator$/m);
    // The port the hub bound, and the setting it runs with (serve ran with --port 0), not the config file's.
    expect(healthy.stdout).toContain(`ok    port      the hub listens on port ${new URL(url).port} (configured 0: it picked a free port)`);
    expect(healthy.stdout).toMatch(/^ok +settings +settings of the running hub \(pid \d+\)$/m);
    expect(healthy.status).toBe(0);
  });
});
