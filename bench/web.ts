import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { chromium, type Browser } from 'playwright-core';
import type { openHub } from '../src/hub/hub.js';
import { openBenchHub } from './open-hub.js';
import { startHttpServer } from '../src/http/server.js';
import { createSilentLogger } from '../src/util/logger.js';
import { tempDir, UNLIMITED_WRITES } from './core.js';
import { summarize, type Summary } from './stats.js';

/**
 * The web page in Debian's chromium against a hub on loopback: how long an
 * agent's post takes to appear in the page (measured in the browser, on the
 * same wall clock as the poster), and how long a thread of 10,000 messages
 * takes from navigation to its newest message shown with the composer ready.
 */
export const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'bench-password';
const BROWSER_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface WebBench {
  postToPage: Summary;
  load: { messages: number; runs: number[]; median: number; renderedRows: number };
}

export async function webBench(options: { posts: number; messages: number; loads: number }): Promise<WebBench | undefined> {
  if (!fs.existsSync(CHROMIUM)) return undefined;
  const home = tempDir('parley-bench-web-');
  const hub = await openBenchHub({ home, logger: createSilentLogger(), config: { ...UNLIMITED_WRITES, webui: { password: PASSWORD } } });
  const server = await startHttpServer({ hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: BROWSER_FLAGS });
  try {
    await hub.join({ handle: 'coder', session: 'default' });
    const token = await hub.issueToken('coder', 'default');
    const postToPage = await measurePostToPage(browser, server.url, token, options.posts);
    const load = await measureLoad(browser, server.url, hub, options.messages, options.loads);
    return { postToPage, load };
  } finally {
    await browser.close();
    await server.close();
    await hub.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

async function signedInContext(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const res = await context.request.post(`${url}/api/v1/login`, { data: { password: PASSWORD } });
  if (!res.ok()) throw new Error(`sign-in answered ${res.status()}`);
  return context;
}

/** Posts one at a time over REST as the agent; the page reports when each appears (a MutationObserver, wall-clock time). */
async function measurePostToPage(browser: Browser, url: string, token: string, posts: number): Promise<Summary> {
  const context = await signedInContext(browser, url);
  const page = await context.newPage();
  const arrived = new Map<number, number>();
  const waiters = new Map<number, () => void>();
  await page.exposeFunction('__parleySeen', (seq: number, at: number) => {
    arrived.set(seq, at);
    waiters.get(seq)?.();
  });
  // In-page code as source text: it runs in the browser, not under this file's (Node) types.
  await page.addInitScript({
    content: `
      const reported = new Set();
      new MutationObserver(() => {
        for (const node of document.querySelectorAll('.timeline article.event[data-seq]')) {
          const seq = node.getAttribute('data-seq');
          if (reported.has(seq)) continue;
          reported.add(seq);
          window.__parleySeen(Number(seq), performance.timeOrigin + performance.now());
        }
      }).observe(document, { subtree: true, childList: true });`,
  });
  const post = (text: string) =>
    fetch(`${url}/api/v1/threads/general/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    }).then((r) => r.json() as Promise<{ seq: number }>);
  await post('warming up');
  await page.goto(`${url}/`);
  await page.locator('.live-live').waitFor();
  await page.locator('.timeline article.event').first().waitFor();
  const samples: number[] = [];
  for (let i = 0; i < posts; i++) {
    const sentAt = performance.timeOrigin + performance.now();
    const { seq } = await post(`post ${i} from the agent`);
    // The page may show it before the poster has its answer: the arrival is kept by seq either way.
    if (!arrived.has(seq)) await new Promise<void>((resolve) => waiters.set(seq, resolve));
    samples.push(arrived.get(seq)! - sentAt);
  }
  await context.close();
  return summarize(samples);
}

/** A thread of `messages` messages; from navigation to its newest message shown with the composer ready, on the page's clock. */
async function measureLoad(browser: Browser, url: string, hub: Awaited<ReturnType<typeof openHub>>, messages: number, loads: number) {
  const actor = hub.actor('coder', 'default');
  const channel = await actor.createChannel({ name: 'big' });
  let last = 0;
  for (let i = 0; i < messages; i++) {
    const result = await actor.post({ thread: 'big', text: `message ${i}: ${'lorem ipsum dolor sit amet '.repeat(1 + (i % 4))}` });
    last = result.seq;
  }
  const runs: number[] = [];
  let renderedRows = 0;
  for (let run = 0; run < loads; run++) {
    const context = await signedInContext(browser, url);
    const page = await context.newPage();
    await page.addInitScript({
      content: `
        new MutationObserver((records, observer) => {
          if (document.querySelector('.timeline article.event[data-seq="${last}"]') && document.querySelector('.composer textarea')) {
            window.__parleyReady = performance.now();
            observer.disconnect();
          }
        }).observe(document, { subtree: true, childList: true });`,
    });
    await page.goto(`${url}/#thread=${channel.id}`);
    // A function, not source text: the page's content security policy forbids eval.
    await page.waitForFunction(() => (globalThis as { __parleyReady?: number }).__parleyReady !== undefined);
    runs.push((await page.evaluate('window.__parleyReady')) as number);
    renderedRows = await page.locator('.timeline article.event').count();
    await context.close();
  }
  const sorted = [...runs].sort((a, b) => a - b);
  return { messages, runs, median: sorted[Math.floor(sorted.length / 2)]!, renderedRows };
}
