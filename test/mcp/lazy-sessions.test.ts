import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LazyMcpSessions } from '../../src/mcp/lazy-sessions.js';
import { LOG_LOADS, modulesInLog } from '../cli/loaded-modules.js';
import { tempHomesRemovedAfterEach, testHubsClosedAfterEach } from '../helpers/hub.js';
import { connectHttp } from '../helpers/mcp.js';
import { joinOver, startServe, stopHubs } from '../helpers/serve.js';
import { createSilentLogger } from '../../src/util/logger.js';

const homes = tempHomesRemovedAfterEach('parley-lazy-mcp-');
const hubs = testHubsClosedAfterEach();
afterEach(stopHubs);

const sdkFiles = (log: string): string[] => modulesInLog(log).filter((file) => file.includes('@modelcontextprotocol/sdk'));

describe('MCP over HTTP, loaded at its first request', () => {
  it('lazy mcp - "parley serve" starts without the MCP SDK; the first /mcp request loads it and is answered', async () => {
    const home = homes();
    const log = path.join(home, 'loads.txt');
    fs.writeFileSync(log, '');
    const hub = await startServe(home, { env: { NODE_OPTIONS: `--import ${LOG_LOADS}`, LOAD_LOG_FILE: log } });
    const token = await joinOver(hub, { handle: 'coder' });
    // The hub answers REST with no SDK loaded.
    const health = await fetch(`${hub.url}/healthz`);
    expect(health.status).toBe(200);
    expect(sdkFiles(log)).toEqual([]);

    const client = await connectHttp(hub.url, token);
    try {
      const posted = await client.call('chat_post', { text: 'first call over HTTP' });
      expect(posted.isError).toBe(false);
      expect(posted.value.seq).toEqual(expect.any(Number));
    } finally {
      await client.close();
    }
    expect(sdkFiles(log).some((url) => url.includes('server/webStandardStreamableHttp.js'))).toBe(true);
  });

  it('lazy mcp - closed before its first request, it loads nothing and answers 503 with a JSON-RPC error', async () => {
    const t = await hubs.open();
    const sessions = new LazyMcpSessions(t.hub, createSilentLogger());
    expect(sessions.size).toBe(0);
    expect(sessions.stats()).toEqual({ sessions: 0, heldJsonResponses: 0 });
    await sessions.closeAll();
    const actor = await t.hub.join({ handle: 'coder', session: 's' });
    const answer = await sessions.handle({} as never, actor);
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'The hub is shutting down; reconnect to the running hub.' }, id: null });
    expect(sessions.size).toBe(0);
  });
});
