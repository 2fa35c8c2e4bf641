import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');

/** Every test file under test/, as vitest names it (test/hub/gate.test.ts), outside any node_modules. */
function testFiles(dir = 'test'): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(file);
    return file.endsWith('.test.ts') ? [file] : [];
  });
}

describe('test projects', () => {
  // scripts/run-tests.mjs runs the projects "shared" and "isolated", then "load": a file outside them never runs.
  it('projects - every test file is in exactly one project, the load tests only in "load"', () => {
    const run = spawnSync(process.execPath, [VITEST, 'list', '--filesOnly'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const listed = run.stdout.split('\n').flatMap((line) => {
      const match = /^\[(\w+)\] (\S+)$/.exec(line.trim());
      return match ? [{ project: match[1], file: match[2] }] : [];
    });
    const files = testFiles().sort();
    expect(listed.map((entry) => entry.file).sort()).toEqual(files);
    const projectOf = new Map(listed.map((entry) => [entry.file, entry.project]));
    for (const file of files) expect([file, projectOf.get(file)]).toEqual([file, file.startsWith('test/load/') ? 'load' : expect.stringMatching(/^(shared|isolated)$/)]);
    expect(projectOf.get('test/store/checkpointer.test.ts')).toBe('isolated');
    expect(projectOf.get('test/hub/gate.test.ts')).toBe('shared');
  });
});
