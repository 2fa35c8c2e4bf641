import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hubUrl } from '../../src/client/hub-address.js';
import { liveHub } from '../../src/client/live-hub.js';
import { startServe } from '../helpers/serve.js';
import { runCli } from './run-cli.js';
import { homePerTest } from './home-per-test.js';

/**
 * A command given a home talks to the hub running on that home, wherever it
 * listens (its lock file records the address), unless --url or PARLEY_URL
 * names another; and doctor asks that hub whether sign-in is on.
 */
const home = homePerTest();

/** The environment of a command run from another terminal: no PARLEY_* at all, not even PARLEY_HOME. */
function bareEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
  return { ...env, ...extra };
}

/** A pid that was alive a moment ago and is not any more. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('the hub a command talks to', () => {
  it('hub address - join HANDLE --home DIR and then say --home DIR reach that home\'s hub on its own port', async () => {
    const dir = home();
    const hub = await startServe(dir);
    // No PARLEY_URL and a port that is not 7420: only the home's lock file says where the hub is.
    expect(new URL(hub.url).port).not.toBe('7420');
    const joined = await runCli(['join', 'alice', '--home', dir, '--json'], bareEnv());
    expect(joined.stderr).toBe('');
    expect(joined.status).toBe(0);
    expect((JSON.parse(joined.stdout) as { participant: { handle: string } }).participant.handle).toBe('alice');
    const said = await runCli(['say', 'general', 'found you', '--as', 'alice', '--home', dir], bareEnv());
    expect(said.stderr).toBe('');
    expect(said.status).toBe(0);
    expect(said.stdout).toMatch(/^posted: seq \d+, id /);
    // PARLEY_HOME names the home just as well as --home.
    const read = await runCli(['threads', '--as', 'alice'], bareEnv({ PARLEY_HOME: dir }));
    expect(read.status).toBe(0);
    expect(read.stdout).toContain('#general');
  });

  it('hub address - --url wins over PARLEY_URL, which wins over the home\'s hub', async () => {
    const dir = home();
    const hub = await startServe(dir);
    const closed = 'http://127.0.0.1:9';
    const viaEnv = await runCli(['join', 'bob', '--home', dir], bareEnv({ PARLEY_URL: closed }));
    expect(viaEnv.status).toBe(1);
    expect(viaEnv.stderr).toContain(`No hub answers at ${closed}`);
    const viaFlag = await runCli(['join', 'bob', '--home', dir, '--url', hub.url], bareEnv({ PARLEY_URL: closed }));
    expect(viaFlag.stderr).toBe('');
    expect(viaFlag.status).toBe(0);
    expect(await hubUrl({ home: dir, url: 'http://127.0.0.1:1/' }, { PARLEY_URL: closed })).toBe('http://127.0.0.1:1');
    expect(await hubUrl({ home: dir }, { PARLEY_URL: closed })).toBe(closed);
    expect(await hubUrl({ home: dir }, {})).toBe(hub.url);
    expect(await hubUrl({}, { PARLEY_HOME: dir })).toBe(hub.url);
  });

  it('hub address - a --url or PARLEY_URL that is not an http(s) URL is a usage error naming it, and nothing is sent', async () => {
    const dir = home();
    const badFlag = await runCli(['join', 'bob', '--home', dir, '--url', 'notaurl'], bareEnv());
    expect(badFlag.status).toBe(2);
    expect(badFlag.stderr).toContain('Invalid --url: "notaurl" is not an http:// or https:// URL');
    const badEnv = await runCli(['say', 'general', 'hi', '--home', dir], bareEnv({ PARLEY_URL: 'ftp://127.0.0.1:7420', PARLEY_TOKEN: 'pt_unused' }));
    expect(badEnv.status).toBe(2);
    expect(badEnv.stderr).toContain('Invalid PARLEY_URL: "ftp://127.0.0.1:7420"');
    expect(fs.existsSync(path.join(dir, 'credentials.json'))).toBe(false);
  });

  it('hub address - a lock file left by a hub that died is not trusted: its pid is checked', async () => {
    const dir = home();
    fs.writeFileSync(path.join(dir, 'hub.lock.json'), JSON.stringify({ pid: await deadPid(), startedAt: new Date().toISOString(), url: 'http://127.0.0.1:4' }));
    expect(liveHub(dir)).toBeUndefined();
    // No hub on the home: no address at all (never the default one), and the error says how to start one.
    await expect(hubUrl({ home: dir }, {})).rejects.toMatchObject({ code: 'HUB_CLOSED', message: expect.stringContaining(`No hub is running on home ${dir}; start one with "parley serve"`) });
    fs.writeFileSync(path.join(dir, 'hub.lock.json'), JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString(), url: 'http://127.0.0.1:4' }));
    expect(liveHub(dir)).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:4' });
    fs.writeFileSync(path.join(dir, 'hub.lock.json'), '{"pid": "not a pid"');
    expect(liveHub(dir)).toBeUndefined();
  });

  it('doctor - asks the running hub whether a password is set, not its own environment', async () => {
    const withPassword = home();
    await startServe(withPassword, { env: { PARLEY_WEBUI_PASSWORD: 'the hub has one' } });
    const report = async (dir: string, env: NodeJS.ProcessEnv) => {
      const run = await runCli(['doctor', '--home', dir, '--json'], env);
      return { status: run.status, checks: (JSON.parse(run.stdout) as { checks: Array<{ name: string; ok: boolean; detail: string }> }).checks };
    };
    // doctor runs without the password in its environment, and finds the hub through the home.
    const signedIn = await report(withPassword, bareEnv());
    expect(signedIn.checks.find((c) => c.name === 'hub')).toMatchObject({ ok: true });
    expect(signedIn.checks.find((c) => c.name === 'password')).toMatchObject({ ok: true, detail: expect.stringContaining('running hub') });
    expect(signedIn.status).toBe(0);

    // And the other way round: a password in doctor's environment does not make the hub have one.
    const without = home();
    await startServe(without);
    const open = await report(without, bareEnv({ PARLEY_WEBUI_PASSWORD: 'only mine' }));
    expect(open.checks.find((c) => c.name === 'password')).toMatchObject({ ok: false, detail: expect.stringContaining('not set on the running hub') });
    expect(open.status).toBe(1);
  });
});
