import os from 'node:os';
import path from 'node:path';
import { DEFAULT_HOME_DIRNAME } from './defaults.js';

/**
 * The hub's home: `--home DIR`, else `$PARLEY_HOME`, else `~/.parley`. Kept
 * apart from the config loader so that one-shot CLI commands find the home
 * without loading the config schema.
 */
export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  // An empty flag or variable means "not set", never the current directory.
  const chosen = flag || env.PARLEY_HOME || path.join(os.homedir(), DEFAULT_HOME_DIRNAME);
  return path.resolve(chosen);
}
