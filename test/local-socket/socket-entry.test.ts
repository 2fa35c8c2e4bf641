import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localSocketPath } from '../../src/home/local-socket-path.js';
import { openHub, type Hub } from '../../src/hub/hub.js';
import { startLocalSocket, type LocalSocket } from '../../src/local-socket/local-socket-server.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { tempHome } from '../helpers/hub.js';
import { frameClient, type FrameClient } from './frame-client.js';

/**
 * The hub's local socket as an entry: every call authenticated by its token
 * as on REST, refused by the same gate, and a bad frame answered with a clear
 * error, storing nothing. A real hub on a real SQLite file, a real socket.
 */
const URL_OF_HUB = 'http://127.0.0.1:7420';
const opened: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function served(): Promise<{ hub: Hub; home: string; socket: LocalSocket; client: FrameClient }> {
  const { home, cleanup } = tempHome();
  opened.push(cleanup);
  const hub = await openHub({ home, logger: createMemoryLogger() });
  const socket = (await startLocalSocket({ hub, home, url: URL_OF_HUB, logger: createMemoryLogger() }))!;
  opened.push(async () => {
    const closing = socket.close();
    await hub.close();
    await closing;
  });
  const client = await frameClient(socket.path);
  opened.push(() => client.close());
  return { hub, home, socket, client };
}

/** The messages of #general, as the hub holds them. */
async function stored(hub: Hub): Promise<string[]> {
  const reader = await hub.join({ handle: 'auditor', session: 'default' });
  return (await reader.history({ thread: 'general' })).events.filter((event) => event.type === 'message').map((event) => event.content as string);
}

