import { beforeAll, describe, expect, it } from 'vitest';
import type { McpTestClient } from '../helpers/mcp.js';
import { joinOver, restCall } from '../helpers/serve.js';
import { servedHubForFile } from '../helpers/served-hub.js';

/**
 * Delivery states over real HTTP against a `parley serve` process: the
 * injection route a client hook calls, the sender's per-recipient view, the
 * not-yet-acknowledged view, and MCP `inbox` showing them for what was sent.
 */
const served = servedHubForFile();
let tokens: { alice: string; bob: string };
let aliceMcp: McpTestClient;

const as = (who: keyof typeof tokens, method: string, path: string, body?: unknown) => restCall(served.hub, tokens[who], method, path, body);

beforeAll(async () => {
  tokens = { alice: await joinOver(served.hub, { handle: 'alice' }), bob: await joinOver(served.hub, { handle: 'bob' }) };
  aliceMcp = await served.mcp(tokens.alice);
  // Start with empty inboxes.
  for (const who of ['alice', 'bob'] as const) await as(who, 'GET', '/inbox?limit=500');
});

describe('http delivery states', () => {
  it('http delivery - POST /inbox/inject gives each new item once, and the sender sees it injected, then acknowledged', async () => {
    const dm = await as('alice', 'POST', '/dm', { to: 'bob', text: 'ping from alice' });
    expect(dm.status).toBe(201);
    const before = await as('alice', 'GET', '/deliveries/sent');
    expect(before.json.deliveries).toMatchObject([{ id: dm.json.id, to: 'bob', reason: 'dm', state: 'pending' }]);

    // A peek (what the LLM middleware does before a model call) shows it and marks nothing.
    const peeked = await as('bob', 'POST', '/inbox/inject', { peek: true });
    expect(peeked.json).toMatchObject({ items: [{ id: dm.json.id }], head: dm.json.seq });
    expect((await as('alice', 'GET', '/deliveries/sent')).json.deliveries).toMatchObject([{ id: dm.json.id, state: 'pending' }]);

    const first = await as('bob', 'POST', '/inbox/inject', {});
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      items: [{ id: dm.json.id, seq: dm.json.seq, ts: expect.any(String), priority: 'high', reason: 'dm', thread: expect.any(String), with: 'alice', from: 'alice', text: 'ping from alice', respond: true }],
      head: dm.json.seq,
    });
    expect((await as('bob', 'POST', '/inbox/inject', {})).json).toMatchObject({ items: [] });

    const injected = (await as('alice', 'GET', '/deliveries/sent')).json.deliveries as Array<Record<string, unknown>>;
    expect(injected[0]).toMatchObject({ id: dm.json.id, to: 'bob', state: 'injected', delivered_at: expect.any(String), injected_at: expect.any(String) });

    // Delivered or injected and not acknowledged: listed at age 0, not when asked for an hour old.
    const waiting = await as('bob', 'GET', '/deliveries?state=unacknowledged&older_than_ms=0');
    expect((waiting.json.deliveries as Array<{ event: { id: string }; state: string }>).map((d) => [d.event.id, d.state])).toEqual([[dm.json.id, 'injected']]);
    expect((await as('alice', 'GET', '/deliveries/sent?state=unacknowledged&older_than_ms=3600000')).json.deliveries).toEqual([]);

    // MCP inbox shows the sender what became of it.
    const viaMcp = await aliceMcp.call('inbox');
    expect(viaMcp.value.sent).toEqual([{ id: dm.json.id, thread: expect.any(String), to: 'bob', state: 'injected', at: injected[0]?.injected_at }]);

    expect((await as('bob', 'POST', '/inbox/ack', { ids: [dm.json.id] })).json).toMatchObject({ acknowledged: 1 });
    const acked = await aliceMcp.call('inbox', { peek: true });
    expect(acked.value.sent).toMatchObject([{ id: dm.json.id, to: 'bob', state: 'acknowledged' }]);
    expect((await aliceMcp.call('inbox', { sent: 0 })).value.sent).toBeUndefined();
  });

  it('http delivery - bad input is INVALID_INPUT naming the field, and changes nothing', async () => {
    const dm = await as('alice', 'POST', '/dm', { to: 'bob', text: 'not yet read' });
    for (const [path, field] of [
      ['/deliveries?state=seen', 'state'],
      ['/deliveries?older_than_ms=-5', 'older_than_ms'],
      ['/deliveries?older_than_ms=soon', 'older_than_ms'],
      ['/deliveries/sent?state=read', 'state'],
      ['/deliveries/sent?older_than_ms=-60000', 'older_than_ms'],
    ] as const) {
      const res = await as('bob', 'GET', path);
      expect([path, res.status, res.json.error?.code, res.json.error?.field]).toEqual([path, 400, 'INVALID_INPUT', field]);
    }
    const badInject = await as('bob', 'POST', '/inbox/inject', { limit: -1 });
    expect([badInject.status, badInject.json.error?.code, badInject.json.error?.field]).toEqual([400, 'INVALID_INPUT', 'limit']);
    const badTake = await as('bob', 'POST', '/inbox/inject', { take: 'latest' });
    expect([badTake.status, badTake.json.error?.code, badTake.json.error?.field]).toEqual([400, 'INVALID_INPUT', 'take']);
    const badWait = await as('bob', 'GET', '/inbox/wait?timeout_ms=0&peek=maybe');
    expect([badWait.status, badWait.json.error?.code, badWait.json.error?.field]).toEqual([400, 'INVALID_INPUT', 'peek']);
    const unknownField = await as('bob', 'POST', '/inbox/inject', { mode: 'all' });
    expect([unknownField.status, unknownField.json.error?.code]).toEqual([400, 'INVALID_INPUT']);
    // The refused injections took nothing: the DM is still pending and the next injection returns it.
    expect(((await as('alice', 'GET', '/deliveries/sent?state=pending')).json.deliveries as Array<{ id: string }>).map((d) => d.id)).toEqual([dm.json.id]);
    expect(((await as('bob', 'POST', '/inbox/inject', {})).json.items as Array<{ id: string }>).map((i) => i.id)).toEqual([dm.json.id]);
  });
});
