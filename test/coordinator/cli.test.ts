import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/client/live-hub.js';
import { parseConfig } from '../../src/config/load.js';
import { stubRuns, writeStub } from '../helpers/coordinator.js';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, joinOver, restCall, startServe, stopHubs, track, type Json, type RunningHub } from '../helpers/serve.js';

const cleanups: Array<() => void> = [];
afterEach(async () => {
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function home(): string {
  const made = tempHome('parley-coordinate-');
  cleanups.push(made.cleanup);
  return made.home;
}

function writeConfig(dir: string, coordinator: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ coordinator }));
}

/** Collects a child's stdout; `until(text)` resolves once it has appeared (rejects if the child exits first). */
function follow(child: ChildProcess): { out: () => string; until: (text: string) => Promise<void> } {
  let out = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const waiter of [...waiters]) waiter();
  });
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return {
    out: () => out,
    until: (text) =>
      new Promise((resolve, reject) => {
        const waiter = (): void => {
          if (!out.includes(text)) return;
          waiters.delete(waiter);
          resolve();
        };
        child.once('exit', (code) => reject(new Error(`exited with ${code} before saying "${text}": ${out}`)));
        waiters.add(waiter);
        waiter();
      }),
  };
}

async function dmHistory(hub: RunningHub, token: string): Promise<Json[]> {
  const { json } = await restCall(hub, token, 'GET', `/threads/${encodeURIComponent('@coder-1')}/history?limit=100`);
  return (json.events as Json[]).filter((e) => e.type === 'message');
}

describe('coordinator config', () => {
  it('refuses bad coordinator config with an error naming the key', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ agents: { 'coder-1': { command: [] } } }, 'coordinator.agents.coder-1.command'],
      [{ agents: { 'coder-1': { command: 'claude -p' } } }, 'coordinator.agents.coder-1.command'],
      [{ agents: { 'coder-1': { command: ['x'], timeoutSeconds: 0 } } }, 'coordinator.agents.coder-1.timeoutSeconds'],
      [{ agents: { 'coder-1': { command: ['x'], shell: true } } }, 'coordinator.agents.coder-1.shell'],
      [{ agents: { coordinator: { command: ['x'] } } }, 'coordinator.agents.coordinator'],
      [{ maxDepth: 0 }, 'coordinator.maxDepth'],
      [{ maxRunsPerHour: 0 }, 'coordinator.maxRunsPerHour'],
      [{ timeoutSeconds: -1 }, 'coordinator.timeoutSeconds'],
    ];
    for (const [coordinator, key] of cases) {
      expect(() => parseConfig({ coordinator }), key).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: key, message: expect.stringContaining(`"${key}"`) }));
    }
  });

  it('takes handles, sessions and channels as every other Parley name is taken, and refuses what they refuse', () => {
    const config = parseConfig({ coordinator: { handle: '@bridge', channel: '#Bridge-Log', sessions: ['proj:1'], agents: { '@coder-1': { command: ['x'] } } } });
    expect(config.coordinator).toMatchObject({ handle: 'bridge', channel: 'bridge-log', sessions: ['proj:1'] });
    expect(Object.keys(config.coordinator.agents)).toEqual(['coder-1']);
    for (const [coordinator, key] of [
      [{ handle: 'x'.repeat(65) }, 'coordinator.handle'],
      [{ channel: 'has space' }, 'coordinator.channel'],
      [{ sessions: [''] }, 'coordinator.sessions.0'],
    ] as Array<[Record<string, unknown>, string]>) {
      expect(() => parseConfig({ coordinator }), key).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: key }));
    }
  });

  it('parley coordinate says which key is wrong (exit 2), and that it has no one to coordinate without agents', () => {
    const dir = home();
    writeConfig(dir, { agents: { 'coder-1': { command: [] } } });
    const bad = spawnSync(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Invalid config key "coordinator.agents.coder-1.command"');
    writeConfig(dir, {});
    const empty = spawnSync(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), encoding: 'utf8' });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('"coordinator.agents"');
  });
});

