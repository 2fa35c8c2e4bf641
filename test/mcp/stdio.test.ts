import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { wrap, type McpTestClient } from '../helpers/mcp.js';
import { BIN, childEnv, joinOver, startServe, stopHubs } from '../helpers/serve.js';

/** `parley mcp --as HANDLE` on real stdio, spawned by the official SDK client as an agent CLI would. */
const clients: McpTestClient[] = [];
const cleanups: Array<() => void> = [];
const startedHubs: number[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await stopHubs();
  // Hubs that `parley mcp` started in the background: stopped by the pid they wrote in their lock file.
  for (const pid of startedHubs.splice(0)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  }
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stdioClient(home: string, url: string, args: string[]): Promise<McpTestClient & { stderr: () => string; protocolErrors: Error[] }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: childEnv(home, { PARLEY_URL: url }) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const protocolErrors: Error[] = [];
  transport.onerror = (error) => protocolErrors.push(error);
  const client = new Client({ name: 'stdio-test-agent', version: '1.0.0' });
  await client.connect(transport);
  const wrapped = { ...wrap(client, () => 0, () => client.close()), stderr: () => stderr, protocolErrors };
  clients.push(wrapped);
  return wrapped;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('mcp over stdio', () => {
  it('stdio - usage errors exit 2 with a one-line reason and start nothing', () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const env = childEnv(home, { PARLEY_URL: 'http://127.0.0.1:9' });
    const noHandle = spawnSync(process.execPath, [BIN, 'mcp'], { env, encoding: 'utf8', timeout: 20_000 });
    expect(noHandle.status).toBe(2);
    expect(noHandle.stderr).toContain('mcp needs --as HANDLE');
    expect(noHandle.stdout).toBe('');
    const unknownFlag = spawnSync(process.execPath, [BIN, 'mcp', '--as', 'x', '--colour'], { env, encoding: 'utf8', timeout: 20_000 });
    expect(unknownFlag.status).toBe(2);
    expect(unknownFlag.stderr).toContain('--colour');
    expect(fs.existsSync(path.join(home, 'hub.log'))).toBe(false);
  });

  it('stdio - an agent joins on first use, posts and reads through the hub; stdout carries only protocol', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const hub = await startServe(home);
    const human = await joinOver(hub, { handle: 'human', session: 'proj', profile: { kind: 'human' } });
    const coder = await stdioClient(home, hub.url, ['--as', 'coder', '--session', 'proj']);
    expect(coder.client.getInstructions()).toContain('You are @coder (agent) in session "proj"');
    const posted = await coder.call('chat_post', { text: 'hello from stdio, @human' });
    expect(posted.value).toMatchObject({ seq: expect.any(Number), mentions: ['human'] });
    const inbox = (await (await fetch(`${hub.url}/api/v1/inbox`, { headers: { authorization: `Bearer ${human}` } })).json()) as { items: Array<{ event: { author: string; content: string } }> };
    expect(inbox.items.map((i) => [i.event.author, i.event.content])).toContainEqual(['coder', 'hello from stdio, @human']);
    const whoami = await coder.call('whoami');
    // The client's name from initialize went into the profile.
    await expect.poll(async () => ((await coder.call('whoami')).value.profile as { client?: string }).client).toBe('stdio-test-agent');
    expect(whoami.value).toMatchObject({ handle: 'coder', session: 'proj' });
    const error = await coder.call('chat_post', { text: 'x', thread: 'nowhere' });
    expect(error.text).toMatch(/^NOT_FOUND: /);
    expect(coder.protocolErrors).toEqual([]);
  });

  it('stdio - three agents starting at once with no hub running end with exactly one hub', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const url = `http://127.0.0.1:${await freePort()}`;
    const agents = await Promise.all(['a1', 'a2', 'a3'].map((handle) => stdioClient(home, url, ['--as', handle])));
    const lock = JSON.parse(fs.readFileSync(path.join(home, 'hub.lock.json'), 'utf8')) as { pid: number };
    startedHubs.push(lock.pid);
    expect(alive(lock.pid)).toBe(true);
    const log = fs.readFileSync(path.join(home, 'hub.log'), 'utf8');
    expect(log.match(/Parley hub running/g)).toHaveLength(1);
    // Every agent talks to that one hub and sees the others.
    await agents[0]!.call('chat_post', { text: 'one hub for all of us' });
    for (const agent of agents.slice(1)) {
      const read = await agent.call('chat_read');
      expect((read.value.messages as Array<{ text: string }>).map((m) => m.text)).toContain('one hub for all of us');
    }
    const who = await agents[2]!.call('who');
    expect((who.value.participants as Array<{ handle: string }>).map((p) => p.handle).sort()).toEqual(['a1', 'a2', 'a3']);
    // Over stdio too, inbox shows the sender what became of its DM.
    const dm = await agents[0]!.call('chat_dm', { to: 'a2', text: 'did you get this?' });
    await agents[1]!.call('inbox');
    expect((await agents[0]!.call('inbox')).value.sent).toMatchObject([{ id: dm.value.id, to: 'a2', state: 'delivered', at: expect.any(String) }]);
  }, 60_000);

  it('stdio - the rooms follow the hub it talks to: chat off there, or the agent\'s kind excluded there, means no chat tools, whatever the agent\'s own environment says', async () => {
    const chatTools = (names: string[]) => names.filter((n) => /^(chat|steer|side)_/.test(n));
    for (const [env, args] of [
      [{ PARLEY_CHAT_ENABLED: 'false' }, ['--as', 'coder']],
      [{ PARLEY_MCP_EXCLUDED_KINDS: 'architect' }, ['--as', 'arch', '--role', 'architect']],
    ] as const) {
      const { home, cleanup } = tempHome();
      cleanups.push(cleanup);
      // Only the hub has the setting: the agent CLI spawns `parley mcp` with its own environment.
      const hub = await startServe(home, { env });
      const agent = await stdioClient(home, hub.url, [...args, '--rooms', 'all']);
      const names = await agent.toolNames();
      expect(chatTools(names), JSON.stringify(env)).toEqual([]);
      expect(names).toEqual(expect.arrayContaining(['inbox', 'wait', 'request_send']));
      expect(agent.client.getInstructions()).not.toMatch(/chat_post/);
      // Asked anyway, the hub would refuse: the tool is simply not there.
      expect((await agent.call('chat_post', { text: 'hello' })).text).toMatch(/^NOT_FOUND: there is no tool "chat_post"/);
    }
  });
});
