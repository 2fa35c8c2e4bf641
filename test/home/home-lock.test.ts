import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_INFO_FILENAME, STORE_FILENAME } from '../../src/config/defaults.js';
import { ParleyError } from '../../src/errors/parley-error.js';
import { openHub, type Hub } from '../../src/hub/hub.js';
import { acquireHomeLock, type HomeLock } from '../../src/home/home-lock.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { spawnFixture, type FixtureChild } from '../fixtures/child-process.js';
import { caught, tempHome } from '../helpers/hub.js';

const cleanups: Array<() => void | Promise<unknown>> = [];
const children: FixtureChild[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) await child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function home(): string {
  const made = tempHome('parley-lock-');
  cleanups.push(made.cleanup);
  return made.home;
}

function lock(dir: string): HomeLock {
  const held = acquireHomeLock(dir);
  cleanups.push(() => held.release());
  return held;
}

async function hubOn(dir: string): Promise<Hub> {
  const hub = await openHub({ home: dir, logger: createSilentLogger() });
  cleanups.push(() => hub.close());
  return hub;
}

function fileState(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stat = fs.statSync(file);
    return { size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

describe('home lock', () => {
  it('home lock - a second acquire in the same process is refused with HOME_LOCKED naming the holder pid and url', () => {
    const dir = home();
    const first = lock(dir);

    const refused = (() => {
      try {
        acquireHomeLock(dir);
      } catch (error) {
        return error;
      }
      throw new Error('the second acquire succeeded');
    })();
    expect(refused).toBeInstanceOf(ParleyError);
    const error = refused as ParleyError;
    expect(error.code).toBe('HOME_LOCKED');
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain(dir);
    expect(error.message).not.toContain('serving');
    expect(error.details?.holder).toMatchObject({ pid: process.pid });

    first.describe({ url: 'http://127.0.0.1:7420' });
    const again = (() => {
      try {
        acquireHomeLock(dir);
      } catch (e) {
        return e as ParleyError;
      }
      throw new Error('the third acquire succeeded');
    })();
    expect(again.code).toBe('HOME_LOCKED');
    expect(again.message).toContain(`hub pid ${process.pid} serving http://127.0.0.1:7420`);
    expect(again.details?.holder).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:7420' });
    // The info file beside the lock says the same.
    const info = JSON.parse(fs.readFileSync(path.join(dir, LOCK_INFO_FILENAME), 'utf8')) as { pid: number; url: string };
    expect(info).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:7420' });
  });

  it('home lock - after release the home can be acquired again, and release is idempotent', () => {
    const dir = home();
    const first = acquireHomeLock(dir);
    first.release();
    expect(fs.existsSync(path.join(dir, LOCK_INFO_FILENAME))).toBe(false);
    first.release();

    const second = lock(dir);
    expect(second.home).toBe(dir);
    const info = JSON.parse(fs.readFileSync(path.join(dir, LOCK_INFO_FILENAME), 'utf8')) as { pid: number };
    expect(info.pid).toBe(process.pid);
    second.release();
    const third = lock(dir);
    expect(third.home).toBe(dir);
  });

  it('home lock - a second openHub on a locked home fails with HOME_LOCKED and never creates the store', async () => {
    const dir = home();
    const held = lock(dir);
    held.describe({ url: 'http://127.0.0.1:9999' });

    const error = await caught(() => openHub({ home: dir, logger: createSilentLogger() }));
    expect(error).toBeInstanceOf(ParleyError);
    expect(error.code).toBe('HOME_LOCKED');
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain('http://127.0.0.1:9999');
    // The refused hub opened nothing: no store file, no WAL.
    expect(fs.existsSync(path.join(dir, STORE_FILENAME))).toBe(false);
    expect(fs.existsSync(path.join(dir, `${STORE_FILENAME}-wal`))).toBe(false);

    // The lock is still held by its owner, and once released a hub opens.
    expect((await caught(() => openHub({ home: dir, logger: createSilentLogger() }))).code).toBe('HOME_LOCKED');
    held.release();
    const hub = await hubOn(dir);
    expect(fs.existsSync(hub.storeFile)).toBe(true);
  });

  it('home lock - a second openHub beside a running hub fails with HOME_LOCKED and leaves its store untouched', async () => {
    const dir = home();
    const hub = await hubOn(dir);
    hub.describe({ url: 'http://127.0.0.1:7421' });
    const actor = await hub.join({ handle: 'alice' });
    await actor.post({ thread: 'general', text: 'before the second hub' });
    const storeFile = path.join(dir, STORE_FILENAME);
    const before = { db: fileState(storeFile), wal: fileState(`${storeFile}-wal`), shm: fileState(`${storeFile}-shm`) };
    expect(before.db).toBeDefined();

    const error = await caught(() => openHub({ home: dir, logger: createSilentLogger() }));
    expect(error).toBeInstanceOf(ParleyError);
    expect(error.code).toBe('HOME_LOCKED');
    expect(error.message).toContain(`hub pid ${process.pid} serving http://127.0.0.1:7421`);
    expect({ db: fileState(storeFile), wal: fileState(`${storeFile}-wal`), shm: fileState(`${storeFile}-shm`) }).toEqual(before);

    // The running hub is unaffected.
    const posted = await actor.post({ thread: 'general', text: 'after the refused hub' });
    expect(hub.internals.store.events.byId(posted.id)?.content).toBe('after the refused hub');
  });

  it('home lock - a hub in another process holds the home until it is SIGKILLed, leaving no stale lock', async () => {
    const dir = home();
    const child = spawnFixture('hold-home.mjs', [dir, 'http://127.0.0.1:7555']);
    children.push(child);
    const ready = await child.waitForLine((line) => line.startsWith('READY '));
    const childPid = Number(ready.split(' ')[1]);
    expect(childPid).toBe(child.proc.pid);
    expect(childPid).not.toBe(process.pid);

    const error = await caught(() => openHub({ home: dir, logger: createSilentLogger() }));
    expect(error).toBeInstanceOf(ParleyError);
    expect(error.code).toBe('HOME_LOCKED');
    expect(error.message).toContain(`hub pid ${childPid} serving http://127.0.0.1:7555`);
    expect((error as ParleyError).details?.holder).toMatchObject({ pid: childPid });

    const exit = await child.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    // The child could not clean up: its info file is still there, but the kernel dropped its lock.
    const stale = JSON.parse(fs.readFileSync(path.join(dir, LOCK_INFO_FILENAME), 'utf8')) as { pid: number };
    expect(stale.pid).toBe(childPid);

    const hub = await hubOn(dir);
    expect(hub.integrityCheck()).toBe('ok');
    const info = JSON.parse(fs.readFileSync(path.join(dir, LOCK_INFO_FILENAME), 'utf8')) as { pid: number };
    expect(info.pid).toBe(process.pid);
  });
});
