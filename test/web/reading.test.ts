import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';

/**
 * What the human reads on the page, as a new user meets it: an open request
 * says what it asks (not only its intent), a search result shows a message's
 * words (not its markdown markup) with the matching words marked, and the
 * steering panel waits to be opened and then lists each member once with
 * that member's controls. Real browser, real hub process, agents over REST.
 */
const PASSWORD = 'read-what-is-asked';
let hub: RunningHub;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
let coderToken: string;
let reviewerToken: string;
let cleanupHome: () => void;
const dialogs: string[] = [];

async function as(token: string, method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${hub.url}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  const { home, cleanup } = tempHome();
  cleanupHome = cleanup;
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
  coderToken = await joinOver(hub, { handle: 'coder' });
  reviewerToken = await joinOver(hub, { handle: 'reviewer' });
  ({ browser, close: closeBrowser } = await launchBrowser());
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signIn(page, hub, PASSWORD);
}, 60_000);

afterAll(async () => {
  await closeBrowser?.();
  await stopHubs();
  cleanupHome?.();
});

describe('web page: what the human reads', () => {
  it('web - an open request shows its text (as markdown, inert) and its params name by name, not only the intent', async () => {
    const asked = await as(coderToken, 'POST', '/requests', {
      to: 'human',
      intent: 'approve the migration',
      text: 'It drops the old `sessions` table. **Backup first?** <img src=x onerror="window.__pwned=1">',
      params: { table: 'sessions', rows: 12000, options: ['now', 'tonight'] },
    });
    await page.getByRole('button', { name: /Open requests/ }).click();
    const item = page.locator(`.request-item[data-request="${String(asked.request_id)}"]`);
    await item.waitFor();
    expect(await item.locator('.md code').textContent()).toBe('sessions');
    expect(await item.locator('.md strong').textContent()).toBe('Backup first?');
    expect(await item.locator('.md').textContent()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await item.locator('img').count()).toBe(0);
    const params = await item.locator('.params-list > div').evaluateAll((rows) =>
      rows.map((row) => [row.querySelector('dt')?.textContent, row.querySelector('dd')?.textContent]),
    );
    expect(params).toEqual([
      ['table', 'sessions'],
      ['rows', '12000'],
      ['options', '["now","tonight"]'],
    ]);
    await page.screenshot({ path: screenshotPath('requests-asked') });
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(dialogs).toEqual([]);
  });

  it('web - the requests and for-you views read their lists when opened, even with the live stream held back', async () => {
    // A proxy that buffers or drops the event stream: the page never hears a live event.
    const held = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await held.route('**/api/v1/stream**', (route) => route.abort());
      await held.goto(`${hub.url}/`);
      await held.getByLabel('Password').fill(PASSWORD);
      await held.getByLabel('Session', { exact: true }).fill('default');
      await held.getByRole('button', { name: 'Sign in' }).click();
      await held.locator('#thread-title').waitFor();
      expect(await held.locator('.live').getAttribute('data-live')).not.toBe('live');
      const asked = await as(reviewerToken, 'POST', '/requests', { to: 'human', intent: 'read the release notes' });
      await as(coderToken, 'POST', '/dm', { to: 'human', text: 'a word while the stream is down' });
      await held.getByRole('button', { name: /Open requests/ }).click();
      const item = held.locator(`.request-item[data-request="${String(asked.request_id)}"]`);
      await item.waitFor();
      expect(await item.locator('strong bdi').first().textContent()).toBe('read the release notes');
      await held.getByRole('button', { name: /For you/ }).click();
      await expect.poll(() => held.locator('.for-you').textContent()).toContain('a word while the stream is down');
    } finally {
      await held.close();
    }
  });

  it('web - search results show the words of a message, not its markdown, with the matching words marked and markup kept as text', async () => {
    await as(coderToken, 'POST', '/threads/general/messages', {
      text: '## Plan for the cache\n\nWe use an **LRU cache** with a `10k` cap; see [the design](https://example.com/d).\n\n- evict the oldest <img src=x onerror="window.__pwned=2">',
    });
    await as(reviewerToken, 'POST', '/threads/general/messages', { text: '**Agreed**, ship the Cachés' });
    await page.getByRole('searchbox', { name: 'Search the session' }).fill('cache*');
    await page.getByRole('searchbox', { name: 'Search the session' }).press('Enter');
    const plan = page.locator('.search-results .result', { hasText: 'Plan for the' });
    await plan.waitFor();
    const snippet = plan.locator('.snippet');
    expect(await snippet.textContent()).toBe('Plan for the cache We use an LRU cache with a 10k cap; see the design. evict the oldest <img src=x onerror="window.__pwned=2">');
    expect(await snippet.locator('mark.hit').allTextContents()).toEqual(['cache', 'cache']);
    expect(await snippet.locator('img, a, strong, code, h2').count()).toBe(0);
    // A prefix query marks longer words too, whatever their case and accents.
    const agreed = page.locator('.search-results .result', { hasText: 'Agreed' });
    expect(await agreed.locator('.snippet').textContent()).toBe('Agreed, ship the Cachés');
    expect(await agreed.locator('mark.hit').allTextContents()).toEqual(['Cachés']);
    await page.screenshot({ path: screenshotPath('search-snippets') });
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    // The hit still opens the thread at the message, highlighted there.
    const seq = await plan.getAttribute('data-seq');
    await plan.click();
    await expect.poll(() => page.locator(`.timeline article.event.focused[data-seq="${seq}"]`).count()).toBe(1);
  });

  it('web - a long message shows the part around the first matching word', async () => {
    const filler = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    await as(coderToken, 'POST', '/threads/general/messages', { text: `${filler} the **needle** is here ${filler}` });
    await page.getByRole('searchbox', { name: 'Search the session' }).fill('needle');
    await page.getByRole('searchbox', { name: 'Search the session' }).press('Enter');
    const snippet = page.locator('.search-results .result .snippet').first();
    await snippet.locator('mark.hit').waitFor();
    const text = (await snippet.textContent())!;
    expect(text.startsWith('… ')).toBe(true);
    expect(text.endsWith(' …')).toBe(true);
    expect(text).toContain('the needle is here');
    expect(text.length).toBeLessThanOrEqual(210);
  });

  it('web - the steering panel starts closed; opened, it lists each member once, each with their own controls', async () => {
    await page.locator('.sidebar').getByRole('button', { name: /# general/ }).click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('# general');
    const toggle = page.locator('.thread-head').getByRole('button', { name: 'Steering' });
    expect(await toggle.getAttribute('aria-pressed')).toBe('false');
    expect(await page.locator('aside.steering').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('steering-closed') });

    await toggle.click();
    const members = page.locator('aside.steering table.members');
    await members.waitFor();
    expect(await members.locator('thead th').allTextContents()).toEqual(['Member', 'Muted', 'Prod']);
    const rows = members.locator('tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-member')))).toEqual(['coder', 'human', 'reviewer']);
    // One mute switch and one prod button per other member, named for that member; none on the human's own row.
    expect(await page.locator('aside.steering').getByRole('switch').count()).toBe(2);
    expect(await page.locator('aside.steering').getByRole('button', { name: /^Prod/ }).count()).toBe(2);
    expect(await page.locator('[data-member="human"]').getByRole('button').count()).toBe(0);
    await page.getByRole('switch', { name: 'Mute @coder' }).check();
    await expect.poll(() => page.locator('[data-member="coder"] .muted-by').textContent()).toBe('by @human');
    expect(await page.getByRole('switch', { name: 'Mute @coder' }).isChecked()).toBe(true);
    await page.screenshot({ path: screenshotPath('steering-open') });
    const refused = await fetch(`${hub.url}/api/v1/threads/general/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${coderToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'can I still talk?' }),
    });
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('PARTICIPANT_MUTED');
    await page.getByRole('switch', { name: 'Mute @coder' }).uncheck();
    await expect.poll(() => page.locator('[data-member="coder"] .muted-by').count()).toBe(0);
    await page.getByRole('button', { name: 'Prod @reviewer' }).click();
    await expect.poll(() => page.locator('.timeline .event-control').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('@human prodded @reviewer')]));
  });
});
