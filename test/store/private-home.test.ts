import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { cliAt } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';

const served = servedHubsPerTest();
const scratch = (): string => served.home('parley-private-');

const modeOf = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

/** The mode of the home and of every file and directory in it (keys/ holds some), by relative name. */
function modes(home: string): Record<string, string> {
  const found: Record<string, string> = { '.': modeOf(home) };
  for (const entry of fs.readdirSync(home, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    found[path.relative(home, file)] = modeOf(file);
  }
  return found;
}

function expectPrivate(home: string, mustHold: string[]): void {
  const found = modes(home);
  for (const name of mustHold) expect(found, `${name} should exist`).toHaveProperty(name);
  expect(found['.'], 'the home').toBe('700');
  for (const [name, mode] of Object.entries(found)) {
    if (name !== '.') expect(mode, name).toBe(fs.statSync(path.join(home, name)).isDirectory() ? '700' : '600');
  }
}

/** A home as an earlier Parley left it, readable by everyone (it had no keys/ yet). */
function looseHome(home: string): void {
  fs.mkdirSync(home, { recursive: true });
  fs.chmodSync(home, 0o755);
  for (const name of fs.readdirSync(home)) if (name !== 'keys') fs.chmodSync(path.join(home, name), 0o644);
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ webui: { password: 'not-for-others' } }), { mode: 0o644 });
  fs.chmodSync(path.join(home, 'config.json'), 0o644);
}

const STORE_FILES = ['parley.db', 'parley.db-wal', 'parley.db-shm', 'search.db', 'search.db-wal', 'search.db-shm', 'hub.lock', 'hub.lock.json', 'keys/hub.key'];

describe('private home', () => {
  it('private home - openHub creates the home 0700 and every file in it 0600 (store, WAL, search index, lock), and tightens a loose existing home', async () => {
    const home = path.join(scratch(), 'new-home');
    const hub = await openHub({ home, logger: createMemoryLogger() });
    const alice = await hub.join({ handle: 'alice' });
    await alice.post({ thread: 'general', text: 'private words' });
    expect((await alice.search({ query: 'private' })).events).toHaveLength(1);
    expectPrivate(home, STORE_FILES);
    await hub.close();

    // The same home as an earlier version left it: everything readable by others.
    looseHome(home);
    expect(modes(home)['parley.db']).toBe('644');
    const reopened = await openHub({ home, logger: createMemoryLogger() });
    expectPrivate(home, ['parley.db', 'search.db', 'hub.lock', 'config.json']);
    await reopened.close();
    expectPrivate(home, ['parley.db', 'search.db', 'config.json']);
  });

  it('private home - parley serve keeps the home 0700 and every file 0600, tokens and config included, on a new home and on a loose existing one', async () => {
    const home = path.join(scratch(), 'served');
    const { hub: first } = await served.serve(home);
    // "parley join" keeps the token in the home (credentials.json).
    const joined = cliAt(home, first.url)('join', 'coder-1', '--json');
    expect(joined.status, joined.stderr).toBe(0);
    const { token } = JSON.parse(joined.stdout) as { token: string };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const posted = await fetch(`${first.url}/api/v1/threads/general/messages`, { method: 'POST', headers, body: JSON.stringify({ text: 'hello' }) });
    expect(posted.status).toBe(201);
    const found = (await (await fetch(`${first.url}/api/v1/search?q=hello`, { headers })).json()) as { events: unknown[] };
    expect(found.events).toHaveLength(1);
    expectPrivate(home, [...STORE_FILES, 'admin.token', 'credentials.json']);
    const firstCode = await first.stop();
    expect(firstCode, `signal ${first.child.signalCode}: ${first.output()}`).toBe(0);

    looseHome(home);
    const { hub: second } = await served.serve(home);
    expectPrivate(home, ['parley.db', 'search.db', 'hub.lock', 'hub.lock.json', 'admin.token', 'credentials.json', 'config.json']);
    const secondCode = await second.stop();
    expect(secondCode, `signal ${second.child.signalCode}: ${second.output()}`).toBe(0);
  });

  it('private home - a home that holds other things (a project folder, a shared directory) keeps its mode with a warning; Parley’s files in it are private', async () => {
    const home = scratch();
    fs.chmodSync(home, 0o755);
    fs.writeFileSync(path.join(home, 'notes.txt'), 'not Parley’s', { mode: 0o644 });
    fs.chmodSync(path.join(home, 'notes.txt'), 0o644);
    const logger = createMemoryLogger();
    const hub = await openHub({ home, logger });
    await hub.internals.ctx.search.started();
    await hub.close();
    const found = modes(home);
    expect(found['.']).toBe('755');
    expect(found['notes.txt']).toBe('644');
    expect(found['parley.db']).toBe('600');
    expect(found['search.db']).toBe('600');
    expect(logger.records.find((r) => r.level === 'warn')?.msg).toContain(`chmod 700 ${home}`);
  });
});