describe('parley coordinate', () => {
  it('runs as its own process against the running hub, answers a DM as the agent, and on SIGTERM kills a running adapter and exits 0', async () => {
    const dir = home();
    const quick = writeStub(dir, 'quick');
    const slow = writeStub(dir, 'slow');
    writeConfig(dir, {
      pollMs: 50,
      agents: {
        'coder-1': { command: quick.command, env: { STUB_LOG: quick.log, STUB_REPLY: 'on it' } },
        'slow-1': { command: slow.command, env: { STUB_LOG: slow.log, STUB_GATE: path.join(dir, 'never') } },
      },
    });
    const hub = await startServe(dir);
    const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    await joinOver(hub, { handle: 'coder-1' });
    // A message that comes while no coordinator runs is answered once one does.
    const early = (await restCall(hub, human, 'POST', '/dm', { to: 'coder-1', text: 'are you there?' })).json;

    const child = track(spawn(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] }));
    const output = follow(child);
    await output.until('Parley coordinator running');
    expect(output.out()).toContain(`at ${hub.url} for @coder-1, @slow-1 in session default; its notices are in #coordinator`);
    await output.until(`in reply to ${early.id}`);
    const answers = (await dmHistory(hub, human)).filter((e) => e.author === 'coder-1');
    expect(answers).toMatchObject([{ content: 'on it', meta: { reply_to: early.id, tags: ['parley:depth=1'] } }]);
    // The run had a token of its own, revoked as it ended; nothing in its environment led to the home.
    const [quickRun] = stubRuns(quick.log);
    expect((await restCall(hub, quickRun!.env!.PARLEY_TOKEN!, 'GET', '/whoami')).status).toBe(401);
    expect(quickRun!.env!.PARLEY_HOME).toBeUndefined();
    expect(Object.entries(quickRun!.env!).filter(([key, value]) => !key.startsWith('STUB_') && value.includes(dir))).toEqual([]);

    // A run under way when the coordinator is told to stop is killed, said to be, and the coordinator exits cleanly.
    await restCall(hub, human, 'POST', '/dm', { to: 'slow-1', text: 'this will take a while' });
    await output.until('slow-1: run of node started');
    // The notice comes just before the adapter starts: wait until the stub has read its input.
    await expect.poll(() => stubRuns(slow.log).length, { timeout: 20_000, interval: 20 }).toBe(1);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output.out()).toMatch(/slow-1: run in a direct message with human stopped after .*: the coordinator is shutting down; nothing was posted\./);
    expect(output.out()).toContain('Parley coordinator stopped.');
    const [slowRun] = stubRuns(slow.log);
    expect(processAlive(slowRun!.pid)).toBe(false);
    expect(stubRuns(quick.log).filter((r) => r.at === 'start')).toHaveLength(1);
    // The token of the run it stopped was revoked as it stopped.
    expect((await restCall(hub, slowRun!.env!.PARLEY_TOKEN!, 'GET', '/whoami')).status).toBe(401);
  });

  it('on SIGHUP (its terminal closed) stops like on SIGTERM: the running adapter and its children are killed, and it exits 0', async () => {
    const dir = home();
    const slow = writeStub(dir, 'slow');
    writeConfig(dir, { pollMs: 50, agents: { 'slow-1': { command: slow.command, env: { STUB_LOG: slow.log, STUB_GATE: path.join(dir, 'never'), STUB_CHILD: '1' } } } });
    const hub = await startServe(dir);
    const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    const child = track(spawn(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] }));
    const output = follow(child);
    await output.until('Parley coordinator running');
    await restCall(hub, human, 'POST', '/dm', { to: 'slow-1', text: 'this will take a while' });
    await expect.poll(() => stubRuns(slow.log).length, { timeout: 20_000, interval: 20 }).toBe(1);
    const exited = new Promise<[number | null, string | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
    child.kill('SIGHUP');
    expect(await exited).toEqual([0, null]);
    expect(output.out()).toMatch(/slow-1: run in a direct message with human stopped after .*: the coordinator is shutting down; nothing was posted\./);
    const [run] = stubRuns(slow.log);
    expect(processAlive(run!.pid)).toBe(false);
    await expect.poll(() => processAlive(run!.child!)).toBe(false);
  });

  it('runs inside parley serve when coordinator.enabled is true', async () => {
    const dir = home();
    const stub = writeStub(dir, 'inside');
    writeConfig(dir, { enabled: true, agents: { 'coder-1': { command: stub.command, env: { STUB_LOG: stub.log, STUB_REPLY: 'answered from inside the hub' } } } });
    const hub = await startServe(dir);
    expect(hub.output()).toContain('coordinator: @coordinator answers for @coder-1; notices in #coordinator');
    const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    const sent = (await restCall(hub, human, 'POST', '/dm', { to: 'coder-1', text: 'hello from outside' })).json;
    // The hub logs each notice; the finish names the message answered.
    await expect.poll(() => hub.output(), { timeout: 20_000, interval: 50 }).toContain(`in reply to ${sent.id}`);
    const answers = (await dmHistory(hub, human)).filter((e) => e.author === 'coder-1');
    expect(answers).toMatchObject([{ content: 'answered from inside the hub', meta: { reply_to: sent.id } }]);
    // The hub runs with PARLEY_HOME set; its adapter is given neither it nor any other path into the home.
    const [run] = stubRuns(stub.log);
    expect(run!.env!.PARLEY_HOME).toBeUndefined();
    expect(Object.entries(run!.env!).filter(([key, value]) => !key.startsWith('STUB_') && value.includes(dir))).toEqual([]);
    expect((await restCall(hub, run!.env!.PARLEY_TOKEN!, 'GET', '/whoami')).status).toBe(401);
    const notices = (await restCall(hub, human, 'GET', '/threads/coordinator/history?limit=100')).json.events as Json[];
    expect(notices.filter((e) => e.type === 'message').map((e) => e.author)).toEqual(['coordinator', 'coordinator']);
    expect(await hub.stop()).toBe(0);
  });

  it('is one per home: a second parley coordinate, or one beside a hub that runs the coordinator, is refused naming the pid that holds it', async () => {
    const dir = home();
    const stub = writeStub(dir, 'one');
    writeConfig(dir, { pollMs: 50, agents: { 'coder-1': { command: stub.command, env: { STUB_LOG: stub.log } } } });
    const hub = await startServe(dir);
    const first = track(spawn(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), stdio: ['ignore', 'pipe', 'pipe'] }));
    await follow(first).until('Parley coordinator running');
    // Bounded, so a second coordinator that does start fails this test instead of hanging it.
    const second = spawnSync(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), encoding: 'utf8', timeout: 15_000 });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`A coordinator is already running on home ${dir} (pid ${first.pid},`);
    expect(second.stderr).toContain('a second one would answer every message twice');
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    first.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await hub.stop()).toBe(0);

    // The hub's own coordinator holds it too; "coordinator.enabled=false" on the command line does not get round it.
    writeConfig(dir, { enabled: true, agents: { 'coder-1': { command: stub.command, env: { STUB_LOG: stub.log } } } });
    const inside = await startServe(dir);
    const beside = spawnSync(process.execPath, [BIN, 'coordinate', '--set', 'coordinator.enabled=false'], { env: childEnv(dir), encoding: 'utf8', timeout: 15_000 });
    expect(beside.status).toBe(1);
    expect(beside.stderr).toContain(`A coordinator is already running on home ${dir} (pid ${inside.child.pid},`);
    expect(await inside.stop()).toBe(0);
  });

  it('refuses to run beside a hub that runs the coordinator itself', () => {
    const dir = home();
    writeConfig(dir, { enabled: true, agents: { 'coder-1': { command: ['x'] } } });
    const result = spawnSync(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('coordinator.enabled is true');
  });
});
