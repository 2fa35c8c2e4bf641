import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs } from '../helpers/serve.js';
import { shownSeqs, shownTexts, signIn } from '../helpers/web.js';

/** The page's live stream across a hub restart, and the chat toggle. */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  // The hubs first: a running hub may still write in its home (its search index starts seconds after it opens).
  await stopHubs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function post(url: string, token: string, text: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/threads/general/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { seq: number }).seq;
}

describe('web page live stream', () => {
  it('web - after the hub restarts the page reconnects by itself (still signed in) and shows every message once, in order', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const port = String(await freePort());
    const env = { PARLEY_WEBUI_PASSWORD: 'pw-restart' };
    let hub = await startServe(home, { port, env });
    const token = await joinOver(hub, { handle: 'coder' });
    await post(hub.url, token, 'before 1');
    await post(hub.url, token, 'before 2');
    const { browser, close } = await launchBrowser();
    cleanups.push(close);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, hub, 'pw-restart');
    // Nothing arrives live before the restart: the page resumes from the head it loaded at.
    await expect.poll(() => shownTexts(page)).toEqual(['before 1', 'before 2']);

    expect(await hub.stop()).toBe(0);
    await expect.poll(() => page.locator('.live').getAttribute('data-live')).toBe('reconnecting');
    hub = await startServe(home, { port, env });
    // Posted while the page is still reconnecting: the replay brings them.
    await post(hub.url, token, 'after 1');
    await post(hub.url, token, 'after 2');
    await expect.poll(() => page.locator('.live').getAttribute('data-live'), { timeout: 15_000 }).toBe('live');
    await post(hub.url, token, 'after 3');
    await expect.poll(() => shownTexts(page), { timeout: 5000 }).toEqual(['before 1', 'before 2', 'after 1', 'after 2', 'after 3']);
    const seqs = await shownSeqs(page);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    await page.screenshot({ path: screenshotPath('after-restart') });
  }, 60_000);

  it('web - a long thread renders only the rows in view and pages older history in as the person scrolls up, each message once', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    // 450 posts in a row on purpose: the write limit is off.
    const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: 'pw-long', PARLEY_CHAT_LIMITS_WRITES_PER_MINUTE: '0' } });
    const token = await joinOver(hub, { handle: 'coder' });
    const total = 450;
    for (let i = 1; i <= total; i++) await post(hub.url, token, `line ${i}`);
    const { browser, close } = await launchBrowser();
    cleanups.push(close);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, hub, 'pw-long');
    await expect.poll(async () => (await shownTexts(page)).at(-1)).toBe(`line ${total}`);
    // Virtualized: a screenful of rows, not the page of history held.
    expect(await page.locator('.timeline article.event').count()).toBeLessThan(40);
    const timeline = page.locator('.timeline');
    const held = async () => Number(await timeline.getAttribute('data-count'));
    // Scroll to the top until the start of the thread shows; each scroll must bring an older page.
    for (let i = 0; i < 20 && (await page.locator('.timeline .start').count()) === 0; i++) {
      const before = await held();
      await timeline.evaluate((el) => el.scrollTo({ top: 0 }));
      await expect.poll(async () => (await held()) > before || (await page.locator('.timeline .start').count()) === 1).toBe(true);
    }
    // The oldest page came in where the person was reading: the view keeps its place, so the start of
    // the thread may have left the rendered rows again as the page settled. To the top once more.
    await timeline.evaluate((el) => el.scrollTo({ top: 0 }));
    await expect.poll(() => page.locator('.timeline .start').count()).toBe(1);
    await expect.poll(async () => await shownTexts(page)).toContain('line 1');
    // Every message of the thread is held once: the count the timeline reports is the thread's.
    expect(Number(await timeline.getAttribute('data-count'))).toBe(total + 1);

    // A jump into the middle (a search hit), then a live post: paging down reaches it with no gap.
    await page.getByRole('searchbox', { name: 'Search the session' }).fill('line 7');
    await page.getByRole('searchbox', { name: 'Search the session' }).press('Enter');
    await page.locator('.search-results .result', { hasText: 'line 7' }).first().click();
    await expect.poll(async () => (await page.locator('.timeline article.event.focused .md').textContent())?.trim()).toBe('line 7');
    expect(await page.evaluate('document.activeElement?.classList.contains("focused")')).toBe(true);
    await post(hub.url, token, 'after the jump');
    for (let i = 0; i < 20 && (await shownTexts(page)).at(-1) !== 'after the jump'; i++) {
      const before = await held();
      await timeline.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
      await expect.poll(async () => (await held()) > before || (await shownTexts(page)).at(-1) === 'after the jump').toBe(true);
    }
    expect((await shownTexts(page)).at(-1)).toBe('after the jump');
    expect(Number(await timeline.getAttribute('data-count'))).toBe(total + 2);
    const seqs = await shownSeqs(page);
    expect(new Set(seqs).size).toBe(seqs.length);
  }, 90_000);

  it('web - with chat.enabled=false the page says chat is off (a banner, no chat panes, composer or search), asks the hub for nothing of chat, and still shows requests live', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: 'pw-off', PARLEY_CHAT_ENABLED: 'false' } });
    const { browser, close } = await launchBrowser();
    cleanups.push(close);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // Every answer of the hub the page gets: none may be a refusal (the page must not call chat routes) but "not signed in yet".
    const refusals: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api/v1/') && response.status() >= 400 && response.status() !== 401) refusals.push(`${response.status()} ${response.url()}`);
    });
    await signIn(page, hub, 'pw-off');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Chat disabled by configuration' }).count()).toBe(1);
    expect(await page.locator('main').textContent()).toContain('Chat disabled by configuration');
    expect(await page.locator('.sidebar').textContent()).toContain('Chat disabled by configuration');
    expect(await page.locator('.timeline').count()).toBe(0);
    expect(await page.locator('.composer').count()).toBe(0);
    expect(await page.getByRole('search').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'New channel' }).count()).toBe(0);
    // Requests are not chat: one sent to the human now arrives on the live stream.
    const coder = await joinOver(hub, { handle: 'coder' });
    const asked = await fetch(`${hub.url}/api/v1/requests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${coder}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'human', intent: 'approve-deploy', text: 'Ship 1.2 tonight?' }),
    });
    expect(asked.status).toBe(201);
    await page.getByLabel('1 waiting for you').waitFor();
    await page.getByRole('button', { name: /Open requests/ }).click();
    await expect.poll(() => page.locator('main').textContent()).toContain('approve-deploy');
    expect(await page.locator('.notice.error').count()).toBe(0);
    expect(refusals).toEqual([]);
    await page.screenshot({ path: screenshotPath('chat-disabled') });
  }, 60_000);
});
