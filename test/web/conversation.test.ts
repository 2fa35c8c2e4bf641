import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { connectHttp, type McpTestClient } from '../helpers/mcp.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { shownTexts, signIn } from '../helpers/web.js';

/**
 * The human's page in a real browser against a real hub process, with agents
 * on the other side speaking MCP over HTTP with the official SDK client.
 */
const PASSWORD = 'steer-the-agents';
let hub: RunningHub;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
let coder: McpTestClient;
let reviewer: McpTestClient;
let coderToken: string;
let cleanupHome: () => void;
const dialogs: string[] = [];
const requested: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  const { home, cleanup } = tempHome();
  cleanupHome = cleanup;
  // The meeting test says 200 lines in a row on purpose: the write limit is off.
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD, PARLEY_CHAT_LIMITS_WRITES_PER_MINUTE: '0' } });
  coderToken = await joinOver(hub, { handle: 'coder', profile: { client: 'claude-code', model: 'model-a', roles: ['implementer'] } });
  const reviewerToken = await joinOver(hub, { handle: 'reviewer', profile: { client: 'codex-cli' } });
  await joinOver(hub, { handle: 'designer' });
  coder = await connectHttp(hub.url, coderToken, '?rooms=all');
  reviewer = await connectHttp(hub.url, reviewerToken, '?rooms=all');
  await coder.call('chat_post', { text: 'Starting on the **cache layer**. Plan:\n\n```ts\nconst cache = new Map<string, Entry>();\n```' });
  ({ browser, close: closeBrowser } = await launchBrowser());
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('request', (r) => requested.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await signIn(page, hub, PASSWORD);
  await page.locator('.timeline article.event').first().waitFor();
}, 60_000);

afterAll(async () => {
  await coder?.close().catch(() => undefined);
  await reviewer?.close().catch(() => undefined);
  await closeBrowser?.();
  await stopHubs();
  cleanupHome?.();
});

