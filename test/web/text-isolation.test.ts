import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { connectHttp, type McpTestClient } from '../helpers/mcp.js';
import { joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';

/**
 * What agents write cannot disguise itself on the human's page: a right-to-left
 * override (U+202E, a format character the hub stores as text) stays inside
 * the piece of text it was written in, and a nickname cannot pass for the
 * participant's kind. Real browser, real hub process, agents over MCP.
 */
const PASSWORD = 'isolate-the-text';
const RLO = '\u202E';
let hub: RunningHub;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let page: Page;
let bot: McpTestClient;
let daveToken: string;
let cleanupHome: () => void;

beforeAll(async () => {
  const { home, cleanup } = tempHome();
  cleanupHome = cleanup;
  hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
  // An agent whose nickname imitates a human's handle and kind, and the real human dave.
  const botToken = await joinOver(hub, { handle: 'bot', profile: { nickname: '@dave (human)' } });
  daveToken = await joinOver(hub, { handle: 'dave', profile: { kind: 'human' } });
  bot = await connectHttp(hub.url, botToken, '?rooms=all');
  ({ browser, close: closeBrowser } = await launchBrowser());
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, hub, PASSWORD);
}, 60_000);

afterAll(async () => {
  await bot?.close().catch(() => undefined);
  await closeBrowser?.();
  await stopHubs();
  cleanupHome?.();
});

/**
 * Where the text before `marker` in `line` ends on screen, and where `marker`
 * starts: when nothing reorders the line, everything written before the
 * marker is drawn left of it.
 */
async function drawnBefore(line: Locator, marker: string): Promise<{ textRight: number; markerLeft: number }> {
  return line.evaluate((element, selector) => {
    const target = element.querySelector(selector)!;
    const range = element.ownerDocument.createRange();
    range.setStart(element, 0);
    range.setEndBefore(target);
    const rights = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.right);
    return { textRight: Math.max(...rights), markerLeft: target.getBoundingClientRect().left };
  }, marker);
}

async function post(token: string, text: string): Promise<number> {
  const res = await fetch(`${hub.url}/api/v1/threads/general/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { seq: number }).seq;
}

describe('web page: author text is isolated and cannot imitate the page', () => {
  it('web - a nickname cannot pass for the kind: the kind is its own badge from the hub’s record, the nickname a quoted name after it', async () => {
    const botSeq = (await bot.call('chat_post', { text: 'hello, it is me' })).value.seq as number;
    const daveSeq = await post(daveToken, 'and this is the real dave');
    const botRow = page.locator(`.timeline article.event[data-seq="${String(botSeq)}"]`);
    const daveRow = page.locator(`.timeline article.event[data-seq="${String(daveSeq)}"]`);
    await daveRow.waitFor();
    const chip = botRow.locator('header .author');
    expect(await chip.locator('.handle').textContent()).toBe('@bot');
    expect(await chip.locator('.kind-badge').count()).toBe(1);
    expect(await chip.locator('.kind-badge').getAttribute('data-kind')).toBe('agent');
    expect(await chip.locator('.kind-badge').textContent()).toBe('agent');
    expect(await botRow.locator('[data-kind="human"], .kind-human, .kind-badge-human').count()).toBe(0);
    // The nickname is shown as a nickname: quoted, after the badge, never between the handle and the kind.
    expect(await chip.locator('.nickname').textContent()).toBe('“@dave (human)”');
    const [handleBox, badgeBox, nicknameBox] = await Promise.all(['.handle', '.kind-badge', '.nickname'].map((s) => chip.locator(s).boundingBox()));
    expect(handleBox!.x + handleBox!.width).toBeLessThanOrEqual(badgeBox!.x);
    expect(badgeBox!.x + badgeBox!.width).toBeLessThanOrEqual(nicknameBox!.x);
    // The badge looks like nothing text can produce: a filled label, not plain text.
    const badgeBackground = await chip.locator('.kind-badge').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor);
    expect(badgeBackground).not.toBe('rgba(0, 0, 0, 0)');
    // The real human dave has the human badge.
    expect(await daveRow.locator('header .author .kind-badge').getAttribute('data-kind')).toBe('human');
    await botRow.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('nickname-kind') });
  });

  it('web - a right-to-left override in a message stays in its body: the body is isolated and the next message reads as usual', async () => {
    const reversed = (await bot.call('chat_post', { text: `normal then ${RLO}reversed to the end` })).value.seq as number;
    const next = (await bot.call('chat_post', { text: 'the next message' })).value.seq as number;
    const nextRow = page.locator(`.timeline article.event[data-seq="${String(next)}"]`);
    await nextRow.waitFor();
    const body = page.locator(`.timeline article.event[data-seq="${String(reversed)}"] .md`);
    expect(await body.getAttribute('dir')).toBe('auto');
    expect(await body.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).unicodeBidi)).toBe('isolate');
    const header = await drawnBefore(nextRow.locator('header'), 'time');
    expect(header.textRight).toBeLessThanOrEqual(header.markerLeft);
    await page.screenshot({ path: screenshotPath('rtl-message') });
  });

  it('web - a right-to-left override in a side channel title does not reverse the note line it is quoted in (time and link stay after it)', async () => {
    const opened = await bot.call('side_open', { title: `plan ${RLO}b` });
    expect(opened.isError, opened.text).toBe(false);
    const note = page.locator('.timeline .event .note', { hasText: 'opened side channel' });
    await note.waitFor();
    const line = await drawnBefore(note, 'time');
    expect(line.textRight).toBeLessThanOrEqual(line.markerLeft);
    // The "open" link after the time, once the page knows the side channel.
    await note.locator('button').waitFor();
    const link = await drawnBefore(note, 'button');
    expect(link.textRight).toBeLessThanOrEqual(link.markerLeft);
    expect(await note.locator('bdi').textContent()).toBe(`plan ${RLO}b`);
    await note.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('rtl-note') });
  });

  it('web - a right-to-left override in a request intent does not reverse its card: the addressee and status stay after it', async () => {
    const asked = await bot.call('request_send', { to: 'human', intent: `approve${RLO} the plan`, thread: 'general' });
    expect(asked.isError, asked.text).toBe(false);
    const line = page.locator(`.card.request[data-request="${String(asked.value.request_id)}"] p`).first();
    await line.waitFor();
    const status = await drawnBefore(line, '.status');
    expect(status.textRight).toBeLessThanOrEqual(status.markerLeft);
    await line.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('rtl-request') });
  });

  it('web - in "For you", a thread name with an override does not move the time after it', async () => {
    const side = (await bot.call('side_open', { title: `${RLO}mirrored side` })).value as { thread?: { id: string }; id?: string };
    const thread = side.thread?.id ?? side.id;
    expect(thread).toBeDefined();
    const mention = await bot.call('chat_post', { thread, text: '@human a look, please' });
    expect(mention.isError, mention.text).toBe(false);
    await page.getByRole('button', { name: /For you/ }).click();
    const item = page.locator(`.for-you-item[data-seq="${String(mention.value.seq)}"] p`).first();
    await item.waitFor();
    const line = await drawnBefore(item, 'time');
    expect(line.textRight).toBeLessThanOrEqual(line.markerLeft);
    await page.screenshot({ path: screenshotPath('rtl-for-you') });
  });
});
