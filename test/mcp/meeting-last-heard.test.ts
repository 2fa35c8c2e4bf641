/**
 * Where a participant stopped hearing a meeting is kept by the hub, in the
 * meeting: REST, the MCP meeting tools and the compat meeting tools all hear
 * from it, against a real hub process.
 */

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { McpTestClient } from '../helpers/mcp.js';
import { mcpServedHub } from '../helpers/mcp-fixtures.js';
import { restCall, type Json } from '../helpers/serve.js';

const served = mcpServedHub([{ handle: 'human', session: 'proj' }, { handle: 'coder', session: 'proj' }], (home) =>
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ mcp: { compat: true, compatMeeting: 'katra' } })),
);

function mcp(handle: string): Promise<McpTestClient> {
  return served.connect(handle, '?rooms=all');
}

async function rest(handle: string, method: string, route: string, body?: unknown): Promise<Json> {
  const answer = await restCall(served.hub, served.token(handle), method, route, body);
  expect(answer.status, `${method} ${route}: ${JSON.stringify(answer.json)}`).toBeLessThan(300);
  return answer.json;
}

async function tool(client: McpTestClient, name: string, args: Record<string, unknown> = {}): Promise<Json> {
  const result = await client.call(name, args);
  expect(result.isError, `${name}: ${result.text}`).toBe(false);
  return result.value;
}

const texts = (heard: Json): string[] => (heard.messages as Array<{ text?: string; content?: string }>).map((m) => m.text ?? m.content ?? '');

describe('meeting last-heard kept by the hub', () => {
  it('meeting last-heard - REST and MCP hear from one line kept by the hub; each only what is new', async () => {
    const coder = await mcp('coder');
    await tool(coder, 'meeting_join', { meeting: 'standup' });
    await rest('human', 'POST', '/meetings/standup/say', { text: 'one' });
    await rest('human', 'POST', '/meetings/standup/say', { text: 'two' });
    expect(await rest('coder', 'GET', '/meetings/standup/status')).toMatchObject({ unread: 2, last_heard: 0, latest: 2 });

    // Heard over MCP without a number: both lines, and the hub keeps #2 as heard.
    const first = await tool(coder, 'meeting_hear', { meeting: 'standup' });
    expect([texts(first), first.last_heard]).toEqual([['one', 'two'], 2]);
    // REST hears from the same place: nothing new, and status counts nothing unread.
    expect(await rest('coder', 'GET', '/meetings/standup/hear')).toEqual({ messages: [], messages_lost: false, last_heard: 2 });
    expect(await rest('coder', 'GET', '/meetings/standup/status')).toMatchObject({ unread: 0, last_heard: 2 });
    expect(await tool(coder, 'meeting_status', { meeting: 'standup' })).toMatchObject({ unread: 0, last_heard: 2 });

    // The other way round: REST hears the new line, then MCP has nothing new.
    await rest('human', 'POST', '/meetings/standup/say', { text: 'three' });
    expect(await tool(coder, 'meeting_status', { meeting: 'standup' })).toMatchObject({ unread: 1, last_heard: 2 });
    const third = await rest('coder', 'GET', '/meetings/standup/hear');
    expect([texts(third), third.last_heard]).toEqual([['three'], 3]);
    expect(texts(await tool(coder, 'meeting_hear', { meeting: 'standup' }))).toEqual([]);
  }, 60_000);

  it("meeting last-heard - the compat katra_hear and katra_meeting_status without last_heard use the same kept line", async () => {
    const coder = await mcp('coder');
    await tool(coder, 'meeting_join', { meeting: 'katra' });
    expect(await tool(coder, 'katra_hear')).toMatchObject({ status: 'no_new_messages' });
    await rest('human', 'POST', '/meetings/katra/say', { text: 'one' });
    await rest('human', 'POST', '/meetings/katra/say', { text: 'two' });
    expect(await tool(coder, 'katra_meeting_status')).toMatchObject({ unread_count: 2 });
    // katra_hear hears one line at a time, moving the kept line one step each.
    expect(await tool(coder, 'katra_hear')).toMatchObject({ message_number: 1, content: 'one' });
    expect(await rest('coder', 'GET', '/meetings/katra/status')).toMatchObject({ unread: 1, last_heard: 1 });
    expect(await tool(coder, 'katra_hear')).toMatchObject({ message_number: 2, content: 'two' });
    expect(await tool(coder, 'katra_hear')).toMatchObject({ status: 'no_new_messages' });
    expect(await tool(coder, 'meeting_hear', { meeting: 'katra' })).toMatchObject({ messages: [], last_heard: 2 });
  }, 60_000);

  it('meeting last-heard - an explicit last_heard still works everywhere and does not move the kept line back', async () => {
    const coder = await mcp('coder');
    for (const text of ['one', 'two', 'three']) await rest('human', 'POST', '/meetings/review/say', { text });
    expect(texts(await rest('coder', 'GET', '/meetings/review/hear'))).toEqual(['one', 'two', 'three']);
    expect(texts(await tool(coder, 'meeting_hear', { meeting: 'review', last_heard: 0 }))).toEqual(['one', 'two', 'three']);
    expect(texts(await rest('coder', 'GET', '/meetings/review/hear?last_heard=1&limit=1'))).toEqual(['two']);
    expect(await rest('coder', 'GET', '/meetings/review/status?last_heard=0')).toMatchObject({ unread: 3, last_heard: 0 });
    expect(await tool(coder, 'meeting_status', { meeting: 'review', last_heard: 2 })).toMatchObject({ unread: 1, last_heard: 2 });
    // What coder had heard stays heard.
    expect(await rest('coder', 'GET', '/meetings/review/status')).toMatchObject({ unread: 0, last_heard: 3 });
    expect(await tool(coder, 'meeting_hear', { meeting: 'review' })).toMatchObject({ messages: [], last_heard: 3 });
  }, 60_000);

  it("meeting last-heard - the page's whole-ring view moves no one's line, and meeting_hear is not announced as read-only", async () => {
    const coder = await mcp('coder');
    await tool(coder, 'meeting_say', { meeting: 'retro', text: 'from coder' });
    await rest('human', 'POST', '/meetings/retro/join');
    expect(await rest('human', 'GET', '/meetings/retro/status')).toMatchObject({ unread: 1, last_heard: 0 });
    await rest('human', 'GET', '/meetings/retro/ring');
    expect(await rest('human', 'GET', '/meetings/retro/status')).toMatchObject({ unread: 1, last_heard: 0 });
    expect(texts(await rest('human', 'GET', '/meetings/retro/hear'))).toEqual(['from coder']);
    // Hearing moves the kept line, as chat_read moves its cursor: neither is read-only.
    const listed = (await coder.client.listTools()).tools;
    for (const name of ['meeting_hear', 'katra_hear', 'chat_read']) expect(listed.find((t) => t.name === name)?.annotations?.readOnlyHint, name).not.toBe(true);
    expect(listed.find((t) => t.name === 'meeting_status')?.annotations?.readOnlyHint).toBe(true);
  }, 60_000);
});
