import fs from 'node:fs';
import path from 'node:path';
import * as D from '../../src/config/defaults.js';
import { loadConfig, type LoadConfigOptions } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';

/** Writes `<home>/config.json` (a string is written as is, anything else as JSON) and returns its path. */
export function writeConfig(dir: string, content: unknown, name = D.CONFIG_FILENAME): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** loadConfig with an empty environment unless one is given: the test process's own PARLEY_* never leak in. */
export function load(options: Partial<LoadConfigOptions> & { home: string }): Config {
  return loadConfig({ env: {}, ...options });
}
