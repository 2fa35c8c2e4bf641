import type { Page } from 'playwright-core';
import type { RunningHub } from './serve.js';

/** Signs the human in through the page's form, as a person would. */
export async function signIn(page: Page, hub: RunningHub, password: string, session = 'default'): Promise<void> {
  // What the page did in the background and failed (a refresh, the stream) shows beside a failing test.
  page.on('console', (message) => {
    if (message.text().startsWith('parley:')) console.log(`[page] ${message.text()}`);
  });
  await page.goto(`${hub.url}/`);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Session', { exact: true }).fill(session);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.live-live').waitFor();
}

/** The seqs of the messages the timeline shows, in order. */
export async function shownSeqs(page: Page): Promise<number[]> {
  const seqs = await page.locator('.timeline article.event').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-seq')));
  return seqs.map(Number);
}

/** The text of the messages the timeline shows, in order. */
export async function shownTexts(page: Page): Promise<string[]> {
  return page.locator('.timeline article.event .md').allTextContents().then((texts) => texts.map((t) => t.trim()));
}