describe('web page: the human in the conversation', () => {
  it('web - the timeline shows the thread with author chip, markdown and code; an agent post appears live, without a reload', async () => {
    expect(await page.locator('#thread-title').textContent()).toBe('# general');
    const first = page.locator('.timeline article.event').first();
    expect(await first.locator('.author .handle').textContent()).toBe('@coder');
    expect(await first.locator('.author .kind-badge').textContent()).toBe('agent');
    expect(await first.locator('.author').getAttribute('title')).toBe('agent · claude-code · model-a · implementer');
    expect(await first.locator('.md strong').textContent()).toBe('cache layer');
    expect(await first.locator('.md pre code').textContent()).toContain('const cache = new Map<string, Entry>();');
    expect(await first.locator('time').getAttribute('title')).toMatch(/\d/);
    expect(await first.locator('time').textContent()).toBe('just now');

    // How fast it appears is measured by the benchmark (bench/web.ts), not here: a busy machine must not fail this test.
    const posted = await coder.call('chat_post', { text: 'first draft pushed, tests are green' });
    expect(posted.isError).toBe(false);
    await page.locator(`.timeline article.event[data-seq="${String(posted.value.seq)}"]`).waitFor({ timeout: 15_000 });
    expect((await shownTexts(page)).at(-1)).toBe('first draft pushed, tests are green');
    await page.screenshot({ path: screenshotPath('thread') });
  });

  it("web - the human's post (Enter sends, Shift+Enter is a new line, @ autocompletes) reaches the agent's inbox; typing shows as presence", async () => {
    const box = page.getByRole('textbox', { name: /^Message general/ });
    await box.click();
    await box.pressSequentially('Looks good @co');
    await page.getByRole('listbox', { name: 'Mention a participant' }).waitFor();
    expect(await page.getByRole('listbox', { name: 'Mention a participant' }).getByRole('option').allTextContents()).toEqual(['@coder agent']);
    await page.screenshot({ path: screenshotPath('mention-autocomplete') });
    // While the human types, agents see it as presence.
    await expect.poll(async () => ((await coder.call('who')).value.participants as Array<{ handle: string; state: string }> | undefined)?.find((p) => p.handle === 'human')?.state).toBe('typing');
    await box.press('Enter');
    expect(await box.inputValue()).toBe('Looks good @coder ');
    await box.press('Shift+Enter');
    await box.pressSequentially('one question: what about eviction?');
    // The counter follows the text on the next render: read it once it has.
    await expect.poll(() => page.locator('.composer .counter').textContent()).toMatch(/^53 \/ /);
    await box.press('Enter');
    await expect.poll(() => box.inputValue()).toBe('');
    const inbox = await coder.call('inbox');
    expect(inbox.value.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'mention', author: 'human', text: 'Looks good @coder \none question: what about eviction?' })]),
    );
    await expect.poll(async () => (await shownTexts(page)).at(-1)).toContain('one question: what about eviction?');
    expect(await page.locator('.timeline article.event').last().locator('.mention').textContent()).toBe('@coder');
  });

  it("web - mute and pause from the page make the agent's next post fail with the explicit error; the panel shows who set them", async () => {
    // The panel starts closed: the Steering button opens it.
    await page.locator('.thread-head').getByRole('button', { name: 'Steering' }).click();
    await page.getByRole('switch', { name: 'Mute @coder' }).check();
    await expect.poll(() => page.locator('[data-member="coder"] .muted-by').textContent()).toBe('by @human');
    const muted = await coder.call('chat_post', { text: 'can I still talk?' });
    expect(muted.isError).toBe(true);
    expect(muted.text).toMatch(/^PARTICIPANT_MUTED: .*muted in thread "general" by @human/);
    await page.screenshot({ path: screenshotPath('steering-muted') });
    await page.getByRole('switch', { name: 'Mute @coder' }).uncheck();
    await expect.poll(() => page.locator('[data-member="coder"] .muted-by').count()).toBe(0);

    await page.locator('[data-control="Paused"]').getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.locator('[data-control="Paused"] .by').textContent()).toBe(' — set by @human');
    const paused = await reviewer.call('chat_post', { text: 'while paused' });
    expect(paused.isError).toBe(true);
    expect(paused.text).toMatch(/^THREAD_PAUSED: Thread "general" is paused by @human/);
    expect(await page.locator('.thread-head .badge.warn').textContent()).toBe('paused by @human');
    await page.locator('[data-control="Paused"]').getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.locator('[data-control="Paused"] .state').textContent()).toBe('off');
    expect((await reviewer.call('chat_post', { text: 'resumed, carrying on' })).isError).toBe(false);

    // The rest of the thread's controls, each showing who set it.
    await page.locator('[data-control="Discussion mode"]').getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.locator('[data-control="Discussion mode"] .by').textContent()).toBe(' — set by @human');
    await page.locator('[data-control="Done"]').getByRole('button', { name: 'Mark done' }).click();
    await expect.poll(() => page.locator('[data-control="Done"] .by').textContent()).toBe(' — set by @human');
    await page.locator('[data-control="Done"]').getByRole('button', { name: 'Reopen' }).click();
    await page.locator('[data-control="Discussion mode"]').getByRole('button', { name: 'Turn off' }).click();
    await page.locator('[data-control="Invited answer unprompted"]').getByRole('button', { name: 'Turn on' }).click();
    await expect.poll(() => page.locator('[data-control="Invited answer unprompted"] .by').textContent()).toBe(' — set by @human');
    // Pinned: retention keeps the whole thread.
    await page.locator('[data-control="Pinned"]').getByRole('button', { name: 'Pin' }).click();
    await expect.poll(() => page.locator('[data-control="Pinned"] .by').textContent()).toBe(' — set by @human');
    await page.locator('[data-control="Pinned"]').getByRole('button', { name: 'Unpin' }).click();
    await expect.poll(() => page.locator('[data-control="Pinned"] .state').textContent()).toBe('off');
    // Invite with a profile: a role in this thread.
    await page.locator('.invite').getByLabel('Participant').selectOption('designer');
    await page.locator('.invite').getByLabel('Role in this thread').fill('ux');
    await page.locator('.invite').getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => page.locator('[data-member="designer"] .badge').allTextContents()).toContain('invited');
    await page.getByRole('button', { name: /^Prod @/ }).first().click();
    // Each control is in the log as a one-line note.
    await expect.poll(() => page.locator('.timeline .event-control').allTextContents()).toEqual(
      expect.arrayContaining([
        expect.stringContaining('@human muted @coder'),
        expect.stringContaining('@human paused the thread'),
        expect.stringContaining('@human prodded @'),
        expect.stringContaining('@human invited @designer'),
      ]),
    );
  });

  it('web - a side channel opened from a message and closed with a summary that is threaded back', async () => {
    const message = page.locator('.timeline article.event', { hasText: 'first draft pushed' });
    await message.hover();
    await message.getByRole('button', { name: /side channel/ }).click();
    await page.getByLabel('Title').fill('eviction policy');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('↳ eviction policy');
    // Nested under its parent in the sidebar.
    expect(await page.locator('.sidebar ul.nested').textContent()).toContain('eviction policy');
    await page.getByRole('textbox', { name: /^Message eviction policy/ }).fill('LRU with a 10k cap?');
    await page.getByRole('textbox', { name: /^Message eviction policy/ }).press('Enter');
    await page.locator('.timeline article.event', { hasText: 'LRU with a 10k cap?' }).waitFor();
    await page.screenshot({ path: screenshotPath('side-channel') });
    await page.getByRole('button', { name: 'Close with summary' }).click();
    await page.getByLabel(/Summary/).fill('Agreed: LRU, 10k entries, revisit after load tests.');
    await page.getByRole('button', { name: 'Close and post summary' }).click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('# general');
    const summary = page.locator('.timeline article.event', { hasText: 'Agreed: LRU, 10k entries' });
    await summary.waitFor();
    expect(await summary.locator('.side-summary').textContent()).toBe('Summary of side channel eviction policy');
    // The agents see it in the parent thread too.
    const history = await reviewer.call('chat_history', { thread: 'general' });
    expect(JSON.stringify(history.value)).toContain('Agreed: LRU, 10k entries, revisit after load tests.');
  });

  it('web - message text cannot inject script or HTML: <img onerror> and javascript: links render inert', async () => {
    const attack = await coder.call('chat_post', { text: 'look <img src=x onerror="window.__pwned=1;alert(1)"> and [click me](javascript:alert(document.cookie)) <script>window.__pwned=2</script>' });
    expect(attack.isError).toBe(false);
    const row = page.locator(`.timeline article.event[data-seq="${String(attack.value.seq)}"]`);
    await row.waitFor();
    expect(await row.locator('.md img').count()).toBe(0);
    expect(await row.locator('.md script').count()).toBe(0);
    expect(await row.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await row.locator('.md').textContent()).toContain('<img src=x onerror="window.__pwned=1;alert(1)">');
    await row.locator('.md').getByText('click me', { exact: false }).click();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(dialogs).toEqual([]);
    await page.screenshot({ path: screenshotPath('xss-inert') });
  });

  it('web - a request to the human shows in the requests view and is answered in one click; the timeline links its status', async () => {
    const asked = await coder.call('request_send', { to: 'human', intent: 'approve the migration', text: 'It drops the old `sessions` table.' });
    expect(asked.isError, asked.text).toBe(false);
    await expect.poll(() => page.locator('.sidebar .unread[aria-label$="waiting for you"]').textContent()).toBe('1');
    await page.getByRole('button', { name: /Open requests/ }).click();
    const item = page.locator(`.request-item[data-request="${String(asked.value.request_id)}"]`);
    expect(await item.textContent()).toContain('approve the migration from @coder to @human');
    expect(await item.locator('.md code').textContent()).toBe('sessions');
    await page.screenshot({ path: screenshotPath('requests') });
    await item.getByLabel(/Note for/).fill('Approved; keep a backup first.');
    await item.getByRole('button', { name: 'Completed' }).click();
    await expect.poll(() => page.locator('.request-item').count()).toBe(0);
    const outgoing = await coder.call('requests_open');
    expect(JSON.stringify(outgoing.value)).not.toContain(String(asked.value.request_id));
    const inbox = await coder.call('inbox');
    expect(inbox.value.items).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'response', author: 'human' })]));
    // The request card in its thread shows the final status.
    await page.locator('.sidebar button[data-thread]', { hasText: '@coder' }).click();
    await expect.poll(() => page.locator(`.card.request[data-request="${String(asked.value.request_id)}"] .status`).textContent()).toBe('Completed');
  });

  it('web - "For you" lists what is addressed to the human until they mark it done (acknowledged in the hub)', async () => {
    const mention = await coder.call('chat_post', { text: '@human can you check the eviction plan?' });
    expect(mention.isError).toBe(false);
    await page.getByRole('button', { name: /For you/ }).click();
    const item = page.locator(`.for-you-item[data-seq="${String(mention.value.seq)}"]`);
    await item.waitFor();
    expect(await item.locator('.badge').textContent()).toBe('mention');
    expect(await item.locator('.snippet').textContent()).toBe('@human can you check the eviction plan?');
    await page.screenshot({ path: screenshotPath('for-you') });
    await item.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => item.count()).toBe(0);
    const acknowledged = await page.request.get(`${hub.url}/api/v1/deliveries?state=acknowledged`);
    expect(JSON.stringify(await acknowledged.json())).toContain(String(mention.value.id));
    await page.getByRole('button', { name: 'Mark all done' }).click();
    await expect.poll(() => page.locator('.for-you-item').count()).toBe(0);
    expect(await page.locator('.for-you').textContent()).toContain('Nothing is addressed to you');
  });

  it('web - the meeting view shows who is here, the live ring with numbers and a marker where messages were dropped', async () => {
    await coder.call('meeting_join', { meeting: 'standup' });
    await coder.call('meeting_say', { meeting: 'standup', text: 'yesterday: cache layer' });
    await expect.poll(() => page.locator('.sidebar').textContent()).toContain('# standup');
    await page.getByRole('button', { name: /# standup/ }).click();
    await expect.poll(() => page.locator('.who-here').textContent()).toBe('Here: @coder (implementer)');
    await expect.poll(() => page.locator('.ring li[data-number="1"]').textContent()).toContain('yesterday: cache layer');
    await reviewer.call('meeting_say', { meeting: 'standup', text: 'today: review it' });
    await expect.poll(() => page.locator('.ring li[data-number="2"]').textContent()).toContain('@reviewer');
    await expect.poll(() => page.locator('.who-here').textContent()).toContain('@reviewer');
    // The ring keeps the newest messages only: past its size, a marker says how many were dropped.
    for (let i = 3; i <= 205; i++) await reviewer.call('meeting_say', { meeting: 'standup', text: `status line ${i}` });
    await page.getByRole('button', { name: /# standup/ }).click();
    await expect.poll(() => page.locator('.ring .dropped').textContent(), { timeout: 5000 }).toMatch(/^\d+ older messages dropped from the ring$/);
    await page.screenshot({ path: screenshotPath('meeting') });
  });

  it('web - search jumps to the message in its thread; export gives the thread as Markdown and JSON Lines', async () => {
    await page.getByRole('searchbox', { name: 'Search the session' }).fill('LRU cap');
    await page.getByRole('searchbox', { name: 'Search the session' }).press('Enter');
    const hit = page.locator('.search-results .result', { hasText: 'LRU with a 10k cap' });
    await hit.waitFor();
    await page.screenshot({ path: screenshotPath('search') });
    const seq = await hit.getAttribute('data-seq');
    await hit.click();
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('↳ eviction policy');
    await expect.poll(() => page.locator(`.timeline article.event.focused[data-seq="${seq}"]`).count()).toBe(1);
    await page.locator('.sidebar').getByRole('button', { name: /# general/ }).click();
    const markdownHref = await page.getByRole('link', { name: 'Export Markdown' }).getAttribute('href');
    const jsonlHref = await page.getByRole('link', { name: 'Export JSONL' }).getAttribute('href');
    const markdown = await page.request.get(`${hub.url}${markdownHref}`);
    expect(markdown.status()).toBe(200);
    expect(await markdown.text()).toContain('first draft pushed, tests are green');
    const jsonl = await (await page.request.get(`${hub.url}${jsonlHref}`)).text();
    const lines = jsonl.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(lines.length).toBeGreaterThan(5);
  });

  it('web - usable with the keyboard alone: reach a thread and post without the mouse', async () => {
    // A fresh load, then only keys: the first Tab reaches the skip link.
    await page.reload();
    await page.locator('.live-live').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to the conversation');
    // Tab to the first channel in the sidebar and open it.
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate("document.activeElement?.getAttribute('data-thread') ?? null")) !== null) break;
    }
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#thread-title').textContent()).toBe('# general');
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate("document.activeElement?.getAttribute('aria-label')")) === 'Message general') break;
    }
    await page.keyboard.type('typed with the keyboard only');
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await shownTexts(page)).at(-1)).toBe('typed with the keyboard only');
  });

  it('web - the page fetches nothing but the hub, under a content security policy', async () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => !url.startsWith(`${hub.url}/`) && !url.startsWith('data:'))).toEqual([]);
    const response = await page.request.get(`${hub.url}/`);
    expect(response.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    // The app itself runs within the policy: nothing it does was refused.
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  });

  it('web - readable on a narrow window and in the dark theme', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: screenshotPath('thread-dark') });
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(22, 24, 29)');
    await page.setViewportSize({ width: 420, height: 800 });
    expect(await page.locator('.sidebar-wrap').isVisible()).toBe(false);
    await page.screenshot({ path: screenshotPath('narrow-dark') });
    await page.getByRole('button', { name: /Conversations/ }).click();
    expect(await page.locator('.sidebar-wrap').isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('narrow-menu') });
    await page.locator('.sidebar').getByRole('button', { name: /# general/ }).click();
    expect(await page.locator('.sidebar-wrap').isVisible()).toBe(false);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('web - a new DM is shown by the other handle with one unread (live and after a reload), and its start reads as a sentence', async () => {
    const designerToken = await joinOver(hub, { handle: 'designer' });
    const sent = await fetch(`${hub.url}/api/v1/dm`, {
      method: 'POST',
      headers: { authorization: `Bearer ${designerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'human', text: 'one question for you' }),
    });
    expect(sent.status).toBe(201);
    const link = page.locator('.sidebar').getByRole('button', { name: /@designer/ });
    // The DM's creation is its own bookkeeping: one message, one unread.
    await expect.poll(() => link.locator('.unread').textContent()).toBe('1');
    await page.reload();
    await page.locator('.live-live').waitFor();
    await expect.poll(() => link.locator('.unread').textContent()).toBe('1');
    await link.click();
    await page.locator('.timeline article.event', { hasText: 'one question for you' }).waitFor();
    const timeline = (await page.locator('.timeline').textContent()) ?? '';
    expect(timeline).toContain('@designer started this direct message');
    expect(timeline).not.toContain('dm:designer,human');
  });
});
