import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../helpers/serve.js';
import { tempHome } from '../helpers/hub.js';
import { modulesLoaded } from './loaded-modules.js';

/**
 * The layers the CLI stands on: the library (the hub API, the middleware, the
 * agent loop) never loads the command line, whose modules are for a terminal;
 * and the CLI reads a home's store only through the hub's public module.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

/** The modules a file of src/ imports, as written ("../store/thread-store.js"). */
function importsOf(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  return [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom '([^']+)'/gm), ...source.matchAll(/\bimport\('([^']+)'\)/g)].map((match) => match[1]!);
}

describe('layers', () => {
  it('layers - "parley", "parley/middleware" and "parley/agent" load no module of the CLI', () => {
    const { home, cleanup } = tempHome();
    try {
      for (const entry of ['dist/src/index.js', 'dist/src/middleware/index.js', 'dist/src/agent/index.js']) {
        const url = pathToFileURL(path.join(ROOT, entry)).href;
        const loaded = modulesLoaded(['--input-type=module', '-e', `await import(${JSON.stringify(url)});`], childEnv(home));
        expect(loaded, entry).toContain(entry);
        expect(loaded.filter((file) => file.startsWith('dist/src/cli/')), entry).toEqual([]);
      }
    } finally {
      cleanup();
    }
  });

  it('layers - no module of the CLI imports the store, SQLite, or the hub but through its public module', () => {
    const cli = path.join(ROOT, 'src/cli');
    const reaching: string[] = [];
    for (const name of fs.readdirSync(cli).filter((file) => file.endsWith('.ts'))) {
      for (const target of importsOf(path.join(cli, name))) {
        if (target.startsWith('../store/') || target === 'better-sqlite3' || (target.startsWith('../hub/') && target !== '../hub/index.js')) reaching.push(`${name} imports ${target}`);
      }
    }
    expect(reaching).toEqual([]);
  });
});
