import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { liveHub, processAlive } from '../../src/client/live-hub.js';
import { claude } from '../fixtures/client-events.js';
import { tempHome } from '../helpers/hub.js';
import { wrap } from '../helpers/mcp.js';
import { BIN, stopHubs, track } from '../helpers/serve.js';
import { keptCredentials, startStandIn, STAND_IN_TEXT, type StandIn } from '../helpers/stand-in-hub.js';
import { runCli } from './run-cli.js';

/**
 * With no hub running on its home, a command never falls back to the default
 * address with a credential: the commands that start a hub start this home's,
 * with this home's settings, and use it once it has proved itself; the others
 * fail saying no hub runs there. The `parley` processes here load
 * test/fixtures/default-address.mjs, which sends what they address to
 * 127.0.0.1:7420 to a stand-in on an ephemeral port (and lets nothing listen on
 * 7420), so "the default address" answers /healthz as a hub would.
 */
const DEFAULT_ADDRESS = pathToFileURL(path.resolve(import.meta.dirname, '../fixtures/default-address.mjs')).href;
const cleanups: Array<() => Promise<void> | void> = [];
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close().catch(() => undefined);
  await stopHubs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A home with no hub running, bot's token and an admin token kept in it (a hub ran here once), and a stand-in at the default address. */
async function homeWithoutHub(config?: unknown): Promise<{ dir: string; standIn: StandIn; env: NodeJS.ProcessEnv }> {
  const { home: dir, cleanup } = tempHome();
  cleanups.push(cleanup);
  // A hub this test makes a command start is stopped by the pid it wrote in the lock file.
  cleanups.push(() => stopStartedHub(dir));
  if (config !== undefined) fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  keptCredentials(dir, { 'default/bot': 'pt_secret_of_bot' });
  const standIn = await startStandIn();
  cleanups.push(standIn.close);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
  return { dir, standIn, env: { ...env, HOME: dir, NODE_OPTIONS: `--import=${DEFAULT_ADDRESS}`, DEFAULT_ADDRESS_PORT: String(standIn.port) } };
}

async function stopStartedHub(dir: string): Promise<void> {
  const hub = liveHub(dir);
  if (!hub) return;
  process.kill(hub.pid, 'SIGTERM');
  await expect.poll(() => processAlive(hub.pid), { timeout: 10_000 }).toBe(false);
}

describe('no hub on the home', () => {
  it('no hub - the default address typed as PARLEY_URL is the user\'s choice, used as given (so the stand-in here answers at it)', async () => {
    const { dir, standIn, env } = await homeWithoutHub();
    const said = await runCli(['say', 'general', 'hi', '--as', 'bot', '--home', dir], { ...env, PARLEY_URL: 'http://127.0.0.1:7420' });
    expect(said.status).toBe(0);
    expect(standIn.authorizations()).toEqual(['Bearer pt_secret_of_bot']);
  });

  it('no hub - "parley say" sends nothing to the default address and says no hub runs on the home and how to start one', async () => {
    const { dir, standIn, env } = await homeWithoutHub();
    const said = await runCli(['say', 'general', 'hi', '--as', 'bot', '--home', dir], env);
    expect(said.status).toBe(1);
    expect(said.stderr).toBe(`parley: No hub is running on home ${dir}; start one with "parley serve" (same --home), or give a hub's address with --url or PARLEY_URL.\n`);
    expect(standIn.requests).toEqual([]);
  });

  it('no hub - "parley hook" sends nothing to the default address and adds nothing to the agent\'s context', async () => {
    const { dir, standIn, env } = await homeWithoutHub();
    const child = track(spawn(process.execPath, [BIN, 'hook', 'claude', 'user-prompt-submit', '--as', 'bot', '--home', dir], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdin!.end(JSON.stringify(claude.userPromptSubmit()));
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
    expect(output).not.toContain(STAND_IN_TEXT);
    expect(output).toBe('');
    expect(standIn.requests).toEqual([]);
  });

  it('no hub - "parley mcp" on a home configured with port 0 starts that home\'s hub on a port of its own and works through it, sending nothing to the default address', async () => {
    const { dir, standIn, env } = await homeWithoutHub({ server: { port: 0 } });
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--as', 'bot', '--home', dir], env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'no-hub-test', version: '1.0.0' });
    await client.connect(transport);
    const agent = wrap(client, () => 0, () => client.close());
    closers.push(agent.close);
    expect((await agent.call('whoami')).value).toMatchObject({ handle: 'bot', session: 'default' });
    const hub = liveHub(dir);
    const port = new URL(hub!.url!).port;
    expect(port).not.toBe('7420');
    expect(port).not.toBe(String(standIn.port));
    expect(fs.readFileSync(path.join(dir, 'hub.log'), 'utf8')).toContain(`API:    ${hub!.url}/api/v1`);
    expect(standIn.requests).toEqual([]);
  }, 30_000);

  it('no hub - "parley install" on a home configured with port 0 starts that home\'s hub, joins through it, and sends nothing to the default address', async () => {
    const { dir, standIn, env } = await homeWithoutHub({ server: { port: 0 } });
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    const installed = await runCli(['install', 'claude', '--as', 'coder', '--dir', project, '--home', dir], env);
    expect(installed.stderr).toMatch(new RegExp(`^parley: no hub runs on home ${dir}; started one \\(pid \\d+, log `));
    expect(installed.status).toBe(0);
    expect(installed.stdout).toContain(`Joined @coder in session "default" (its token is kept in ${dir})`);
    expect(new URL(liveHub(dir)!.url!).port).not.toBe('7420');
    expect(fs.readdirSync(project).sort()).toEqual(['.claude', '.mcp.json']);
    expect(standIn.requests).toEqual([]);
  }, 30_000);

  it('no hub - "parley mcp" fails saying so when the home\'s hub cannot start (its configured port is taken), and sends nothing anywhere', async () => {
    const { dir, standIn, env } = await homeWithoutHub();
    // The stand-in holds the port this home's config names.
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ server: { port: standIn.port } }));
    const served = await runCli(['mcp', '--as', 'bot', '--home', dir], env);
    expect(served.status).toBe(1);
    expect(served.stderr).toContain(`parley: The hub started on home ${dir} stopped before serving (exit code 1); see ${path.join(dir, 'hub.log')}.`);
    expect(fs.readFileSync(path.join(dir, 'hub.log'), 'utf8')).toContain(`Port ${standIn.port} on 127.0.0.1 is already in use`);
    expect(standIn.requests).toEqual([]);
  }, 30_000);
});
