#!/usr/bin/env node
// Installs the programs Parley's tests drive (package.json beside this file:
// the agent CLIs, the MCP Inspector and conformance suite) into
// test/tools/node_modules with `npm ci`, from this folder's own lockfile.
// They are large and only a few test files use them, so `npm install` of
// Parley leaves them out: the test runner starts this in the background and
// those files wait for it. Once installed, a stamp (the lockfile's hash) makes
// a later call return at once. Callers at the same time are fine: one
// installs, the others wait for it, then read its stamp.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const dir = import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname);
const lockfile = path.join(dir, 'package-lock.json');
const stamp = path.join(dir, 'node_modules', '.parley-installed');
// Beside node_modules, not in it: npm ci empties node_modules first.
const busy = path.join(dir, '.installing');

const wanted = `${crypto.createHash('sha256').update(fs.readFileSync(lockfile)).digest('hex')} ${process.platform}-${process.arch}\n`;
const installed = () => fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted;

while (!installed()) {
  if (!claim()) {
    await sleep(250);
    continue;
  }
  try {
    if (installed()) break;
    fs.rmSync(stamp, { force: true });
    const npm = spawnSync('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { stdio: 'inherit' });
    if (npm.status !== 0) {
      console.error(`npm ci in ${dir} failed (${npm.error?.message ?? `exit ${npm.status}`}): the tests that drive these programs cannot run`);
      process.exit(1);
    }
    fs.writeFileSync(stamp, wanted);
  } finally {
    fs.rmSync(busy, { force: true });
  }
}

/** Takes the install for this process; false while a live process holds it. */
function claim() {
  try {
    fs.writeFileSync(busy, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const holder = Number(fs.readFileSync(busy, 'utf8'));
  if (alive(holder)) return false;
  // Its holder died mid-install: take over.
  fs.rmSync(busy, { force: true });
  return false;
}

function alive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}
