import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { wrap, type McpTestClient } from '../helpers/mcp.js';
import { BIN, childEnv, joinOver, startServe, stopHubs } from '../helpers/serve.js';
import { LOG_LOADS, modulesInLog } from './loaded-modules.js';

/**
 * `parley mcp` and the hub's local socket, as a user runs them: `parley serve`
 * and `parley mcp` in child processes, the official SDK client on stdio. Which
 * way the calls go is read from the modules `parley mcp` loaded: the socket's
 * link, or the REST client (undici's pool).
 */
const clients: McpTestClient[] = [];
const cleanups: Array<() => void> = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function home(): string {
  const made = tempHome();
  cleanups.push(made.cleanup);
  return made.home;
}

/** `parley mcp ARGS` spawned by the SDK client; `loaded()` lists the files it has loaded so far. */
async function agent(dir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<McpTestClient & { loaded: () => string[] }> {
  const log = path.join(dir, `loads-${clients.length}.txt`);
  fs.writeFileSync(log, '');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', LOG_LOADS, BIN, 'mcp', ...args],
    env: childEnv(dir, { ...env, LOAD_LOG_FILE: log }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'socket-test-agent', version: '1.0.0' });
  await client.connect(transport);
  const wrapped = wrap(client, () => 0, () => client.close());
  clients.push(wrapped);
  return { ...wrapped, loaded: () => modulesInLog(log) };
}

const OVER_SOCKET = 'dist/src/client/socket-link.js';
const OVER_REST = 'dist/src/client/rest-participant.js';

describe('parley mcp and the local socket', () => {
  it('mcp socket - on the home of a running hub every call goes through its socket: no HTTP client loaded, presence, the client name and errors as over REST', async () => {
    const dir = home();
    const hub = await startServe(dir);
    expect(fs.lstatSync(path.join(dir, 'hub.sock')).isSocket()).toBe(true);
    const coder = await agent(dir, { PARLEY_URL: hub.url }, ['--as', 'coder']);
    const posted = await coder.call('chat_post', { text: 'through the socket' });
    expect(posted.value).toMatchObject({ seq: expect.any(Number) });
    await expect.poll(async () => ((await coder.call('whoami')).value.profile as { client?: string }).client).toBe('socket-test-agent');
    expect((await coder.call('chat_post', { text: 'x', thread: 'nowhere' })).text).toMatch(/^NOT_FOUND: /);
    const who = (await coder.call('who')).value.participants as Array<{ handle: string; connection: string }>;
    expect(who.find((p) => p.handle === 'coder')?.connection).toBe('connected');
    const loaded = coder.loaded();
    expect(loaded).toContain(OVER_SOCKET);
    expect(loaded).not.toContain(OVER_REST);
    expect(loaded.filter((file) => file.startsWith('node_modules/undici/'))).toEqual([]);
  });

  it('mcp socket - with the socket missing (a hub without one) parley mcp works over REST', async () => {
    const dir = home();
    const hub = await startServe(dir);
    fs.rmSync(path.join(dir, 'hub.sock'));
    const coder = await agent(dir, { PARLEY_URL: hub.url }, ['--as', 'coder']);
    expect((await coder.call('chat_post', { text: 'over REST' })).value).toMatchObject({ seq: expect.any(Number) });
    expect((await coder.call('chat_post', { text: 'x', thread: 'nowhere' })).text).toMatch(/^NOT_FOUND: /);
    expect(coder.loaded()).toContain(OVER_REST);
  });

  it('mcp socket - a hub at another address than the home\'s (PARLEY_URL to another hub) is reached over REST, never through this home\'s socket', async () => {
    const [mine, theirs] = [home(), home()];
    await startServe(mine);
    const other = await startServe(theirs);
    const token = await joinOver(other, { handle: 'visitor' });
    const visitor = await agent(mine, { PARLEY_URL: other.url, PARLEY_TOKEN: token }, ['--as', 'visitor']);
    expect((await visitor.call('chat_post', { text: 'to the other hub' })).value).toMatchObject({ seq: expect.any(Number) });
    expect(visitor.loaded()).toContain(OVER_REST);
    const read = await fetch(`${other.url}/api/v1/threads/general/history`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await read.json()) as { events: Array<{ content: unknown }> }).events.map((e) => e.content)).toContain('to the other hub');
  });

  it('mcp socket - a killed hub leaves its socket file; the next hub on the home replaces it and parley mcp uses it', async () => {
    const dir = home();
    const first = await startServe(dir);
    await first.stop('SIGKILL');
    expect(fs.lstatSync(path.join(dir, 'hub.sock')).isSocket()).toBe(true);
    const second = await startServe(dir);
    const coder = await agent(dir, { PARLEY_URL: second.url }, ['--as', 'coder']);
    expect((await coder.call('chat_post', { text: 'after the crash' })).value).toMatchObject({ seq: expect.any(Number) });
    expect(coder.loaded()).toContain(OVER_SOCKET);
    expect(coder.loaded()).not.toContain(OVER_REST);
    await second.stop();
    expect(fs.existsSync(path.join(dir, 'hub.sock'))).toBe(false);
  });
});
