import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The version from package.json, found from src/, dist/src/ and the command's bundle (dist/src/bundle/). */
function readVersion(): string {
  for (const candidate of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const pkg = require(candidate) as { name?: string; version?: string };
      if (pkg.name === 'parley' && pkg.version) return pkg.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
