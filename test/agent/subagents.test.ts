import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentOnHub } from '../helpers/agent-on-hub.js';
import { CALL_TOKENS, scriptedModel, type Call, type Reply } from '../helpers/agent-loop.js';

/**
 * Subagents: spawned (the task alone) or forked (the parent's context too),
 * with the agent's own tools and never Parley's; their results land in the
 * parent's inbox and wake it; cancelled ones leave nothing; their tokens are
 * the parent's.
 */
const loop = agentOnHub();

const calc = { description: 'Adds two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }: { a: number; b: number }) => ({ sum: a + b }) };

/** Starts @bot's loop with `parent` as its model, `sub` as its subagents' model, and the calc tool. */
async function start(parent: (call: Call) => Reply | Promise<Reply>, sub: (call: Call) => Reply | Promise<Reply>, extra: Record<string, unknown> = {}) {
  const subagentModel = scriptedModel(sub);
  return { ...(await loop.start(parent, { subagentModel, tools: { calc }, ...extra })), subagentModel };
}

describe('subagents', () => {
  it("a spawned subagent's result lands in the parent's inbox and wakes it, and the parent is given the result", async () => {
    const { agent, events, model, subagentModel, done } = await start(
      () => ({ text: 'noted' }),
      () => ({ text: 'all 42 tests passed' }),
    );
    const mark = events.mark();
    const info = agent.spawn('run the tests');
    expect(info).toEqual({ id: 'sub-1', mode: 'spawn', task: 'run the tests', status: 'running', tokens: 0 });
    const woke = await events.next('woke', mark);
    expect(woke.items).toEqual([]);
    expect(woke.subagentResults).toEqual([{ subagent_id: 'sub-1', task: 'run the tests', status: 'completed', result: 'all 42 tests passed', summary: 'all 42 tests passed' }]);
    await events.next('turn-end', mark);
    const last = model.doGenerateCalls[0]?.prompt.at(-1);
    expect(last?.role === 'user' && last.content[0]?.type === 'text' ? last.content[0].text : '').toBe(
      'Subagent results (your own workers, finished; each answer quoted with ">"):\n[subagent sub-1] completed: task "run the tests"\n> all 42 tests passed',
    );
    // The subagent got its own tools only: no hub tools, no subagent tools.
    expect((subagentModel.doGenerateCalls[0]?.tools ?? []).map((t) => t.name)).toEqual(['calc']);
    expect(agent.subagents()).toEqual([{ id: 'sub-1', mode: 'spawn', task: 'run the tests', status: 'completed', tokens: CALL_TOKENS }]);
    agent.stop();
    // Its tokens are the parent's: one subagent call and one parent call.
    expect(await done).toMatchObject({ reason: 'stopped', usage: { totalTokens: 2 * CALL_TOKENS }, subagents: [{ id: 'sub-1', status: 'completed' }] });
  });

  it("a forked subagent sees the parent's context, a spawned one only its task; both started by the model's tools", async () => {
    const { hub, events, model, subagentModel, agent, done } = await start(
      (call) => (call.n === 0 ? { calls: [{ tool: 'subagent_fork', input: { task: 'check the fork' } }, { tool: 'subagent_spawn', input: { task: 'check the spawn' } }] } : { text: 'waiting for them' }),
      (call) => (call.n < 1 && call.tools.length > 0 ? { calls: [{ tool: 'calc', input: { a: 2, b: 3 } }] } : { text: 'done' }),
    );
    const mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'the secret word is pelican' });
    await events.next('subagent-end', mark, (e) => e.id === 'sub-1');
    await events.next('subagent-end', mark, (e) => e.id === 'sub-2');
    const prompts = subagentModel.doGenerateCalls.map((c) => JSON.stringify(c.prompt));
    const fork = prompts.filter((p) => p.includes('check the fork'));
    const spawn = prompts.filter((p) => p.includes('check the spawn'));
    expect(fork.length).toBeGreaterThan(0);
    expect(spawn.length).toBeGreaterThan(0);
    for (const p of fork) expect(p).toContain('the secret word is pelican');
    for (const p of spawn) expect(p).not.toContain('pelican');
    // A spawned one is given the task alone (after its system prompt).
    const spawned = subagentModel.doGenerateCalls.find((c) => JSON.stringify(c.prompt).includes('check the spawn'));
    expect(spawned?.prompt.slice(0, 2).map((m) => m.role)).toEqual(['system', 'user']);
    expect(spawned?.prompt[1]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Your task: check the spawn' }] });
    for (const call of subagentModel.doGenerateCalls) expect((call.tools ?? []).map((t) => t.name)).toEqual(['calc']);
    // The parent's tool results gave the ids.
    await events.next('turn-end', mark);
    const toolMessage = JSON.stringify(model.doGenerateCalls[1]?.prompt.find((m) => m.role === 'tool'));
    expect(toolMessage).toContain('"id":"sub-1"');
    expect(toolMessage).toContain('"mode":"fork"');
    agent.stop();
    await done;
  });

  it('a cancelled subagent stops at once and leaves no result in the inbox', async () => {
    let called!: () => void;
    const subCalled = new Promise<void>((resolve) => (called = resolve));
    const { hub, agent, events, model, done } = await start(
      () => ({ text: 'ok' }),
      (call) =>
        new Promise<Reply>((_, reject) => {
          called();
          call.options.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const mark = events.mark();
    const { id } = agent.spawn('a long job');
    await subCalled;
    expect(agent.cancel(id)).toEqual({ id, mode: 'spawn', task: 'a long job', status: 'cancelled', tokens: 0 });
    expect(await events.next('subagent-end', mark)).toEqual({ type: 'subagent-end', id, status: 'cancelled' });
    // What wakes the parent next is the DM alone: no result came from the cancelled one.
    await hub.human.dm({ to: 'bot', text: 'next thing' });
    const woke = await events.next('woke', mark);
    expect(woke.subagentResults).toEqual([]);
    await events.next('turn-end', mark);
    expect(JSON.stringify(model.doGenerateCalls[0]?.prompt)).not.toContain('Subagent results');
    expect(() => agent.cancel('sub-9')).toThrow(expect.objectContaining({ code: 'NOT_FOUND', field: 'id' }));
    agent.stop();
    expect((await done).subagents).toEqual([{ id, mode: 'spawn', task: 'a long job', status: 'cancelled', tokens: 0 }]);
  });

  it("a subagent spends the parent's token budget and stops when it is spent; the parent stops on it too", async () => {
    const { agent, events, done } = await start(
      () => ({ text: 'ok' }),
      () => ({ calls: [{ tool: 'calc', input: { a: 1, b: 1 } }] }),
      { budget: { tokens: 3 * CALL_TOKENS } },
    );
    agent.spawn('loop forever');
    const end = await events.next('subagent-end');
    expect(end).toMatchObject({ status: 'stopped' });
    const result = await done;
    expect(result.reason).toBe('tokens');
    expect(result.usage.totalTokens).toBe(3 * CALL_TOKENS);
    expect(result.subagents).toEqual([{ id: 'sub-1', mode: 'spawn', task: 'loop forever', status: 'stopped', tokens: 3 * CALL_TOKENS }]);
  });

  it('stopping the parent cancels its running subagents', async () => {
    let called!: () => void;
    const subCalled = new Promise<void>((resolve) => (called = resolve));
    const { agent, done } = await start(
      () => ({ text: 'ok' }),
      (call) =>
        new Promise<Reply>((_, reject) => {
          called();
          call.options.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    agent.spawn('never ends');
    await subCalled;
    agent.stop();
    expect((await done).subagents).toEqual([{ id: 'sub-1', mode: 'spawn', task: 'never ends', status: 'cancelled', tokens: 0 }]);
  });
});