describe('local socket entry', () => {
  it('local socket - hello names the hub; a call answers as the Actor does, through the gate', async () => {
    const { hub, client } = await served();
    client.send({ id: 1, call: 'hello' });
    expect(await client.answer(1)).toMatchObject({ ok: { hub: 'parley', url: URL_OF_HUB } });
    await hub.join({ handle: 'coder', session: 'default' });
    const token = await hub.issueToken('coder');
    client.send({ id: 2, token, call: 'post', args: [{ thread: 'general', text: 'over the socket' }] });
    expect(await client.answer(2)).toMatchObject({ ok: { seq: expect.any(Number), thread: expect.any(String) } });
    client.send({ id: 3, token, call: 'whoami' });
    expect(await client.answer(3)).toMatchObject({ ok: { participant: { handle: 'coder' }, session: { name: 'default' }, hub: { chat: true }, access: 'operator' } });
    expect(await stored(hub)).toEqual(['over the socket']);
  });

  it('local socket - a call without a token, or with one the hub does not know, is refused UNAUTHORIZED and nothing is stored', async () => {
    const { hub, client } = await served();
    client.send({ id: 1, call: 'post', args: [{ thread: 'general', text: 'no token' }] });
    expect(await client.answer(1)).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('token') } });
    client.send({ id: 2, token: 'pt_not-a-token', call: 'post', args: [{ thread: 'general', text: 'bad token' }] });
    expect(await client.answer(2)).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('Unknown or revoked token') } });
    client.send({ id: 3, token: 'pt_not-a-token', call: 'connect' });
    expect(await client.answer(3)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect(await stored(hub)).toEqual([]);
  });

  it('local socket - a revoked token is refused at its next call, its wait ends refused and its connect ends, on the same connection', async () => {
    const { hub, client } = await served();
    await hub.join({ handle: 'coder', session: 'default' });
    const token = await hub.issueToken('coder');
    client.send({ id: 1, token, call: 'connect' });
    expect(await client.answer(1)).toEqual({ id: 1, ok: {} });
    client.send({ id: 2, token, call: 'wait', args: [{ timeout_ms: 20_000 }] });
    client.send({ id: 3, token, call: 'post', args: [{ thread: 'general', text: 'before' }] });
    expect(await client.answer(3)).toMatchObject({ ok: { seq: expect.any(Number) } });
    await hub.rotateToken('coder');
    expect(await client.answer(2)).toMatchObject({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('revoked') } });
    expect(await client.answer(1)).toEqual({ id: 1, ended: true });
    client.send({ id: 4, token, call: 'post', args: [{ thread: 'general', text: 'after' }] });
    expect(await client.answer(4)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect(await stored(hub)).toEqual(['before']);
  });

  it('local socket - a role taken away applies at the next call (the same gate as REST)', async () => {
    const { hub, client } = await served();
    await hub.join({ handle: 'coder', session: 'default' });
    const token = await hub.issueToken('coder');
    await hub.setAccess('coder', 'observer');
    client.send({ id: 1, token, call: 'post', args: [{ thread: 'general', text: 'not mine to say' }] });
    expect(await client.answer(1)).toMatchObject({ error: { code: 'FORBIDDEN_ROLE' } });
    expect(await stored(hub)).toEqual([]);
  });

  it('local socket - bad frames get an error naming what is wrong, and nothing is stored', async () => {
    const { hub, client } = await served();
    await hub.join({ handle: 'coder', session: 'default' });
    const token = await hub.issueToken('coder');
    client.sendRaw('this is not json\n');
    expect(await client.answer(null)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'frame', message: expect.stringContaining('not JSON') } });
    client.sendRaw('[1,2]\n');
    expect(await client.answer(null)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'frame' } });
    client.send({ token, call: 'post', args: [{ thread: 'general', text: 'no id' }] });
    expect(await client.answer(null)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'id' } });
    client.send({ id: 1, token, call: 'dropTables' });
    expect(await client.answer(1)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'call', message: expect.stringContaining('"dropTables" is not a participant call') } });
    client.send({ id: 2, token, call: 'constructor' });
    expect(await client.answer(2)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'call' } });
    client.send({ id: 3, token, call: 'post', args: { thread: 'general', text: 'args not an array' } });
    expect(await client.answer(3)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'args' } });
    client.send({ id: 4, token, call: 'post', args: [{ thread: 'general', text: 'one' }, 'two'] });
    expect(await client.answer(4)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'args', message: expect.stringContaining('at most 1 argument') } });
    client.send({ id: 5, token, call: 'post', args: [{ thread: 'general', text: 42 }] });
    expect(await client.answer(5)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'text' } });
    client.send({ id: 6, token, call: 'meetingSay', args: [{ not: 'a name' }, 'hello'] });
    expect(await client.answer(6)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'meeting' } });
    // The connection still serves after each of them.
    client.send({ id: 7, call: 'hello' });
    expect(await client.answer(7)).toMatchObject({ ok: { hub: 'parley' } });
    expect(await stored(hub)).toEqual([]);
  });

  it('local socket - a frame longer than the body limit is refused and the connection closed, nothing stored', async () => {
    const { home, cleanup } = tempHome();
    opened.push(cleanup);
    const hub = await openHub({ home, logger: createMemoryLogger(), config: { server: { maxBodyBytes: 4096 } } });
    const socket = (await startLocalSocket({ hub, home, url: URL_OF_HUB, logger: createMemoryLogger() }))!;
    opened.push(async () => {
      const closing = socket.close();
      await hub.close();
      await closing;
    });
    await hub.join({ handle: 'coder', session: 'default' });
    const token = await hub.issueToken('coder');
    const client = await frameClient(socket.path);
    opened.push(() => client.close());
    client.sendRaw(`{"id":1,"token":"${token}","call":"post","args":[{"thread":"general","text":"${'x'.repeat(8000)}`);
    expect(await client.answer(null)).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'frame', message: expect.stringContaining('longer than 4096') } });
    await client.closed;
    expect(await stored(hub)).toEqual([]);
  });

  it('local socket - the file is private, removed at close, and a stale one left by a killed process is replaced', async () => {
    const { home, cleanup } = tempHome();
    opened.push(cleanup);
    const file = localSocketPath(home);
    // A process that listened there and was killed leaves its socket file behind.
    const squatter = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(file)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => squatter.stdout.once('data', resolve));
    squatter.kill('SIGKILL');
    await new Promise((resolve) => squatter.once('exit', resolve));
    expect(fs.lstatSync(file).isSocket()).toBe(true);
    const hub = await openHub({ home, logger: createMemoryLogger() });
    const socket = (await startLocalSocket({ hub, home, url: URL_OF_HUB, logger: createMemoryLogger() }))!;
    expect(socket.path).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const client = await frameClient(file);
    client.send({ id: 1, call: 'hello' });
    expect(await client.answer(1)).toMatchObject({ ok: { url: URL_OF_HUB } });
    const closing = socket.close();
    await hub.close();
    await closing;
    await client.closed;
    expect(fs.existsSync(file)).toBe(false);
  });

  it('local socket - something else under its name is left alone and no socket is served (clients use REST)', async () => {
    const { home, cleanup } = tempHome();
    opened.push(cleanup);
    const file = localSocketPath(home);
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(file, 'not a socket');
    const logger = createMemoryLogger();
    const hub = await openHub({ home, logger });
    opened.push(() => hub.close());
    expect(await startLocalSocket({ hub, home, url: URL_OF_HUB, logger })).toBeUndefined();
    expect(fs.readFileSync(file, 'utf8')).toBe('not a socket');
    expect(logger.records.map((r) => r.msg)).toContainEqual(expect.stringContaining('no local socket'));
  });

  it('local socket - a home too deep for a socket path serves none', async () => {
    const { home, cleanup } = tempHome();
    opened.push(cleanup);
    const deep = path.join(home, 'd'.repeat(60), 'e'.repeat(60));
    const logger = createMemoryLogger();
    const hub = await openHub({ home: deep, logger });
    opened.push(() => hub.close());
    expect(await startLocalSocket({ hub, home: deep, url: URL_OF_HUB, logger })).toBeUndefined();
    expect(logger.records.map((r) => r.msg)).toContainEqual(expect.stringContaining('too long'));
  });
});
