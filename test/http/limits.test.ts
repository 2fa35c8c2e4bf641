import { beforeAll, describe, expect, it } from 'vitest';
import { joinOver } from '../helpers/serve.js';
import { servedHubForFile } from '../helpers/served-hub.js';

/** The hub's limits as a client meets them over HTTP: each refusal is explicit and stores nothing. */
const served = servedHubForFile({
  // chatty prods too (a control: an admin's).
  config: { trust: { access: { chatty: 'admin' } } },
  env: { PARLEY_CHAT_LIMITS_WRITE_BURST: '3', PARLEY_CHAT_LIMITS_WRITES_PER_MINUTE: '3', PARLEY_INBOX_MAX_WAIT_TIMEOUT_MS: '1000', PARLEY_INBOX_WAIT_TIMEOUT_MS: '500' },
});
let token: string;

beforeAll(async () => {
  token = await joinOver(served.hub, { handle: 'chatty', session: 'proj' });
});

const post = (text: string) =>
  fetch(`${served.hub.url}/api/v1/threads/general/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });

describe('http limits', () => {
  it('limits - the write rate limit answers 429 with Retry-After on every write and stores nothing', async () => {
    for (let i = 0; i < 3; i++) expect((await post(`message ${i}`)).status).toBe(201);
    const before = served.stored();
    const refused = await post('one too many');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMITED', message: expect.stringContaining('3 per minute') } });
    // The other writes draw on the same bucket: a meeting line, a channel, a prod.
    const writes: Array<[string, unknown]> = [
      ['/meetings/standup/say', { text: 'and one more' }],
      ['/threads', { name: 'another' }],
      ['/threads/general/controls', { prod: ['chatty'] }],
    ];
    for (const [route, body] of writes) {
      const res = await fetch(`${served.hub.url}/api/v1${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, route).toBe(429);
      expect(Number(res.headers.get('retry-after')), route).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    }
    expect(served.stored()).toEqual(before);
  });

  it('limits - a wait longer than inbox.maxWaitTimeoutMs is refused naming the bound; the default wait ends with timedOut', async () => {
    const tooLong = await fetch(`${served.hub.url}/api/v1/inbox/wait?timeout_ms=5000`, { headers: { authorization: `Bearer ${token}` } });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'timeout_ms', message: expect.stringContaining('1000 ms') } });
    const waited = await fetch(`${served.hub.url}/api/v1/inbox/wait`, { headers: { authorization: `Bearer ${token}` } });
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ timedOut: true, items: [] });
  });
});
