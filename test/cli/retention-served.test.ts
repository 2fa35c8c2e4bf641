import { describe, expect, it } from 'vitest';
import type { Json } from '../helpers/serve.js';
import { servedCli } from './served-cli.js';

/**
 * Retention in a served hub, configured from the environment: the hub prunes
 * by itself, and REST search and reads no longer return what it pruned.
 */
const served = servedCli({ serve: { env: { PARLEY_RETENTION_MESSAGES: '3', PARLEY_RETENTION_INTERVAL_MS: '50' } }, join: [['alice']] });

async function rest(path: string, body?: unknown): Promise<Json> {
  const answer = await served.rest('alice', body === undefined ? 'GET' : 'POST', path, body);
  expect(answer.status).toBeLessThan(300);
  return answer.json;
}

const contents = (answer: Json): unknown[] => (answer.events as Array<{ type: string; content: unknown }>).filter((e) => e.type === 'message').map((e) => e.content);

describe('retention served', () => {
  it('retention - a served hub prunes past retention.messages by itself; REST search and history forget it', async () => {
    for (const text of ['walrus one', 'walrus two', 'walrus three', 'walrus four']) await rest('/threads/general/messages', { text });
    // The newest 3 events of the thread stay (its creation event too); the pruner runs every 50 ms.
    await expect.poll(async () => contents(await rest('/search?q=walrus')).sort(), { timeout: 10_000 }).toEqual(['walrus four', 'walrus three', 'walrus two']);
    expect(contents(await rest('/threads/general/history?limit=50'))).toEqual(['walrus two', 'walrus three', 'walrus four']);
  });
});
