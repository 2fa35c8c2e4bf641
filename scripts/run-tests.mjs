#!/usr/bin/env node
// Runs the whole vitest suite and ends with one plain line, "N passed, N failed",
// so that a run which executed no test is visible to any CI reading the output.
// The load tests (test/load) measure memory and latency under attack, so they
// run last and alone, one file at a time, with the machine to themselves.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..');
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vitest-'));
// The tests get a temporary folder of their own, which must be empty again when
// they end: a test that leaves a home (or a hub that writes into one after its
// test removed it) is named and counted as a failure.
const testTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-tests-tmp-'));
// Some tests run the hub as another, unprivileged user: it must reach the folders they make here.
fs.chmodSync(testTmp, 0o755);
const extra = process.argv.slice(2);
const phases = extra.length > 0
  // A name filter (-t) skips the tests it does not select, on purpose.
  ? [{ name: 'selected', args: extra, strictSkips: !extra.some((arg) => arg === '-t' || arg.startsWith('-t=') || arg.startsWith('--testNamePattern')) }]
  : [
      // By project (vitest.config.ts): a command-line --exclude does not reach projects.
      { name: 'suite', args: ['--project', 'shared', '--project', 'isolated'], strictSkips: true },
      { name: 'load', args: ['--project', 'load', '--no-file-parallelism'], strictSkips: true },
    ];

// The programs a few test files drive (test/tools: agent CLIs, the MCP Inspector)
// are not part of `npm install`: on a full run they install in the background
// while the other tests run, and those files, which then run last, wait for them
// (once installed, they run first: they are among the longest).
// A run of chosen files installs them when one of its files asks.
let tools;
if (extra.length === 0) {
  const log = fs.openSync(path.join(reportDir, 'tools-install.log'), 'w');
  tools = spawn(process.execPath, [path.join(root, 'test', 'tools', 'install.mjs')], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  tools.exited = new Promise((resolve) => {
    tools.once('error', (error) => resolve(`could not start: ${error.message}`));
    tools.once('exit', (code, signal) => resolve(code === 0 ? 'ok' : `exit ${code ?? signal}`));
  });
}

let passed = 0;
let failed = 0;
let skipped = 0;
let ok = true;
// The names of failed tests are printed again just above the last line, so a CI
// that keeps only the tail of a long log still shows what failed and why.
const failures = [];
const skips = [];
for (const [i, phase] of phases.entries()) {
  const report = path.join(reportDir, `report-${i}.json`);
  const run = spawnSync(process.execPath, [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...phase.args], {
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: testTmp },
  });
  let phaseFailed = 0;
  try {
    const result = JSON.parse(fs.readFileSync(report, 'utf8'));
    passed += result.numPassedTests ?? 0;
    phaseFailed = (result.numFailedTests ?? 0) + (result.numRuntimeErrorTestSuites ?? 0);
    for (const suite of result.testResults ?? []) {
      const file = path.relative(root, suite.name ?? '');
      // A test file that failed to load has no assertions but must count as a failure.
      if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) {
        phaseFailed += 1;
        failures.push(`${file}: ${firstLine(suite.message)}`);
      }
      for (const test of suite.assertionResults ?? []) {
        if (test.status === 'failed') failures.push(`${file} > ${test.fullName}: ${firstLine(test.failureMessages?.[0])}`);
        if (test.status !== 'skipped' && test.status !== 'pending' && test.status !== 'todo') continue;
        // A skipped test is a failure unless it says why it cannot run here (test/helpers/skip.ts).
        const reason = phase.strictSkips ? test.meta?.skipReason : 'not selected by name';
        if (typeof reason === 'string' && reason.trim() !== '') {
          skipped += 1;
          skips.push(`${file} > ${test.fullName}: ${reason}`);
        } else {
          phaseFailed += 1;
          failures.push(`${file} > ${test.fullName}: skipped without saying why it cannot run here`);
        }
      }
    }
  } catch {
    phaseFailed = Math.max(phaseFailed, 1);
  }
  if (run.status !== 0 && phaseFailed === 0) phaseFailed = 1;
  const left = fs.readdirSync(testTmp);
  if (left.length > 0) {
    console.error(`The ${phase.name} phase left ${left.length} entries in its temporary folder (tests must remove what they make): ${left.sort().join(', ')}`);
    for (const entry of left) {
      const where = path.join(testTmp, entry);
      if (fs.statSync(where).isDirectory()) console.error(`  ${entry}/ holds: ${fs.readdirSync(where, { recursive: true }).slice(0, 8).join(', ')}`);
    }
    for (const entry of left) fs.rmSync(path.join(testTmp, entry), { recursive: true, force: true });
    phaseFailed += 1;
    ok = false;
  }
  failed += phaseFailed;
  if (run.status !== 0) ok = false;
}
if (tools) {
  const outcome = await tools.exited;
  if (outcome !== 'ok') {
    // The tests that needed them failed and say so; this says why.
    console.error(`Installing test/tools failed (${outcome}):\n${fs.readFileSync(path.join(reportDir, 'tools-install.log'), 'utf8').slice(-3000)}`);
    failures.push(`test/tools: npm ci of the programs the tests drive failed (${outcome})`);
    failed += 1;
  }
}
fs.rmSync(reportDir, { recursive: true, force: true });
fs.rmSync(testTmp, { recursive: true, force: true });
for (const skip of skips.slice(0, 50)) console.log(`SKIPPED ${skip}`);
for (const failure of failures) console.log(`FAILED ${failure}`);
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
process.exit(ok && failed === 0 && passed > 0 ? 0 : 1);

function firstLine(message) {
  const text = stripVTControlCharacters(String(message ?? 'no message'));
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.slice(0, 3).join(' | ').slice(0, 400);
}
