import { afterEach, describe, expect, it } from 'vitest';
import { CoordinatorConfigSchema } from '../../src/config/schema.js';
import { Coordinator } from '../../src/coordinator/coordinator.js';
import { InProcessHubAccess } from '../../src/coordinator/in-process-hub-access.js';
import { messagesIn, openBench, stubRuns, writeStub, type Bench } from '../helpers/coordinator.js';
import { closeServed, openTestHub } from '../helpers/hub.js';
import { startHttpServer } from '../../src/http/server.js';
import { createSilentLogger } from '../../src/util/logger.js';

let bench: Bench | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await bench?.close();
  bench = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the coordinator answers only for agents', () => {
  it('refuses to start when coordinator.agents names a human, naming the key, and posts nothing as them', async () => {
    const t = await openTestHub();
    const server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
    cleanups.push(() => closeServed(t, server));
    const boss = await t.hub.join({ handle: 'boss', profile: { kind: 'human' } });
    const stub = writeStub(t.home);
    const config = CoordinatorConfigSchema.parse({ agents: { boss: { command: stub.command, env: { STUB_LOG: stub.log } } } });
    await expect(Coordinator.start({ hubAccess: new InProcessHubAccess(t.hub, server.url), config })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      field: 'coordinator.agents.boss',
      message: expect.stringContaining('"coordinator.agents.boss": boss is a human on this hub, not an agent'),
    });
    expect(t.hub.participant('boss')!.profile.kind).toBe('human');
    const other = await t.hub.join({ handle: 'someone', profile: { kind: 'human' } });
    await other.dm({ to: 'boss', text: 'are you there?' });
    expect(stubRuns(stub.log)).toEqual([]);
    expect((await messagesIn(boss, '@someone')).map((e) => e.author)).toEqual(['someone']);
  });

  it('does not run or post for a configured agent that has become a human since it started, and says so', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human, t } = bench;
    await t.hub.join({ handle: 'coder-1', profile: { kind: 'human' } });
    const dm = await human.dm({ to: 'coder-1', text: 'are you a person now?' });
    const refused = await bench.notice((n) => n.kind === 'refused' && n.handle === 'coder-1');
    expect(refused.text).toBe(
      `coder-1 not run for 1 direct message in a direct message with human (${dm.id}): coder-1 is a human, not an agent, and the coordinator answers only for agents; remove it from coordinator.agents.`,
    );
    expect(stubRuns(bench.logs['coder-1']!)).toEqual([]);
    expect((await messagesIn(human, '@coder-1')).map((e) => e.author)).toEqual(['human']);
  });

  it('refuses to start when coordinator.handle is a human, naming the key, and leaves that person a human', async () => {
    const t = await openTestHub();
    const server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
    cleanups.push(() => closeServed(t, server));
    await t.hub.join({ handle: 'maria', profile: { kind: 'human' } });
    const stub = writeStub(t.home);
    const config = CoordinatorConfigSchema.parse({ handle: 'maria', agents: { 'coder-1': { command: stub.command, env: { STUB_LOG: stub.log } } } });
    await expect(Coordinator.start({ hubAccess: new InProcessHubAccess(t.hub, server.url), config })).rejects.toMatchObject({ code: 'CONFIG_INVALID', field: 'coordinator.handle' });
    expect(t.hub.participant('maria')!.profile.kind).toBe('human');
  });
});
