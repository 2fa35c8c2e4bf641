import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseChromium, SYSTEM_CHROMIUM } from '../helpers/browser-binary.js';

describe('browser for the tests', () => {
  it('browser - without Debian\'s chromium the tests drive the Chromium npm installed, unpacked into a folder of their own and removed after', async () => {
    const choice = await chooseChromium({ PARLEY_TEST_CHROMIUM: 'bundled' });
    try {
      expect(choice.source).toBe('bundled');
      expect(choice.executablePath.startsWith(`${choice.unpackedInto!}/`)).toBe(true);
      const browser = await chromium.launch({ executablePath: choice.executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
      try {
        const page = await browser.newPage();
        await page.setContent('<p id="said">parley</p>');
        expect(await page.textContent('#said')).toBe('parley');
      } finally {
        await browser.close();
      }
    } finally {
      if (choice.unpackedInto) fs.rmSync(choice.unpackedInto, { recursive: true, force: true });
    }
  });

  it('browser - Debian\'s chromium when installed, unless PARLEY_TEST_CHROMIUM names another; a wrong name is an error that says what to do', async () => {
    const system = fs.existsSync(SYSTEM_CHROMIUM);
    if (system) expect(await chooseChromium({})).toEqual({ executablePath: SYSTEM_CHROMIUM, source: 'system' });
    expect(await chooseChromium({ PARLEY_TEST_CHROMIUM: process.execPath })).toEqual({ executablePath: process.execPath, source: 'PARLEY_TEST_CHROMIUM' });
    await expect(chooseChromium({ PARLEY_TEST_CHROMIUM: '/nowhere/chromium' })).rejects.toThrow('PARLEY_TEST_CHROMIUM names /nowhere/chromium, which does not exist');
  });
});
