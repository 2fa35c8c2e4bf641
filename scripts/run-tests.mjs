#!/usr/bin/env node
// Runs the whole vitest suite and ends with one plain line, "N passed, N failed",
// so that a run which executed no test is visible to any CI reading the output.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vitest-')), 'report.json');
const vitest = path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules', 'vitest', 'vitest.mjs');
const run = spawnSync(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const result = JSON.parse(fs.readFileSync(report, 'utf8'));
  passed = result.numPassedTests ?? 0;
  failed = (result.numFailedTests ?? 0) + (result.numRuntimeErrorTestSuites ?? 0);
  skipped = (result.numPendingTests ?? 0) + (result.numTodoTests ?? 0);
  for (const suite of result.testResults ?? []) {
    // A test file that failed to load has no assertions but must count as a failure.
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
} catch {
  failed = Math.max(failed, 1);
} finally {
  fs.rmSync(path.dirname(report), { recursive: true, force: true });
}
if (run.status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
