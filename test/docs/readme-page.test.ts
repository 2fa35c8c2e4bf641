import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, claimedBlock, commandLines } from './pages.js';

describe('docs', () => {
  it('docs - the README\'s two commands are the scripts that build and serve, and run every test', () => {
    expect(commandLines(claimedBlock('twoCommands'))).toEqual(['npm install && npm start', 'npm test']);
    const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // npm install builds (prepare), npm start serves on the default home, npm test builds and then runs the suite.
    expect(scripts.prepare).toBe('npm run build');
    expect(scripts.start).toMatch(/^node( --[a-z-]+=\S+)* bin\/parley serve$/);
    expect(scripts.pretest).toBe('npm run build');
    expect(scripts.test).toBe('node scripts/run-tests.mjs');
    // What the README says npm test ends with (test/scripts/run-tests.test.ts runs it).
    expect(fs.readFileSync(path.join(ROOT, 'scripts/run-tests.mjs'), 'utf8')).toContain('console.log(`${passed} passed, ${failed} failed');
  });
});
