import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { connectHttp, type McpTestClient } from '../helpers/mcp.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';

/**
 * The page's People list tells apart who is connected (an MCP session, or the
 * page itself), who is waiting for something to do, and who is offline, and
 * follows changes live. A real hub process, agents over MCP with the official
 * SDK client, Debian's chromium.
 */
const PASSWORD = 'presence-on-the-page';
let hub: RunningHub;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
let cleanupHome: () => void;
const agents: McpTestClient[] = [];

beforeAll(async () => {
  const { home, cleanup } = tempHome();
  cleanupHome = cleanup;
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
  ({ browser, close: closeBrowser } = await launchBrowser());
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
}, 60_000);

afterAll(async () => {
  for (const agent of agents) await agent.close().catch(() => undefined);
  await closeBrowser?.();
  await stopHubs();
  cleanupHome?.();
});

async function agent(handle: string): Promise<McpTestClient> {
  const client = await connectHttp(hub.url, await joinOver(hub, { handle }));
  agents.push(client);
  return client;
}

function chip(handle: string) {
  return page.locator(`.person .presence[data-handle="${handle}"]`);
}

describe('web page: presence', () => {
  it('web - People shows connected, waiting and offline, and follows a client going away', async () => {
    const coder = await agent('coder');
    const reviewer = await agent('reviewer');
    // One-shot calls only: never present.
    const scripterToken = await joinOver(hub, { handle: 'scripter' });
    const read = await fetch(`${hub.url}/api/v1/threads`, { headers: { authorization: `Bearer ${scripterToken}` } });
    expect(read.status).toBe(200);
    const waited = reviewer.call('wait', { timeout_ms: 20_000 });

    await signIn(page, hub, PASSWORD);
    await expect.poll(() => chip('reviewer').getAttribute('data-connection')).toBe('waiting');
    await expect.poll(() => chip('reviewer').textContent()).toBe('waiting');
    await expect.poll(() => chip('coder').textContent()).toBe('connected');
    await expect.poll(() => chip('scripter').textContent()).toBe('offline');
    // The human is connected through this page.
    await expect.poll(() => chip('human').textContent()).toBe('connected');
    // What an agent declares shows beside its connection.
    await coder.call('room_load', { room: 'presence' });
    await coder.call('presence_set', { state: 'thinking', note: 'profiling the cache' });
    await expect.poll(() => chip('coder').textContent()).toBe('connected · thinking');
    expect(await chip('coder').getAttribute('title')).toBe('profiling the cache');
    await page.screenshot({ path: screenshotPath('presence') });

    // The wait ends: connected again. The coder's client closes its session: offline, live.
    await coder.call('chat_dm', { to: 'reviewer', text: 'your turn' });
    expect((await waited).isError).toBe(false);
    await expect.poll(() => chip('reviewer').textContent()).toBe('connected');
    await (coder.client.transport as StreamableHTTPClientTransport).terminateSession();
    await expect.poll(() => chip('coder').textContent()).toBe('offline');
    expect(await chip('coder').getAttribute('data-connection')).toBe('offline');
  });
});
