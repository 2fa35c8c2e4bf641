import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import { chooseChromium } from '../helpers/browser-binary.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium binary the browser tests launch (see test/helpers/browser-binary.ts). */
    chromiumPath: string;
  }
}

/**
 * Chooses the browser once per run, in vitest's main process, so that test files
 * running side by side never unpack the bundled Chromium over each other.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const choice = await chooseChromium();
  project.provide('chromiumPath', choice.executablePath);
  return () => {
    if (choice.unpackedInto) fs.rmSync(choice.unpackedInto, { recursive: true, force: true });
  };
}
