import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toParleyError } from '../../src/errors/parley-error.js';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { caught, tempHome } from '../helpers/hub.js';
import { BIN, childEnv } from '../helpers/serve.js';
import { skipBecause } from '../helpers/skip.js';

/**
 * A hub started where it cannot write says what is wrong and what to do, in
 * one line, and never calls it a bug. A full disk is the kernel's own ENOSPC:
 * Linux's /dev/full accepts no byte, so a home file linked to it fails as on a
 * full disk, through the hub's real code path. A read-only home is one the
 * hub's user may not write (as root, the hub runs as "nobody", since root may
 * write anywhere).
 */
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function scratch(): string {
  const made = tempHome('parley-storage-');
  cleanups.push(made.cleanup);
  return made.home;
}

const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;
const hasDevFull = fs.existsSync('/dev/full');
const NO_DEV_FULL = 'this machine has no /dev/full, the device these tests fill a disk with';

function serve(home: string, asNobody = false) {
  return spawnSync(process.execPath, [BIN, 'serve', '--port', '0'], {
    env: childEnv(home),
    encoding: 'utf8',
    timeout: 20_000,
    ...(asNobody ? { uid: NOBODY, gid: NOBODY } : {}),
  });
}

function expectOnePlainLine(stderr: string, ...parts: string[]): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  for (const part of parts) expect(lines[0]).toContain(part);
  expect(lines[0]).not.toMatch(/bug/i);
}

describe('storage failures', () => {
  it('storage - a full disk or a forbidden file is STORAGE_UNAVAILABLE saying which and what to do; other errors stay INTERNAL', () => {
    const full = toParleyError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'the home /h');
    expect(full.code).toBe('STORAGE_UNAVAILABLE');
    expect(full.message).toBe('Cannot use the home /h: the disk is full (SQLITE_FULL). Free some space on that disk, or use a home on another disk (--home or PARLEY_HOME).');
    const denied = toParleyError(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', path: '/h/hub.lock' }));
    expect(denied.code).toBe('STORAGE_UNAVAILABLE');
    expect(denied.message).toContain("Cannot use the hub's files: permission denied (EACCES, /h/hub.lock).");
    expect(toParleyError(Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY_DBMOVED' })).message).toContain('read-only');
    expect(toParleyError(new Error('boom')).code).toBe('INTERNAL');
  });

  it('storage - openHub on a full disk fails naming the home and the cause (SQLite and plain file writes alike), and the home works once space is back', async (context) => {
    if (!hasDevFull) skipBecause(context, NO_DEV_FULL);
    const home = scratch();
    // SQLite cannot grow the lock database.
    fs.symlinkSync('/dev/full', path.join(home, 'hub.lock'));
    const sqliteFull = await caught(() => openHub({ home, logger: createSilentLogger() }));
    expect(sqliteFull.code).toBe('STORAGE_UNAVAILABLE');
    expect(sqliteFull.message).toBe(`Cannot use the home ${home}: the disk is full (SQLITE_FULL). Free some space on that disk, or use a home on another disk (--home or PARLEY_HOME).`);
    fs.rmSync(path.join(home, 'hub.lock'));
    // A plain file write (who holds the home) gets ENOSPC.
    fs.symlinkSync('/dev/full', path.join(home, 'hub.lock.json'));
    const writeFull = await caught(() => openHub({ home, logger: createSilentLogger() }));
    expect(writeFull.code).toBe('STORAGE_UNAVAILABLE');
    expect(writeFull.message).toContain(`Cannot use the home ${home}: the disk is full (ENOSPC)`);
    fs.rmSync(path.join(home, 'hub.lock.json'));
    // Space is back: nothing was left locked or half made.
    const hub = await openHub({ home, logger: createSilentLogger() });
    await hub.join({ handle: 'alice' });
    await hub.close();
  });

  it('storage - parley serve on a full disk exits 1 with one line saying the disk is full and what to do', (context) => {
    if (!hasDevFull) skipBecause(context, NO_DEV_FULL);
    const home = scratch();
    fs.symlinkSync('/dev/full', path.join(home, 'hub.lock'));
    const run = serve(home);
    expect(run.status).toBe(1);
    expectOnePlainLine(run.stderr, `parley: Cannot use the home ${home}: the disk is full (SQLITE_FULL)`, 'Free some space');
  });

  it('storage - parley serve on a home it may only read exits 1 with one line naming the home and what to do', async () => {
    const parent = scratch();
    const home = path.join(parent, 'home');
    const hub = await openHub({ home, logger: createSilentLogger() });
    await hub.join({ handle: 'alice' });
    await hub.close();
    // Readable by the hub's user, not writable.
    fs.chmodSync(parent, 0o755);
    for (const name of fs.readdirSync(home)) fs.chmodSync(path.join(home, name), 0o444);
    fs.chmodSync(home, 0o555);
    cleanups.unshift(() => fs.chmodSync(home, 0o700));
    const run = serve(home, isRoot);
    expect(run.status).toBe(1);
    expectOnePlainLine(run.stderr, `parley: Cannot use the home ${home}: permission denied (EACCES`, 'read and write');
  });
});
