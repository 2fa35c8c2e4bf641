import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { linkToHub } from '../../src/middleware/hub-link.js';
import { caught, tempHome } from '../helpers/hub.js';
import { BIN, startServe, stopHubs, track } from '../helpers/serve.js';
import { homeHubKey, keptCredentials, lockNaming, startStandIn, STAND_IN_TEXT, type StandIn } from '../helpers/stand-in-hub.js';
import { claude } from '../fixtures/client-events.js';
import { runCli } from './run-cli.js';

/**
 * A local client sends a credential to the hub its home's lock file names
 * only once the process at that address has proved it holds the hub's key.
 * Here the lock file names a live pid and a stand-in that answers /healthz
 * as a hub does and claims the home's key (as when a hub died, its pid was
 * reused and another program took its port): no path sends it a token, and
 * nothing it says reaches an agent.
 */
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  await stopHubs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TOKEN = 'pt_secret_of_bot';

/** A home whose lock file names a stand-in, with bot's token and the admin token kept in it. */
async function homeNamingStandIn(): Promise<{ dir: string; standIn: StandIn }> {
  const { home: dir, cleanup } = tempHome();
  cleanups.push(cleanup);
  const standIn = await startStandIn({ claimKey: homeHubKey(dir) });
  cleanups.push(standIn.close);
  lockNaming(dir, standIn.url);
  keptCredentials(dir, { 'default/bot': TOKEN });
  return { dir, standIn };
}

/** The environment of a command run from another terminal, or by an agent CLI: no PARLEY_* at all. */
function bareEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
  return { ...env, ...extra };
}

