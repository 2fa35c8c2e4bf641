import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/client/live-hub.js';
import { hashToken } from '../../src/hub/tokens.js';
import { openBench, stubRuns, type Bench, type StubRun } from '../helpers/coordinator.js';

let bench: Bench | undefined;
const strays: number[] = [];
afterEach(async () => {
  // A detached child is in no process group the coordinator kills: it is ended here, by its pid.
  for (const pid of strays.splice(0)) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  await bench?.close();
  bench = undefined;
});

function startOf(log: string, nth = 0): StubRun {
  const start = stubRuns(log).filter((r) => r.at === 'start')[nth];
  if (!start) throw new Error(`no run ${nth + 1} in ${log}`);
  return start;
}

describe('a coordinated run has a token of its own, that ends with it', () => {
  it('run tokens - a detached child left by a run calls the hub with the run token after the run ended, and gets 401', async () => {
    bench = await openBench({ 'coder-1': { env: { STUB_HOOK: '1', STUB_DETACHED: '$DIR/call-now' } } });
    const { human, t } = bench;
    const dm = await human.dm({ to: 'coder-1', text: 'have a look' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(`in reply to ${dm.id}`));
    const start = startOf(bench.logs['coder-1']!);
    strays.push(start.detached!);
    // The token worked during the run (the adapter's hook report went through) and names coder-1.
    expect(stubRuns(bench.logs['coder-1']!).find((r) => r.at === 'hooked')).toMatchObject({ status: 200 });
    expect(processAlive(start.detached!)).toBe(true);

    // The run is over; the child it left in a session of its own (setsid) now calls with the run's token.
    fs.writeFileSync(path.join(bench.dir, 'call-now'), '');
    await expect.poll(() => stubRuns(bench!.logs['coder-1']!).find((r) => r.at === 'detached'), { timeout: 10_000, interval: 20 }).toMatchObject({ status: 401 });
    expect(t.hub.authenticate(start.env!.PARLEY_TOKEN!)).toBeUndefined();
    // No token the coordinator minted is left in the table while no run is under way.
    expect(t.hub.internals.store.tokens.all().filter((row) => row.kind === 'coordinator')).toEqual([]);
  });

  it('run tokens - each run gets a token of its own, not one shared by the participant\'s runs', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human } = bench;
    const first = await human.dm({ to: 'coder-1', text: 'first' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(first.id));
    const second = await human.dm({ to: 'coder-1', text: 'second' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(second.id));
    const tokens = [0, 1].map((nth) => startOf(bench!.logs['coder-1']!, nth).env!.PARLEY_TOKEN);
    expect(tokens[0]).toMatch(/^pt_/);
    expect(tokens[1]).toMatch(/^pt_/);
    expect(tokens[1]).not.toBe(tokens[0]);
  });

  it('run tokens - a failed run\'s token is revoked as it ends', async () => {
    bench = await openBench({ 'coder-1': { env: { STUB_EXIT: '3' } } });
    await bench.human.dm({ to: 'coder-1', text: 'please fail' });
    await bench.notice((n) => n.kind === 'failed');
    expect(bench.t.hub.authenticate(startOf(bench.logs['coder-1']!).env!.PARLEY_TOKEN!)).toBeUndefined();
  });

  it('run tokens - a timed-out run\'s token is revoked as it ends', async () => {
    bench = await openBench({ 'coder-1': { timeoutSeconds: 1, env: { STUB_SLEEP_MS: '600000' } } });
    await bench.human.dm({ to: 'coder-1', text: 'take your time' });
    await bench.notice((n) => n.kind === 'timeout');
    expect(bench.t.hub.authenticate(startOf(bench.logs['coder-1']!).env!.PARLEY_TOKEN!)).toBeUndefined();
  });

  it('run tokens - a run the coordinator\'s stop cuts short has its token revoked', async () => {
    bench = await openBench({ 'coder-1': { env: { STUB_GATE: '$DIR/never' } } });
    await bench.human.dm({ to: 'coder-1', text: 'this will take a while' });
    await expect.poll(() => stubRuns(bench!.logs['coder-1']!).length, { timeout: 10_000, interval: 20 }).toBe(1);
    const token = startOf(bench.logs['coder-1']!).env!.PARLEY_TOKEN!;
    expect(bench.t.hub.authenticate(token)?.participant.handle).toBe('coder-1');
    // Marked as a run's token in the table, so that a hub start revokes it if nothing else did.
    expect(bench.t.hub.internals.store.tokens.all().filter((row) => row.kind === 'coordinator').map((row) => row.token_hash)).toEqual([hashToken(token)]);
    await bench.stopCoordinator();
    expect(bench.notices.map((n) => n.kind)).toEqual(['started', 'stopped']);
    expect(bench.t.hub.authenticate(token)).toBeUndefined();
  });
});

describe('what an adapter inherits', () => {
  it('adapter environment - nothing leads to the home: no PARLEY_HOME, no hub password or token of the coordinator, no variable naming a path in it', async () => {
    // The coordinator's own environment, as a hub's may be: its home, the hub password, a token, paths into the home.
    bench = await openBench({ 'coder-1': {} }, {}, { env: envOf });
    await bench.human.dm({ to: 'coder-1', text: 'hello' });
    await bench.notice((n) => n.kind === 'finished');
    const env = startOf(bench.logs['coder-1']!).env!;
    for (const key of ['PARLEY_HOME', 'PARLEY_WEBUI_PASSWORD', 'PARLEY_ADMIN_TOKEN', 'KEYS_DIR', 'TOOL_PATH', 'OLDPWD']) expect(env[key], key).toBeUndefined();
    expect(env.PARLEY_TOKEN).not.toBe('pt_the-coordinators-own');
    expect(env).toMatchObject({ UNRELATED: 'kept', ELSEWHERE: `/opt/tools${path.delimiter}/usr/bin` });
    // The stub's own settings (its log file, from the adapter's config) aside, no value names the home.
    const leaks = Object.entries(env).filter(([key, value]) => !key.startsWith('STUB_') && value.includes(bench!.t.home));
    expect(leaks).toEqual([]);
  });
});

/** A hub's environment: what the adapter must not inherit, and what it may. */
function envOf(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    PARLEY_HOME: home,
    PARLEY_WEBUI_PASSWORD: 'hunter2',
    PARLEY_ADMIN_TOKEN: 'pa_secret',
    PARLEY_TOKEN: 'pt_the-coordinators-own',
    KEYS_DIR: path.join(home, 'keys'),
    TOOL_PATH: `/opt/tools${path.delimiter}${home}`,
    OLDPWD: home,
    UNRELATED: 'kept',
    ELSEWHERE: `/opt/tools${path.delimiter}/usr/bin`,
  };
}
