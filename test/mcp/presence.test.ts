import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MEETING_MAX_PARTICIPANTS } from '../../src/config/defaults.js';
import { tempHome } from '../helpers/hub.js';
import { connectHttp, wrap, type McpTestClient } from '../helpers/mcp.js';
import { BIN, childEnv, joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/**
 * Presence and meeting places follow live connections, as agents make them: a
 * real hub process, official SDK clients over Streamable HTTP and over stdio
 * (`parley mcp`), one-shot REST calls and the CLI. A client that goes away
 * without leaving is offline and out of its meetings; a one-shot call does
 * not make anyone present.
 */
let hub: RunningHub;
let home: string;
let cleanup: () => void;
const clients: McpTestClient[] = [];

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  hub = await startServe(home);
});

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

afterAll(async () => {
  await stopHubs();
  cleanup();
});

async function http(handle: string, session: string): Promise<McpTestClient> {
  const client = await connectHttp(hub.url, await joinOver(hub, { handle, session }), '?rooms=all');
  clients.push(client);
  return client;
}

async function stdio(handle: string, session: string): Promise<McpTestClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--as', handle, '--session', session, '--rooms', 'all'],
    env: childEnv(home, { PARLEY_URL: hub.url }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'presence-test-agent', version: '1.0.0' });
  await client.connect(transport);
  const wrapped = wrap(client, () => 0, () => client.close());
  clients.push(wrapped);
  return wrapped;
}

/** Ends an HTTP MCP session as a client does when it is done: DELETE /mcp, without leaving any meeting first. */
async function terminate(client: McpTestClient): Promise<void> {
  await (client.client.transport as StreamableHTTPClientTransport).terminateSession();
  await client.close();
}

async function presenceOf(observer: McpTestClient, handle: string): Promise<{ connection: string; state: string } | undefined> {
  const { participants } = (await observer.call('who')).value as { participants: Array<{ handle: string; connection: string; state: string }> };
  const found = participants.find((p) => p.handle === handle);
  return found && { connection: found.connection, state: found.state };
}

async function inMeeting(observer: McpTestClient, meeting: string): Promise<string[]> {
  const { who } = (await observer.call('meeting_who', { meeting })).value as { who: Array<{ handle: string }> };
  return who.map((m) => m.handle).sort();
}

