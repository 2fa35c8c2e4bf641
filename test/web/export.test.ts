import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launchBrowser, screenshotPath } from '../helpers/browser.js';
import { tempHome } from '../helpers/hub.js';
import { cliAt, joinOver, restCall, startServe, stopHubs } from '../helpers/serve.js';
import { signIn } from '../helpers/web.js';

/** Exporting a thread from its header, in a real browser against a real hub process. */
const PASSWORD = 'keep-a-record';
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  // The hubs first: a running hub may still write in its home (its search index starts seconds after it opens).
  await stopHubs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('web page: export', () => {
  it('web export - the signed export downloads a file that "parley verify" accepts', async () => {
    const { home, cleanup } = tempHome();
    cleanups.push(cleanup);
    const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: PASSWORD } });
    const coder = await joinOver(hub, { handle: 'coder' });
    expect((await restCall(hub, coder, 'POST', '/threads/general/messages', { text: 'the plan, for the record' })).status).toBe(201);
    const { browser, close } = await launchBrowser();
    cleanups.push(close);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signIn(page, hub, PASSWORD);
    await page.locator('.timeline article.event').first().waitFor();
    await page.screenshot({ path: screenshotPath('export-buttons') });

    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 10_000 }),
      page.locator('.thread-head').getByRole('link', { name: 'Export signed' }).click({ timeout: 10_000 }),
    ]);
    expect(download.suggestedFilename()).toBe('general.signed.jsonl');
    const file = path.join(home, download.suggestedFilename());
    await download.saveAs(file);

    const cli = cliAt(home, hub.url);
    const verified = cli('verify', file);
    expect(verified.stderr).toBe('');
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/^verified: 2 events \(seq 1-2\) by 1 author \(@coder\) in #general, against the hub key ed25519:\S+ \(local mode\)\n$/);
    // The channel's creation and the message: the same file the CLI's signed export writes.
    expect(JSON.parse(cli('verify', file, '--json').stdout)).toMatchObject({ ok: true, events: 2, authors: 1, handles: ['coder'], thread: { name: 'general' } });
    expect(fs.readFileSync(file, 'utf8')).toContain('the plan, for the record');
  }, 60_000);
});
