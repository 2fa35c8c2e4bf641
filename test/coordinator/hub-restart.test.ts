import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/client/live-hub.js';
import { stubRuns, writeStub, type StubRun } from '../helpers/coordinator.js';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, joinOver, restCall, startServe, stopHubs, track, type RunningHub } from '../helpers/serve.js';

/**
 * A hub or a coordinator killed with SIGKILL revokes nothing: the tokens of
 * the runs under way are still in the table when the hub starts again, and
 * that start revokes them. The adapters such a kill leaves running (in process
 * groups of their own) are ended here, by pid.
 */
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function home(): string {
  const made = tempHome('parley-restart-');
  cleanups.push(made.cleanup);
  return made.home;
}

/** The first run of a stub once it has started; its process group is killed after the test. */
async function runningStart(log: string): Promise<StubRun> {
  await expect.poll(() => stubRuns(log).length, { timeout: 20_000, interval: 20 }).toBe(1);
  const [start] = stubRuns(log);
  cleanups.unshift(() => {
    if (processAlive(start!.pid)) process.kill(-start!.pid, 'SIGKILL');
  });
  return start!;
}

/** `parley coordinate` on the home, once it says it runs. */
async function startCoordinate(dir: string): Promise<ChildProcess> {
  const coordinator = track(spawn(process.execPath, [BIN, 'coordinate'], { env: childEnv(dir), stdio: ['ignore', 'pipe', 'inherit'] }));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    coordinator.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Parley coordinator running')) resolve();
    });
    coordinator.once('exit', (code) => reject(new Error(`parley coordinate exited with ${code}: ${out}`)));
  });
  return coordinator;
}

describe('coordinator run tokens across a killed hub or coordinator', () => {
  it('hub start - the run token of a coordinator inside a hub killed mid-run no longer works once the hub is started again', async () => {
    const dir = home();
    const stub = writeStub(dir, 'slow');
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ coordinator: { enabled: true, agents: { 'slow-1': { command: stub.command, env: { STUB_LOG: stub.log, STUB_GATE: path.join(dir, 'never') } } } } }));
    const hub = await startServe(dir);
    const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    expect((await restCall(hub, human, 'POST', '/dm', { to: 'slow-1', text: 'this will take a while' })).status).toBe(201);
    const token = (await runningStart(stub.log)).env!.PARLEY_TOKEN!;
    expect((await restCall(hub, token, 'GET', '/whoami')).json).toMatchObject({ participant: { handle: 'slow-1' } });

    await hub.stop('SIGKILL');
    const again = await startServe(dir);
    expect((await restCall(again, token, 'GET', '/whoami')).status).toBe(401);
    // A participant's own token is not a run's: it survives the restart.
    expect((await restCall(again, human, 'GET', '/whoami')).status).toBe(200);
    expect(await again.stop()).toBe(0);
  });

  it('hub start - the run token of a parley coordinate killed mid-run (which revoked nothing) no longer works once the hub is started again', async () => {
    const dir = home();
    const stub = writeStub(dir, 'slow');
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ coordinator: { pollMs: 50, agents: { 'slow-1': { command: stub.command, env: { STUB_LOG: stub.log, STUB_GATE: path.join(dir, 'never') } } } } }));
    const hub = await startServe(dir);
    const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    const coordinator = await startCoordinate(dir);
    expect((await restCall(hub, human, 'POST', '/dm', { to: 'slow-1', text: 'this will take a while' })).status).toBe(201);
    const token = (await runningStart(stub.log)).env!.PARLEY_TOKEN!;
    const killed = new Promise((resolve) => coordinator.once('exit', resolve));
    coordinator.kill('SIGKILL');
    await killed;
    // Nothing revoked it: it still works while this hub runs.
    expect((await restCall(hub, token, 'GET', '/whoami')).status).toBe(200);

    expect(await hub.stop()).toBe(0);
    const again = await startServe(dir);
    expect((await restCall(again, token, 'GET', '/whoami')).status).toBe(401);
    expect((await restCall(again, human, 'GET', '/whoami')).status).toBe(200);
    expect(await again.stop()).toBe(0);
  });

  it('hub restart - parley coordinate takes the new admin token of a hub started again on its address, and its runs go on', async () => {
    const dir = home();
    const stub = writeStub(dir, 'quick');
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ coordinator: { pollMs: 50, agents: { 'quick-1': { command: stub.command, env: { STUB_LOG: stub.log } } } } }));
    const hub = await startServe(dir);
    const port = new URL(hub.url).port;
    const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    await startCoordinate(dir);
    expect((await restCall(hub, human, 'POST', '/dm', { to: 'quick-1', text: 'first' })).status).toBe(201);
    const starts = (): number => stubRuns(stub.log).filter((r) => r.at === 'start').length;
    const answers = async (at: RunningHub): Promise<number> =>
      ((await restCall(at, human, 'GET', `/threads/${encodeURIComponent('@quick-1')}/history?limit=100`)).json.events as Array<{ content?: string }>).filter((e) => e.content === 'answer from @quick-1').length;
    await expect.poll(starts, { timeout: 20_000, interval: 20 }).toBe(1);
    await expect.poll(() => answers(hub), { timeout: 20_000, interval: 50 }).toBe(1);
    const firstToken = hub.adminToken();

    expect(await hub.stop()).toBe(0);
    const again = await startServe(dir, { port });
    expect(again.adminToken()).not.toBe(firstToken);
    expect((await restCall(again, human, 'POST', '/dm', { to: 'quick-1', text: 'second' })).status).toBe(201);
    // The second run starts, with a run token the restarted hub gave, and its answer reaches the DM.
    await expect.poll(starts, { timeout: 20_000, interval: 20 }).toBe(2);
    await expect.poll(() => answers(again), { timeout: 20_000, interval: 50 }).toBe(2);
    expect(await again.stop()).toBe(0);
  });
});
