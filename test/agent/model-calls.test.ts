import { describe, expect, it } from 'vitest';
import { agentOnHub } from '../helpers/agent-on-hub.js';
import { scriptedModel, type Call } from '../helpers/agent-loop.js';

/**
 * What the loop's model calls are sent: a relevance check and a fork get the
 * history's tool calls and results in words (a call without those tools may
 * not carry tool parts), the history is cut to maxHistoryMessages by whole
 * turns, and every call tells a parleyMiddleware-wrapped model to stay out.
 */
const loop = agentOnHub();

type Prompt = Call['options']['prompt'];

/** The kinds of content part in a prompt, and its roles. */
function partTypes(prompt: Prompt): string[] {
  return prompt.flatMap((m) => (typeof m.content === 'string' ? ['text'] : m.content.map((p) => p.type)));
}

const textOf = (prompt: Prompt): string => JSON.stringify(prompt);

describe("the loop's model calls", () => {
  it('a relevance check is given the tool calls and results of the history in words, in order, with no tool parts', async () => {
    const judged: Call[] = [];
    const relevanceModel = scriptedModel((call) => {
      judged.push(call);
      return { text: '{"relevant": [1]}' };
    });
    const { hub, events } = await loop.start((call) => (call.n === 0 ? { calls: [{ tool: 'who', input: {} }] } : { text: 'ok' }), { relevance: 'always', relevanceModel });
    let mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'who is here?' });
    await events.next('turn-end', mark);
    mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'and now?' });
    await events.next('turn-end', mark);

    const prompt = judged[1]?.options.prompt ?? [];
    expect(prompt.map((m) => m.role)).not.toContain('tool');
    expect(partTypes(prompt).filter((t) => t !== 'text')).toEqual([]);
    const text = textOf(prompt);
    const called = text.indexOf('[called who with {}]');
    const returned = text.indexOf('[who returned: ');
    expect(called).toBeGreaterThan(text.indexOf('who is here?'));
    expect(returned).toBeGreaterThan(called);
    expect(text.indexOf('Relevance check')).toBeGreaterThan(returned);
    // The tool result became a user message.
    expect(prompt.find((m) => JSON.stringify(m).includes('[who returned: '))?.role).toBe('user');
  });

  it("a forked subagent's copy of the parent's context has its tool calls and results in words, and no tool parts", async () => {
    const subagentModel = scriptedModel(() => ({ text: 'dug' }));
    const { hub, events } = await loop.start(
      (call) =>
        call.n === 0 ? { calls: [{ tool: 'who', input: {} }] } : call.n === 1 ? { calls: [{ tool: 'subagent_fork', input: { task: 'dig deeper' } }] } : { text: 'ok' },
      { subagentModel },
    );
    const mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'the secret word is pelican' });
    await events.next('subagent-end', mark);
    const prompt = subagentModel.doGenerateCalls[0]?.prompt ?? [];
    expect(prompt.map((m) => m.role)).not.toContain('tool');
    expect(partTypes(prompt).filter((t) => t !== 'text')).toEqual([]);
    const text = textOf(prompt);
    expect(text).toContain('pelican');
    expect(text.indexOf('[who returned: ')).toBeGreaterThan(text.indexOf('[called who with {}]'));
    expect(text.indexOf('Your task: dig deeper')).toBeGreaterThan(text.indexOf('[who returned: '));
  });

  it('keeps at most maxHistoryMessages before a turn, dropping the oldest whole turns (a tool call with its result)', async () => {
    // Turn 1: a DM, a tool call, its result, an answer (4 messages); turn 2: a DM and an answer (2).
    const { hub, events, model } = await loop.start((call) => (call.n === 0 ? { calls: [{ tool: 'who', input: {} }] } : { text: 'ok' }), { maxHistoryMessages: 5 });
    for (const text of ['first question', 'second question']) {
      const mark = events.mark();
      await hub.human.dm({ to: 'bot', text });
      await events.next('turn-end', mark);
    }
    const beforeThird = model.doGenerateCalls.length;
    const mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'third question' });
    await events.next('turn-end', mark);
    // Six messages were kept after turn 2: turn 1 went whole, turn 2 stayed.
    const prompt = model.doGenerateCalls[beforeThird]?.prompt ?? [];
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const text = textOf(prompt);
    expect(text).not.toContain('first question');
    expect(text).toContain('second question');
    expect(text).toContain('third question');
  });

  it('every model call — the loop\'s, a relevance check\'s, a subagent\'s — says providerOptions.parley.skip, so a parleyMiddleware-wrapped model stays out', async () => {
    const relevanceModel = scriptedModel(() => ({ text: '{"relevant": [1]}' }));
    const subagentModel = scriptedModel(() => ({ text: 'done' }));
    const { hub, events, model } = await loop.start(
      (call) => (call.n === 0 ? { calls: [{ tool: 'subagent_spawn', input: { task: 'a job' } }] } : { text: 'ok' }),
      { relevance: 'always', relevanceModel, subagentModel },
    );
    const mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'start a job' });
    await events.next('subagent-end', mark);
    await events.next('turn-end', mark);
    const calls = [...model.doGenerateCalls, ...relevanceModel.doGenerateCalls, ...subagentModel.doGenerateCalls];
    expect([model, relevanceModel, subagentModel].map((m) => m.doGenerateCalls.length > 0)).toEqual([true, true, true]);
    for (const call of calls) expect(call.providerOptions).toEqual({ parley: { skip: true } });
  });
});