describe('presence follows live connections', () => {
  it('presence - a one-shot REST call or CLI command leaves a participant offline (last seen moves)', async () => {
    const observer = await http('watcher', 'oneshot');
    const token = await joinOver(hub, { handle: 'scripter', session: 'oneshot' });
    const said = await fetch(`${hub.url}/api/v1/threads/general/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'one shot' }),
    });
    expect(said.status).toBe(201);
    const cli = spawnSync(process.execPath, [BIN, 'say', 'general', 'from the CLI'], {
      env: childEnv(home, { PARLEY_URL: hub.url, PARLEY_TOKEN: token }),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(cli.status, cli.stderr).toBe(0);
    expect(await presenceOf(observer, 'scripter')).toEqual({ connection: 'offline', state: 'offline' });
    const { participants } = (await observer.call('who')).value as { participants: Array<{ handle: string; lastSeen: string }> };
    expect(Date.parse(participants.find((p) => p.handle === 'scripter')!.lastSeen)).toBeGreaterThan(Date.now() - 60_000);
    // The observer itself holds an MCP session.
    expect(await presenceOf(observer, 'watcher')).toEqual({ connection: 'connected', state: 'listening' });
    // parley who says the same.
    const who = spawnSync(process.execPath, [BIN, 'who'], { env: childEnv(home, { PARLEY_URL: hub.url, PARLEY_TOKEN: token }), encoding: 'utf8', timeout: 20_000 });
    expect(who.status, who.stderr).toBe(0);
    expect(who.stdout).toMatch(/^@scripter\s+offline\s+agent$/m);
    expect(who.stdout).toMatch(/^@watcher\s+connected\s+agent$/m);
  });

  it('presence - over HTTP: connected with a session, waiting in a wait, offline and out of its meetings once the session is closed', async () => {
    const observer = await http('observer', 'web');
    const agent = await http('agent', 'web');
    expect(await presenceOf(observer, 'agent')).toEqual({ connection: 'connected', state: 'listening' });
    await agent.call('presence_set', { state: 'thinking', note: 'profiling' });
    expect(await presenceOf(observer, 'agent')).toEqual({ connection: 'connected', state: 'thinking' });
    await agent.call('meeting_join', { meeting: 'standup' });
    await observer.call('meeting_join', { meeting: 'standup' });
    expect(await inMeeting(observer, 'standup')).toEqual(['agent', 'observer']);

    const waited = agent.call('wait', { timeout_ms: 20_000 });
    await expect.poll(() => presenceOf(observer, 'agent')).toEqual({ connection: 'waiting', state: 'thinking' });
    await observer.call('chat_dm', { to: 'agent', text: 'your turn' });
    expect((await waited).isError).toBe(false);
    expect(await presenceOf(observer, 'agent')).toEqual({ connection: 'connected', state: 'thinking' });

    await terminate(agent);
    expect(await presenceOf(observer, 'agent')).toEqual({ connection: 'offline', state: 'offline' });
    expect(await inMeeting(observer, 'standup')).toEqual(['observer']);
  });

  it('presence - over HTTP: revoking the token a session was opened with takes the participant out of its meetings', async () => {
    const observer = await http('observer', 'revoked');
    const agent = await http('agent', 'revoked');
    await agent.call('meeting_join', { meeting: 'standup' });
    const rotated = await fetch(`${hub.url}/api/v1/participants/agent/tokens/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ session: 'revoked' }),
    });
    expect(rotated.status).toBe(200);
    await expect.poll(() => inMeeting(observer, 'standup')).toEqual([]);
    expect(await presenceOf(observer, 'agent')).toEqual({ connection: 'offline', state: 'offline' });
  });

  it('presence - over stdio: connected while parley mcp runs, waiting in a wait, offline and out of its meetings when the agent goes', async () => {
    const observer = await http('observer', 'cli');
    const agent = await stdio('stdio-agent', 'cli');
    // Present from the first message on: parley mcp holds its connection before it serves.
    expect(await presenceOf(observer, 'stdio-agent')).toEqual({ connection: 'connected', state: 'listening' });
    await agent.call('meeting_join', { meeting: 'standup' });
    expect(await inMeeting(observer, 'standup')).toEqual(['stdio-agent']);

    const waited = agent.call('wait', { timeout_ms: 20_000 });
    await expect.poll(() => presenceOf(observer, 'stdio-agent')).toEqual({ connection: 'waiting', state: 'listening' });
    await observer.call('chat_dm', { to: 'stdio-agent', text: 'your turn' });
    expect((await waited).isError).toBe(false);
    await expect.poll(() => presenceOf(observer, 'stdio-agent')).toEqual({ connection: 'connected', state: 'listening' });

    // The agent CLI quits: it closes parley mcp's stdin, without meeting_leave.
    await agent.close();
    await expect.poll(() => inMeeting(observer, 'standup'), { timeout: 10_000 }).toEqual([]);
    expect(await presenceOf(observer, 'stdio-agent')).toEqual({ connection: 'offline', state: 'offline' });
  });

  it('presence - over stdio: a meeting_join sent just before the agent quits does not leave a ghost', async () => {
    const observer = await http('observer', 'quit');
    const agent = await stdio('hasty-agent', 'quit');
    const joining = agent.call('meeting_join', { meeting: 'standup' }).catch(() => undefined);
    await agent.close();
    await joining;
    await expect.poll(() => presenceOf(observer, 'hasty-agent'), { timeout: 10_000 }).toEqual({ connection: 'offline', state: 'offline' });
    // The join landed (it created the meeting), and its place went with the agent.
    expect(await inMeeting(observer, 'standup')).toEqual([]);
  });

  it(`meeting - clients that went away do not count toward the ${DEFAULT_MEETING_MAX_PARTICIPANTS}-member cap`, async () => {
    for (let i = 0; i < DEFAULT_MEETING_MAX_PARTICIPANTS; i++) {
      const ghost = await http(`ghost-${i}`, 'full');
      expect((await ghost.call('meeting_join', { meeting: 'standup' })).isError).toBe(false);
      await terminate(ghost);
    }
    const late = await http('late', 'full');
    const joined = await late.call('meeting_join', { meeting: 'standup' });
    expect(joined.text).not.toContain('MEETING_FULL');
    expect(await inMeeting(late, 'standup')).toEqual(['late']);
  });
});