/** `parley hook` as an agent CLI runs it: the event JSON on stdin. */
function runHook(args: string[], event: unknown): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = track(spawn(process.execPath, [BIN, 'hook', ...args], { env: bareEnv(), stdio: ['pipe', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin!.end(JSON.stringify(event));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the home\'s hub proves itself before it gets a credential', () => {
  it('hub proof - "parley say" sends no token to a stand-in at the address the lock file names, and says it is not the home\'s hub', async () => {
    const { dir, standIn } = await homeNamingStandIn();
    const said = await runCli(['say', 'general', 'hello', '--as', 'bot', '--home', dir], bareEnv());
    expect(said.status).toBe(1);
    expect(said.stdout).toBe('');
    expect(said.stderr).toContain(`The hub of home ${dir} (pid ${process.pid}) was not reached: the process at ${standIn.url} named this home's hub key but could not sign with it, so no credential was sent to it.`);
    expect(standIn.authorizations()).toEqual([]);
    expect(standIn.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /hub-proof']);
  });

  it('hub proof - "parley hook" sends the stand-in no token and gives the agent none of its text: one line on stderr, exit 0', async () => {
    const { dir, standIn } = await homeNamingStandIn();
    const hooked = await runHook(['claude', 'user-prompt-submit', '--as', 'bot', '--home', dir], claude.userPromptSubmit());
    expect(hooked.code).toBe(0);
    expect(hooked.stdout).toBe('');
    expect(hooked.stdout + hooked.stderr).not.toContain(STAND_IN_TEXT);
    expect(hooked.stderr).toBe(`parley hook: the process at ${standIn.url} named this home's hub key but could not sign with it; the token was not sent to it\n`);
    expect(standIn.authorizations()).toEqual([]);
  });

  it('hub proof - "parley mcp" sends the stand-in neither the kept token nor the admin token, and exits saying why', async () => {
    const { dir, standIn } = await homeNamingStandIn();
    const served = await runCli(['mcp', '--as', 'bot', '--home', dir], bareEnv());
    expect(served.status).toBe(1);
    expect(served.stdout).toBe('');
    expect(served.stderr).toContain(`was not reached: the process at ${standIn.url} named this home's hub key but could not sign with it`);
    expect(standIn.authorizations()).toEqual([]);
    // It did not start a hub of its own either: one holds the home, as far as the lock file says.
    expect(fs.existsSync(path.join(dir, 'hub.log'))).toBe(false);
  });

  it('hub proof - "parley install" sends the stand-in no token and writes no client config', async () => {
    const { dir, standIn } = await homeNamingStandIn();
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    const installed = await runCli(['install', 'claude', '--as', 'bot', '--dir', project, '--home', dir], bareEnv({ HOME: dir }));
    expect(installed.status).toBe(1);
    expect(installed.stderr).toContain(`was not reached: the process at ${standIn.url} named this home's hub key but could not sign with it`);
    expect(standIn.authorizations()).toEqual([]);
    expect(fs.readdirSync(project)).toEqual([]);
  });

  it('hub proof - "parley status" does not send the stand-in the admin token, and says the process there is not the hub', async () => {
    const { dir, standIn } = await homeNamingStandIn();
    const status = await runCli(['status', '--home', dir], bareEnv());
    expect(status.status).toBe(1);
    expect(status.stdout).toBe(`A hub (pid ${process.pid}) holds home ${dir}, but the process at ${standIn.url} named this home's hub key but could not sign with it.\n`);
    expect(standIn.authorizations()).toEqual([]);
  });

  it('hub proof - the library\'s hub link sends the stand-in no token and fails with HUB_CLOSED saying why', async () => {
    const { dir, standIn } = await homeNamingStandIn();
    const error = await caught(() => linkToHub({ handle: 'bot', home: dir }, {}));
    expect(error.code).toBe('HUB_CLOSED');
    expect(error.message).toContain(`the process at ${standIn.url} named this home's hub key but could not sign with it, so no credential was sent to it`);
    expect(standIn.authorizations()).toEqual([]);
  });

  it('hub proof - a program that knows nothing of the proof gets no token either', async () => {
    const { home: dir, cleanup } = tempHome();
    cleanups.push(cleanup);
    const standIn = await startStandIn();
    cleanups.push(standIn.close);
    lockNaming(dir, standIn.url);
    keptCredentials(dir, { 'default/bot': TOKEN });
    const read = await runCli(['inbox', '--as', 'bot', '--home', dir], bareEnv());
    expect(read.status).toBe(1);
    expect(read.stderr).toContain(`the process at ${standIn.url} gave no proof that it is this home's hub (it answered HTTP 404)`);
    expect(standIn.authorizations()).toEqual([]);
  });

  it('hub proof - another home\'s hub at the address the lock file names is refused: its key is not this home\'s', async () => {
    const { home: other, cleanup: cleanOther } = tempHome();
    cleanups.push(cleanOther);
    const otherHub = await startServe(other);
    const { home: dir, cleanup } = tempHome();
    cleanups.push(cleanup);
    lockNaming(dir, otherHub.url);
    keptCredentials(dir, { 'default/bot': TOKEN });
    const said = await runCli(['say', 'general', 'hello', '--as', 'bot', '--home', dir], bareEnv());
    expect(said.status).toBe(1);
    expect(said.stderr).toContain(`the process at ${otherHub.url} is another hub (key ${homeHubKey(other)}), not this home's, so no credential was sent to it.`);
  });

  it('hub proof - the home\'s own hub proves itself: found through the lock file, it gets the command', async () => {
    const { home: dir, cleanup } = tempHome();
    cleanups.push(cleanup);
    const hub = await startServe(dir);
    const lock = JSON.parse(fs.readFileSync(path.join(dir, 'hub.lock.json'), 'utf8')) as { url: string; key: string };
    expect(lock).toMatchObject({ url: hub.url, key: homeHubKey(dir) });
    expect((await runCli(['join', 'bot', '--home', dir], bareEnv())).status).toBe(0);
    const said = await runCli(['say', 'general', 'proved', '--as', 'bot', '--home', dir], bareEnv());
    expect(said.stderr).toBe('');
    expect(said.stdout).toMatch(/^posted: seq \d+/);
  });
});
