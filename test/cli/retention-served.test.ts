import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/**
 * Retention in a served hub, configured from the environment: the hub prunes
 * by itself, and REST search and reads no longer return what it pruned.
 */
let hub: RunningHub;
let cleanup: () => void;
let token: string;

beforeAll(async () => {
  const made = tempHome();
  cleanup = made.cleanup;
  hub = await startServe(made.home, { env: { PARLEY_RETENTION_MESSAGES: '3', PARLEY_RETENTION_INTERVAL_MS: '50' } });
  token = await joinOver(hub, { handle: 'alice' });
}, 120_000);

afterAll(async () => {
  await stopHubs();
  cleanup();
});

async function rest(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${hub.url}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.ok).toBe(true);
  return (await res.json()) as Record<string, unknown>;
}

const contents = (answer: Record<string, unknown>): unknown[] => (answer.events as Array<{ type: string; content: unknown }>).filter((e) => e.type === 'message').map((e) => e.content);

describe('retention served', () => {
  it('retention - a served hub prunes past retention.messages by itself; REST search and history forget it', async () => {
    for (const text of ['walrus one', 'walrus two', 'walrus three', 'walrus four']) await rest('/threads/general/messages', { text });
    // The newest 3 events of the thread stay (its creation event too); the pruner runs every 50 ms.
    await expect.poll(async () => contents(await rest('/search?q=walrus')).sort(), { timeout: 10_000 }).toEqual(['walrus four', 'walrus three', 'walrus two']);
    expect(contents(await rest('/threads/general/history?limit=50'))).toEqual(['walrus two', 'walrus three', 'walrus four']);
  });
});
