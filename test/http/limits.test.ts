import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { fileSnapshot } from '../helpers/store-snapshot.js';

/** The hub's limits as a client meets them over HTTP: each refusal is explicit and stores nothing. */
let hub: RunningHub;
let home: string;
let cleanup: () => void = () => undefined;
let token: string;

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  // chatty prods too (a control: an admin's).
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ trust: { access: { chatty: 'admin' } } }));
  hub = await startServe(home, {
    env: { PARLEY_CHAT_LIMITS_WRITE_BURST: '3', PARLEY_CHAT_LIMITS_WRITES_PER_MINUTE: '3', PARLEY_INBOX_MAX_WAIT_TIMEOUT_MS: '1000', PARLEY_INBOX_WAIT_TIMEOUT_MS: '500' },
  });
  token = await joinOver(hub, { handle: 'chatty', session: 'proj' });
}, 30_000);

afterAll(async () => {
  await stopHubs();
  cleanup();
});

const post = (text: string) =>
  fetch(`${hub.url}/api/v1/threads/general/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });

describe('http limits', () => {
  it('limits - the write rate limit answers 429 with Retry-After on every write and stores nothing', async () => {
    for (let i = 0; i < 3; i++) expect((await post(`message ${i}`)).status).toBe(201);
    const before = fileSnapshot(path.join(home, 'parley.db'));
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
      const res = await fetch(`${hub.url}/api/v1${route}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, route).toBe(429);
      expect(Number(res.headers.get('retry-after')), route).toBeGreaterThanOrEqual(1);
      expect(await res.json()).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    }
    expect(fileSnapshot(path.join(home, 'parley.db'))).toEqual(before);
  });

  it('limits - a wait longer than inbox.maxWaitTimeoutMs is refused naming the bound; the default wait ends with timedOut', async () => {
    const tooLong = await fetch(`${hub.url}/api/v1/inbox/wait?timeout_ms=5000`, { headers: { authorization: `Bearer ${token}` } });
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'timeout_ms', message: expect.stringContaining('1000 ms') } });
    const waited = await fetch(`${hub.url}/api/v1/inbox/wait`, { headers: { authorization: `Bearer ${token}` } });
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ timedOut: true, items: [] });
  });
});
