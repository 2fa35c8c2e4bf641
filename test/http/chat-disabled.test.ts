/**
 * The chat feature toggle against the real hub: with `chat.enabled=false` every
 * chat endpoint answers CHAT_DISABLED and stores nothing, on REST as on MCP,
 * while requests, meetings and presence (not chat) keep working and the inbox,
 * wait and live stream carry them.
 */

import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { joinOver, restCall } from '../helpers/serve.js';
import { servedHubForFile } from '../helpers/served-hub.js';
import { openStream } from '../helpers/sse.js';

const served = servedHubForFile({ env: { PARLEY_CHAT_ENABLED: 'false' } });
const tokens: Record<'human' | 'coder', string> = { human: '', coder: '' };

beforeAll(async () => {
  tokens.human = await joinOver(served.hub, { handle: 'human', session: 'proj', profile: { kind: 'human' } });
  tokens.coder = await joinOver(served.hub, { handle: 'coder', session: 'proj' });
});

const call = (who: keyof typeof tokens, method: string, route: string, body?: unknown) => restCall(served.hub, tokens[who], method, route, body);

/** The threads the hub has stored, read from its database. */
function storedThreads(): Array<{ kind: string; name: string }> {
  const db = new Database(path.join(served.home, 'parley.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT kind, name FROM threads ORDER BY created_seq').all() as Array<{ kind: string; name: string }>;
  } finally {
    db.close();
  }
}

describe('chat.enabled=false', () => {
  it('chat off - every chat route answers CHAT_DISABLED, for humans and agents alike, and nothing is stored', async () => {
    // Joining made no channel: chat stores nothing, not even its default channel.
    expect(storedThreads()).toEqual([]);
    const before = served.stored();
    const chatCalls: Array<[string, string, unknown?]> = [
      ['GET', '/threads'],
      ['POST', '/threads', { name: 'architecture' }],
      ['GET', '/threads/general'],
      ['POST', '/threads/general/messages', { text: 'hello' }],
      ['POST', '/dm', { to: 'coder', text: 'psst' }],
      ['GET', '/threads/general/new'],
      ['GET', '/threads/general/history'],
      ['GET', '/threads/general/export'],
      ['GET', '/search?q=hello'],
      ['PUT', '/threads/general/subscription', { state: 'muted' }],
      ['POST', '/threads/general/read', { up_to: 1 }],
      ['POST', '/threads/general/rename', { name: 'main' }],
      ['POST', '/threads/general/side', { title: 'a side' }],
      ['POST', '/threads/general/close', { summary: 'done' }],
      ['POST', '/threads/general/controls', { pause: { on: true } }],
      ['GET', '/stream'],
      ['GET', '/stream?thread=general'],
    ];
    for (const who of ['human', 'coder'] as const) {
      for (const [method, route, body] of chatCalls) {
        const answer = await call(who, method, route, body);
        expect(answer.status, `${who} ${method} ${route} → ${JSON.stringify(answer.json)}`).toBe(404);
        expect(answer.json.error).toMatchObject({ code: 'CHAT_DISABLED', message: expect.stringContaining('chat.enabled is false') });
      }
    }
    expect(served.stored()).toEqual(before);
    // The hub tells its clients (the page) that chat is off, and where to start streaming the inbox.
    const me = await call('human', 'GET', '/whoami');
    expect(me.json.hub).toMatchObject({ chat: false });
    expect(me.json.head).toEqual(expect.any(Number));
  });

  it('chat off - requests, meetings and presence work, and the inbox, wait and live stream carry requests and responses', async () => {
    const stream = await openStream(`${served.hub.url}/api/v1/stream?inbox=true&events_only=true`, tokens.human);
    const asked = await call('coder', 'POST', '/requests', { to: 'human', intent: 'approve the deploy', text: 'Ship 1.2 tonight?' });
    expect(asked.status).toBe(201);
    expect((await call('human', 'GET', '/requests/open')).json.incoming).toEqual([expect.objectContaining({ request_id: asked.json.request_id })]);
    expect((await call('human', 'GET', '/inbox')).json.items).toEqual([expect.objectContaining({ reason: 'request', event: expect.objectContaining({ id: asked.json.id }) })]);
    const first = await stream.next();
    stream.drop();
    expect(first.event).toBe('event');
    expect(JSON.parse(first.data)).toMatchObject({ type: 'request', id: asked.json.id });
    // The coder waits; the human's answer wakes it.
    const waiting = call('coder', 'GET', '/inbox/wait?timeout_ms=20000');
    const answered = await call('human', 'POST', `/requests/${String(asked.json.request_id)}/responses`, { status: 'Completed', result: { shipped: true } });
    expect(answered.status).toBe(201);
    const woke = await waiting;
    expect(woke.status).toBe(200);
    expect(woke.json.items).toEqual([expect.objectContaining({ reason: 'response', event: expect.objectContaining({ id: answered.json.id }) })]);
    // Meetings and presence are not chat.
    expect((await call('coder', 'POST', '/meetings/standup/join')).status).toBe(200);
    expect((await call('coder', 'POST', '/meetings/standup/say', { text: 'done with the deploy' })).status).toBe(201);
    expect((await call('human', 'POST', '/meetings/standup/join')).status).toBe(200);
    expect((await call('human', 'GET', '/meetings/standup/hear')).json.messages).toEqual([expect.objectContaining({ content: 'done with the deploy' })]);
    // Presence follows live connections: coder holds its inbox stream while it declares a state.
    const held = await openStream(`${served.hub.url}/api/v1/stream?inbox=true&events_only=true`, tokens.coder);
    expect((await call('coder', 'PUT', '/presence', { state: 'thinking' })).status).toBe(200);
    expect((await call('human', 'GET', '/presence')).json.presence).toEqual(
      expect.arrayContaining([expect.objectContaining({ handle: 'coder', connection: 'connected', state: 'thinking' })]),
    );
    held.drop();
    // The request's conversation is a DM kept for it; still no channel.
    expect(storedThreads().filter((t) => t.kind !== 'dm')).toEqual([]);
  });

  it('chat off - over MCP the chat rooms do not exist, and inbox and wait carry requests only', async () => {
    const coder = await served.mcp(tokens.coder, '?rooms=all');
    const names = await coder.toolNames();
    expect(names.filter((n) => /^(chat|steer|side)_/.test(n))).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['inbox', 'wait', 'request_send', 'request_respond', 'meeting_say', 'presence_set']));
    const rooms = await coder.call('rooms_list');
    expect((rooms.value.rooms as Array<{ id: string }>).map((r) => r.id)).not.toContain('chat');
    const load = await coder.call('room_load', { room: 'chat' });
    expect(load.isError).toBe(true);
    expect((await coder.call('chat_post', { text: 'hello' })).text).toMatch(/^NOT_FOUND: there is no tool "chat_post"/);
    // A request through MCP reaches the human; the human's answer reaches the coder's wait.
    const sent = await coder.call('request_send', { to: 'human', intent: 'review the changelog' });
    expect(sent.isError, sent.text).toBe(false);
    const waiting = coder.call('wait', { timeout_ms: 20_000 });
    const answered = await call('human', 'POST', `/requests/${String(sent.value.request_id)}/responses`, { status: 'Completed' });
    expect(answered.status).toBe(201);
    const woke = await waiting;
    expect(woke.isError, woke.text).toBe(false);
    expect(woke.value.items).toEqual([expect.objectContaining({ reason: 'response', id: answered.json.id })]);
  });
});
