import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const RUNNER = path.join(ROOT, 'scripts/run-tests.mjs');
const CASES = path.join(ROOT, 'test/fixtures/runner/vitest.config.ts');

function runCases(...extra: string[]): { status: number | null; lines: string[] } {
  const run = spawnSync(process.execPath, [RUNNER, '--config', CASES, ...extra], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, lines: run.stdout.split('\n').filter((line) => /^(FAILED|SKIPPED|\d+ passed)/.test(line)) };
}

describe('test runner', () => {
  it('runner - a skip that does not say why counts as a failure and is named; one that says why is listed with its reason', () => {
    const { status, lines } = runCases();
    expect(status).toBe(1);
    expect(lines).toEqual([
      'SKIPPED test/fixtures/runner/skips.case.ts > cannot run here and says why: needs a device this machine lacks',
      'FAILED test/fixtures/runner/skips.case.ts > is skipped without a reason: skipped without saying why it cannot run here',
      '1 passed, 1 failed, 1 skipped',
    ]);
  });

  it('runner - tests left out by a name filter (-t) are not failures', () => {
    const { status, lines } = runCases('-t', 'runs and passes');
    expect(lines.at(-1)).toBe('1 passed, 0 failed, 2 skipped');
    expect(lines.filter((line) => line.startsWith('FAILED'))).toEqual([]);
    expect(status).toBe(0);
  });
});
