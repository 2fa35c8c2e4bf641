import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Which Chromium the browser tests drive: PARLEY_TEST_CHROMIUM when set, else
 * Debian's /usr/bin/chromium when installed, else the Chromium that npm installs
 * with @sparticuz/chromium (a dev dependency), so `npm install && npm test` needs
 * no manual step on a fresh machine.
 */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export interface ChromiumChoice {
  executablePath: string;
  source: 'PARLEY_TEST_CHROMIUM' | 'system' | 'bundled';
  /** A folder the bundled browser was unpacked into, removed when the run ends. */
  unpackedInto?: string;
}

export async function chooseChromium(env: NodeJS.ProcessEnv = process.env): Promise<ChromiumChoice> {
  const given = env.PARLEY_TEST_CHROMIUM;
  if (given && given !== 'bundled') {
    if (!fs.existsSync(given)) throw new Error(`PARLEY_TEST_CHROMIUM names ${given}, which does not exist: unset it or give a Chromium binary`);
    return { executablePath: given, source: 'PARLEY_TEST_CHROMIUM' };
  }
  if (given !== 'bundled' && fs.existsSync(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, source: 'system' };
  return unpackBundledChromium();
}

/**
 * @sparticuz/chromium unpacks into os.tmpdir() and reuses whatever "chromium" it
 * finds there, even half-written by another process: give it a fresh folder of
 * its own, once per test run, and remove it afterwards.
 */
async function unpackBundledChromium(): Promise<ChromiumChoice> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-chromium-'));
  const tmpdirBefore = process.env.TMPDIR;
  process.env.TMPDIR = folder;
  try {
    const { default: bundled } = await import('@sparticuz/chromium');
    const executablePath = await bundled.executablePath();
    return { executablePath, source: 'bundled', unpackedInto: folder };
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true });
    throw error;
  } finally {
    if (tmpdirBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirBefore;
  }
}
