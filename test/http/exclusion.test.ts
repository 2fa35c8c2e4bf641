/**
 * Excluded kinds (an architect, here) against the real hub: the exclusion is
 * something the excluded agent cannot lift itself, and it holds on every
 * surface (MCP and REST), while requests still reach it.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import type { McpTestClient } from '../helpers/mcp.js';
import { joinOver, restCall } from '../helpers/serve.js';
import { servedHubForFile } from '../helpers/served-hub.js';
import { openStream } from '../helpers/sse.js';

const served = servedHubForFile({ env: { PARLEY_MCP_EXCLUDED_KINDS: 'architect' } });
const tokens: Record<'human' | 'coder' | 'arch', string> = { human: '', coder: '', arch: '' };

beforeAll(async () => {
  tokens.human = await joinOver(served.hub, { handle: 'human', session: 'proj', profile: { kind: 'human' } });
  tokens.coder = await joinOver(served.hub, { handle: 'coder', session: 'proj' });
  tokens.arch = await joinOver(served.hub, { handle: 'arch', session: 'proj', profile: { roles: ['architect'] } });
});

const call = (who: keyof typeof tokens, method: string, route: string, body?: unknown) => restCall(served.hub, tokens[who], method, route, body);

const mcpAs = (who: keyof typeof tokens): Promise<McpTestClient> => served.mcp(tokens[who], '?rooms=all');

const chatTools = (names: string[]) => names.filter((n) => n.startsWith('chat_') || n.startsWith('steer_') || n.startsWith('side_'));

describe('excluded kinds', () => {
  it('exclusion - the excluded agent cannot lift it through PATCH /profile, and its MCP connection still has no chat', async () => {
    const before = served.stored();
    for (const patch of [{ roles: [] }, { roles: ['coder'] }, { kind: 'human' }]) {
      const refused = await call('arch', 'PATCH', '/profile', patch);
      expect(refused.status, JSON.stringify(patch)).toBe(400);
      expect(refused.json.error).toMatchObject({ code: 'INVALID_INPUT', field: Object.keys(patch)[0], message: expect.stringContaining('parley join') });
    }
    expect(served.stored()).toEqual(before);
    expect((await call('arch', 'GET', '/whoami')).json.participant.profile).toMatchObject({ kind: 'agent', roles: ['architect'] });
    // A fresh MCP session after the attempt: still no chat tools, and no chat in the instructions.
    const arch = await mcpAs('arch');
    const names = await arch.toolNames();
    expect(chatTools(names)).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['request_send', 'request_respond', 'requests_open', 'inbox', 'wait']));
    expect(arch.client.getInstructions()).not.toMatch(/chat/i);
    // Others keep their chat tools.
    expect(chatTools(await (await mcpAs('coder')).toolNames()).length).toBeGreaterThan(0);
  });

  it('exclusion - REST refuses every chat call of the excluded agent with CHAT_DISABLED and stores nothing', async () => {
    const before = served.stored();
    const chatCalls: Array<[string, string, unknown?]> = [
      ['POST', '/threads/general/messages', { text: 'my two cents' }],
      ['POST', '/dm', { to: 'coder', text: 'psst' }],
      ['POST', '/threads', { name: 'architecture' }],
      ['GET', '/threads'],
      ['GET', '/threads/general'],
      ['GET', '/threads/general/new'],
      ['GET', '/threads/general/history'],
      ['GET', '/threads/general/export'],
      ['GET', '/search?q=cache'],
      ['PUT', '/threads/general/subscription', { state: 'subscribed' }],
      ['POST', '/threads/general/read', { up_to: 1 }],
      ['POST', '/threads/general/side', { title: 'a side' }],
      ['POST', '/threads/general/controls', { pause: { on: true } }],
      ['GET', '/stream?thread=general'],
    ];
    for (const [method, route, body] of chatCalls) {
      const answer = await call('arch', method, route, body);
      expect(answer.status, `${method} ${route} → ${JSON.stringify(answer.json)}`).toBe(404);
      expect(answer.json.error).toMatchObject({ code: 'CHAT_DISABLED', message: expect.stringContaining('"architect" is excluded from chat') });
    }
    expect(served.stored()).toEqual(before);
    // Everyone else chats as before.
    expect((await call('coder', 'POST', '/threads/general/messages', { text: 'cache is per user' })).status).toBe(201);
  });

  it('exclusion - requests addressed to the excluded agent still arrive, and it still answers and asks', async () => {
    const asked = await call('coder', 'POST', '/requests', { to: 'arch', intent: 'review the design', params: { doc: 'design.md' } });
    expect(asked.status).toBe(201);
    const open = await call('arch', 'GET', '/requests/open');
    expect(open.json.incoming).toEqual([expect.objectContaining({ request_id: asked.json.request_id, intent: 'review the design' })]);
    const inbox = await call('arch', 'GET', '/inbox');
    expect(inbox.json.items).toEqual(expect.arrayContaining([expect.objectContaining({ reason: 'request', event: expect.objectContaining({ id: asked.json.id }) })]));
    expect((await call('arch', 'POST', `/requests/${asked.json.request_id}/responses`, { status: 'Completed', result: { ok: true } })).status).toBe(201);
    // Through MCP too: the agent asks the human for a decision.
    const arch = await mcpAs('arch');
    const sent = await arch.call('request_send', { to: 'human', intent: 'approve the schema' });
    expect(sent.isError, sent.text).toBe(false);
    expect((await call('human', 'GET', '/requests/open')).json.incoming).toEqual([expect.objectContaining({ intent: 'approve the schema' })]);
  });

  it('exclusion - no chat reaches the excluded agent (mentions, channel messages, DMs, prods) through inbox, wait or the live stream; requests and responses do', async () => {
    // The agent listens the ways it can: its inbox's live stream (REST) and MCP.
    const stream = await openStream(`${served.hub.url}/api/v1/stream?inbox=true&events_only=true`, tokens.arch);
    const arch = await mcpAs('arch');
    // Chat goes on around it: a channel message, a mention of it.
    expect((await call('coder', 'POST', '/threads/general/messages', { text: 'the schema is settled' })).status).toBe(201);
    const mention = await call('coder', 'POST', '/threads/general/messages', { text: '@arch what do you think of the schema?' });
    expect(mention.status).toBe(201);
    // A mention of it is plain text: it would never read it.
    expect(mention.json.mentions).toEqual([]);
    // Messages addressed to it, and prods, are refused with a clear error naming the field; nothing is stored.
    const before = served.stored();
    const unreachable: Array<[keyof typeof tokens, string, string, unknown, string]> = [
      ['coder', 'POST', '/dm', { to: 'arch', text: 'psst, the schema' }, 'to'],
      ['human', 'POST', '/threads/general/messages', { to: 'arch', text: 'over to you' }, 'to'],
      ['human', 'POST', '/threads/general/controls', { prod: ['arch'] }, 'control.prod.0'],
      ['human', 'POST', '/threads/general/controls', { invite: { participant_id: 'arch' } }, 'control.invite.participant_id'],
    ];
    for (const [who, method, route, body, field] of unreachable) {
      const answer = await call(who, method, route, body);
      expect(answer.status, `${method} ${route} ${JSON.stringify(body)} → ${JSON.stringify(answer.json)}`).toBe(400);
      expect(answer.json.error).toMatchObject({ code: 'INVALID_INPUT', field, message: expect.stringContaining('Use requests instead: POST /api/v1/requests') });
    }
    expect(served.stored()).toEqual(before);

    // An MCP wait started now wakes for the request, not for the chat around it.
    const waiting = arch.call('wait', { timeout_ms: 20_000 });
    expect((await call('coder', 'POST', '/threads/general/messages', { text: '@arch ping' })).status).toBe(201);
    const asked = await call('coder', 'POST', '/requests', { to: 'arch', intent: 'rate the schema' });
    expect(asked.status).toBe(201);
    const woke = await waiting;
    expect(woke.isError, woke.text).toBe(false);
    expect(woke.value.items).toEqual([expect.objectContaining({ reason: 'request', id: asked.json.id })]);

    // It asks the human, who answers: the response reaches it.
    const sent = await arch.call('request_send', { to: 'human', intent: 'approve the schema v2' });
    expect(sent.isError, sent.text).toBe(false);
    const answered = await call('human', 'POST', `/requests/${String(sent.value.request_id)}/responses`, { status: 'Completed', result: { approved: true } });
    expect(answered.status).toBe(201);
    const inbox = await arch.call('inbox', {});
    expect(inbox.value.items).toEqual([expect.objectContaining({ reason: 'response', id: answered.json.id })]);
    // Over REST, nothing of chat either (a peek shows what is still unread: nothing).
    expect((await call('arch', 'GET', '/inbox?peek=true')).json.items).toEqual([]);

    // The live stream carried the request to it and the response to it, and nothing of chat (its own request is not its inbox's).
    const seen: Array<{ type: string; id: string }> = [];
    while (seen.length < 2) {
      const frame = await stream.next();
      if (frame.event === 'event') seen.push(JSON.parse(frame.data) as { type: string; id: string });
    }
    stream.drop();
    expect(seen.map((e) => [e.type, e.id])).toEqual([
      ['request', asked.json.id],
      ['response', answered.json.id],
    ]);
  });
});
