import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { messagesIn, openBench, stubRuns, writeStub, type Bench } from '../helpers/coordinator.js';
import { tempHome } from '../helpers/hub.js';
import { cliAt, joinOver, restCall, startServe, stopHubs, type Json } from '../helpers/serve.js';

let bench: Bench | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await bench?.close();
  bench = undefined;
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** The notice that ends the handling of `id`, whichever way: its run finished, or it was refused. */
const settled = (id: string) => (n: { kind: string; text: string }) => (n.kind === 'refused' || n.kind === 'finished') && n.text.includes(id);

describe('the loop guard counts turns between agents, not messages', () => {
  it('loop guard - an agent that gives context and then asks, two messages in a row, is answered (one turn)', async () => {
    bench = await openBench({ 'coder-2': { env: { STUB_REPLY: 'Reviewed: fine.' } } });
    const { human, t } = bench;
    await t.hub.join({ handle: 'coder-1', profile: { kind: 'agent' } });
    const coder1 = t.hub.actor('coder-1');
    await human.createChannel({ name: 'plan' });
    await coder1.post({ thread: 'plan', text: 'Context: the PR touches 3 files.' });
    const ask = await coder1.post({ thread: 'plan', text: '@coder-2 could you review it?' });
    const done = await bench.notice(settled(ask.id));
    expect(done.kind).toBe('finished');
    const answer = (await messagesIn(human, 'plan')).find((e) => e.author === 'coder-2');
    expect(answer).toMatchObject({ content: 'Reviewed: fine.', meta: { reply_to: ask.id, tags: ['parley:depth=2'] } });
  });

  it('loop guard - in a DM, context and then a follow-up request (hop 1) from one agent is answered', async () => {
    bench = await openBench({ 'coder-2': { env: { STUB_REPLY: 'Reviewed: fine.' } } });
    const { human, t } = bench;
    await t.hub.join({ handle: 'coder-1', profile: { kind: 'agent' } });
    const coder1 = t.hub.actor('coder-1');
    const asked = await human.request({ to: 'coder-1', intent: 'review', text: 'Get the PR reviewed, please.' });
    await coder1.dm({ to: 'coder-2', text: 'Context: the PR touches 3 files.' });
    const followUp = await coder1.request({ to: 'coder-2', intent: 'review', text: 'Could you review it?', reply_to: asked.request_id });
    expect(followUp.hop).toBe(1);
    const done = await bench.notice((n) => (n.kind === 'refused' && n.text.includes(followUp.id)) || (n.kind === 'finished' && n.text.includes(followUp.request_id)));
    expect(done.kind).toBe('finished');
    const history = (await coder1.history({ thread: followUp.thread, limit: 100 })).events;
    expect(history.find((e) => e.type === 'response')).toMatchObject({ author: 'coder-2', content: { request_id: followUp.request_id, status: 'Completed' } });
    expect(bench.notices.filter((n) => n.kind === 'refused')).toEqual([]);
  });
});

describe('the loop guard through the CLI', () => {
  it('loop guard - parley say, context then an ask --as one agent, is answered by the coordinated agent', async () => {
    const { home, cleanup } = tempHome('parley-loop-');
    cleanups.push(cleanup);
    const stub = writeStub(home, 'coder-2');
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ coordinator: { enabled: true, agents: { 'coder-2': { command: stub.command, env: { STUB_LOG: stub.log, STUB_REPLY: 'Reviewed: fine.' } } } } }));
    const hub = await startServe(home);
    const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    expect((await restCall(hub, human, 'POST', '/threads', { name: 'plan' })).status).toBe(201);
    const parley = cliAt(home, hub.url);
    expect(parley('join', 'coder-1').status).toBe(0);
    expect(parley('say', 'plan', 'Context: the PR touches 3 files.', '--as', 'coder-1').status).toBe(0);
    expect(parley('say', 'plan', '@coder-2 could you review it?', '--as', 'coder-1').status).toBe(0);
    // The run's notice (finished, or refused) says how the ask ended.
    let notices: Json[] = [];
    await expect
      .poll(
        async () => {
          notices = ((await restCall(hub, human, 'GET', '/threads/coordinator/history?limit=50')).json.events as Json[]).filter((e) => e.type === 'message');
          return notices.some((e) => /coordinator:(finished|refused|failed)/.test(String(e.meta?.tags)));
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(true);
    expect(notices.map((e) => (e.meta.tags as string[])[0])).toEqual(['coordinator:started', 'coordinator:finished']);
    const plan = ((await restCall(hub, human, 'GET', '/threads/plan/history?limit=50')).json.events as Json[]).filter((e) => e.type === 'message');
    expect(plan.map((e) => [e.author, e.content])).toEqual([
      ['coder-1', 'Context: the PR touches 3 files.'],
      ['coder-1', '@coder-2 could you review it?'],
      ['coder-2', 'Reviewed: fine.'],
    ]);
    expect(stubRuns(stub.log).filter((r) => r.at === 'start')).toHaveLength(1);
    expect(await hub.stop()).toBe(0);
  });
});
