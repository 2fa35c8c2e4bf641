import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, wrap, type McpTestClient } from '../helpers/mcp.js';
import { BIN, type Json } from '../helpers/serve.js';
import { servedCli } from './served-cli.js';

/**
 * What a user meets on each surface of one running hub: the thread names
 * `parley threads` and chat_threads show are names the CLI, REST and MCP
 * (over HTTP and through `parley mcp` on stdio) accept; and an error says
 * what to do next in the surface's own words, never a library function.
 */
// The CLI runs without blocking this process, so that the keep-alive sockets of the REST and MCP clients here see the hub close them while it runs.
const served = servedCli({ join: [['human', 'human'], ['coder-1', 'agent']] });
const cli = served.cli;
const clients: McpTestClient[] = [];

beforeAll(async () => {
  expect((await cli('dm', 'human', 'first words', '--as', 'coder-1')).status).toBe(0);
  expect((await cli('thread', 'side', 'general', 'Cache plan', '--as', 'human')).status).toBe(0);
});

afterAll(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

/** A REST call as a participant: a POST when it has a body. */
async function rest(who: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const answer = await served.rest(who, body === undefined ? 'GET' : 'POST', path, body);
  return { status: answer.status, body: answer.json };
}

async function stdioAgent(handle: string): Promise<McpTestClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--as', handle],
    env: served.env as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'thread-names-test', version: '1.0.0' });
  await client.connect(transport);
  const wrapped = wrap(client, () => 0, () => client.close());
  clients.push(wrapped);
  return wrapped;
}

describe('thread names on every surface', () => {
  it('surfaces - parley threads shows the DM by the other handle with one unread, and every shown name is read back by the CLI', async () => {
    const listed = (await cli('threads', '--as', 'human')).stdout;
    expect(listed).toMatch(/^dm\s+@coder-1\s+1 unread/m);
    // Every name as printed, the way a user copies it from the list.
    const names = listed
      .trim()
      .split('\n')
      .map((line) => /^\S+\s+(.+?)\s+\d+ unread/.exec(line)![1]!);
    expect(names).toEqual(expect.arrayContaining(['#general', '@coder-1', 'Cache plan']));
    const reads = await Promise.all(names.map((name) => cli('read', name, '--as', 'human')));
    for (const [i, read] of reads.entries()) expect([read.status, read.stderr], names[i]).toEqual([0, '']);
    // The DM's stored name, in either order, and the other handle, from both sides.
    const refs = [['human', 'dm:coder-1,human'], ['human', 'dm:human,coder-1'], ['coder-1', '@human'], ['coder-1', 'dm:coder-1,human']] as const;
    const said = await Promise.all(refs.map(([as, ref]) => cli('say', ref, `by ${ref}`, '--as', as)));
    for (const [i, run] of said.entries()) expect([run.status, run.stderr], refs[i]![1]).toEqual([0, '']);
    const json = JSON.parse((await cli('read', '@coder-1', '--as', 'human', '--json')).stdout) as { events: Array<{ content: unknown }> };
    expect(json.events.map((e) => e.content).sort()).toEqual(['by @human', 'by dm:coder-1,human']);
  }, 120_000);

  it('surfaces - the REST routes take the same names, URL-encoded', async () => {
    for (const ref of ['dm:coder-1,human', '@coder-1', '#general', 'general', 'Cache plan']) {
      const detail = await rest('human', `/threads/${encodeURIComponent(ref)}`);
      expect(detail.status, ref).toBe(200);
      const history = await rest('human', `/threads/${encodeURIComponent(ref)}/history`);
      expect(history.status, ref).toBe(200);
    }
    const posted = await rest('coder-1', `/threads/${encodeURIComponent('@human')}/messages`, { text: 'over rest' });
    expect(posted.status).toBe(201);
    const dm = (await rest('human', '/threads')).body.threads as Array<{ id: string; with?: string }>;
    expect(dm.find((th) => th.with === 'coder-1')?.id).toBe(posted.body.thread);
  });

  it('surfaces - MCP tools take the names chat_threads shows, over HTTP and through parley mcp on stdio', async () => {
    const overHttp = await connectHttp(served.hub.url, served.token('human'));
    clients.push(overHttp);
    const overStdio = await stdioAgent('coder-1');
    const threads = (await overHttp.call('chat_threads')).value.threads as Array<{ name: string; kind: string; with?: string }>;
    const dm = threads.find((th) => th.kind === 'dm')!;
    expect(dm).toMatchObject({ name: 'dm:coder-1,human', with: '@coder-1' });
    for (const thread of [dm.name, dm.with!, 'Cache plan', '#general']) {
      const history = await overHttp.call('chat_history', { thread });
      expect(history.isError, `${thread}: ${history.text}`).toBe(false);
    }
    for (const thread of ['dm:human,coder-1', '@human']) {
      const posted = await overStdio.call('chat_post', { thread, text: `stdio ${thread}` });
      expect(posted.isError, `${thread}: ${posted.text}`).toBe(false);
    }
  });

  it('surfaces - a missing thread or request is answered with the surface\'s own verb, never a library function', async () => {
    const [cliThread, cliDm, cliRequest, cliTail] = await Promise.all([
      cli('read', 'nowhere', '--as', 'human'),
      cli('read', '@nobody', '--as', 'human'),
      cli('respond', '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'Completed', '--as', 'human'),
      cli('tail', 'nowhere', '--as', 'human'),
    ]);
    expect(cliThread.status).toBe(1);
    expect(cliThread.stderr).toContain('No thread "nowhere"');
    expect(cliThread.stderr).toContain('"parley threads"');
    expect(cliDm.stderr).toContain('"parley dm HANDLE TEXT"');
    expect(cliRequest.stderr).toContain('"parley inbox --peek"');
    expect([cliTail.status, cliTail.stderr.includes('"parley threads"')]).toEqual([1, true]);

    const restThread = await rest('human', '/threads/nowhere/history');
    expect(restThread.status).toBe(404);
    expect(restThread.body.error).toMatchObject({ code: 'NOT_FOUND', field: 'thread', hint: 'list-threads' });
    expect((restThread.body.error as { message: string }).message).toContain('GET /api/v1/threads');
    const restRequest = await rest('human', '/requests/01ARZ3NDEKTSV4RRFFQ69G5FAV/responses', { status: 'Completed' });
    expect((restRequest.body.error as { message: string }).message).toContain('GET /api/v1/requests/open');

    const overHttp = await connectHttp(served.hub.url, served.token('human'), '?rooms=all');
    clients.push(overHttp);
    const overStdio = await stdioAgent('coder-1');
    for (const agent of [overHttp, overStdio]) {
      const thread = await agent.call('chat_read', { thread: 'nowhere' });
      expect(thread.isError).toBe(true);
      expect(thread.text).toMatch(/^NOT_FOUND: No thread "nowhere" in session "default"\. List threads with chat_threads/);
    }
    await overStdio.call('room_load', { room: 'requests' });
    for (const agent of [overHttp, overStdio]) {
      const request = await agent.call('request_respond', { request_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', status: 'Completed' });
      expect(request.text).toContain('requests_open');
    }
    for (const text of [cliThread.stderr, cliDm.stderr, cliRequest.stderr, cliTail.stderr, JSON.stringify(restThread.body), JSON.stringify(restRequest.body)]) {
      expect(text).not.toMatch(/\w\(\)/);
    }
  }, 120_000);
});
