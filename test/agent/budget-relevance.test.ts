import { describe, expect, it, vi } from 'vitest';
import { agentOnHub } from '../helpers/agent-on-hub.js';
import { CALL_TOKENS, scriptedModel, untilAborted, type Call, type Reply } from '../helpers/agent-loop.js';

/**
 * The loop's budget (tokens, turns, time: it stops and says why) and its
 * relevance check (always, or above N items; what is judged irrelevant is
 * taken but never given to the model; the check's own token budget).
 */
const loop = agentOnHub();
/** Starts @bot's loop without waiting for its first wait: a budget may end it before. */
const start = (script: (call: Call) => Reply | Promise<Reply>, extra: Record<string, unknown> = {}) => loop.start(script, extra, { waiting: false });

describe('the budget', () => {
  it('stops at the token budget, after the step that spent it, and says so', async () => {
    const { hub, events, lines, done } = await start(
      (call) => (call.n < 5 ? { calls: [{ tool: 'who', input: {} }] } : { text: 'never reached' }),
      { budget: { tokens: 2 * CALL_TOKENS } },
    );
    await events.next('waiting');
    await hub.human.dm({ to: 'bot', text: 'keep going' });
    const result = await done;
    expect(result).toEqual({
      reason: 'tokens',
      message: `Token budget spent: ${2 * CALL_TOKENS} of ${2 * CALL_TOKENS} tokens used.`,
      turns: 1,
      usage: { inputTokens: 20, outputTokens: 10, totalTokens: 2 * CALL_TOKENS },
      relevanceTokens: 0,
      subagents: [],
    });
    expect(events.of('step').map((e) => e.step)).toEqual([1, 2]);
    expect(lines).toContain(`parley: agent @bot stopped (tokens): ${result.message} 1 turns, 30 tokens.`);
    expect(events.of('stopped').map((e) => e.result.reason)).toEqual(['tokens']);
  });

  it('stops at the turn budget once its last turn ended', async () => {
    const { hub, events, model, done } = await start(() => ({ text: 'one turn' }), { budget: { turns: 1 } });
    await events.next('waiting');
    await hub.human.dm({ to: 'bot', text: 'first' });
    const result = await done;
    expect(result).toMatchObject({ reason: 'turns', message: 'Turn budget spent: 1 of 1 turns taken.', turns: 1, usage: { totalTokens: CALL_TOKENS } });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('stops at the time budget: its wait on the hub is cut to the time left, and nothing is spent', async () => {
    const { events, model, done } = await start(() => ({ text: 'never' }), { budget: { ms: 200 }, waitMs: 60_000 });
    const waiting = await events.next('waiting');
    expect(waiting.timeoutMs).toBeLessThanOrEqual(200);
    expect(waiting.timeoutMs).toBeGreaterThan(0);
    expect(await done).toEqual({ reason: 'time', message: 'Time budget spent: 200 ms have passed.', turns: 0, usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, relevanceTokens: 0, subagents: [] });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    const { events, done } = await start(() => ({ text: 'never' }), { signal: controller.signal });
    await events.next('waiting');
    controller.abort();
    expect(await done).toMatchObject({ reason: 'stopped', message: 'Stopped.', turns: 0 });
  });

  it('a signal aborted before run() stops it at once (no event fires for it); the listener it adds is removed once run() ends', async () => {
    const { events, done } = await start(() => ({ text: 'never' }), { signal: AbortSignal.abort() });
    const waited = events.next('waiting').then(() => Promise.reject(new Error('the loop waited on the hub despite its aborted signal')));
    expect(await Promise.race([done, waited])).toMatchObject({ reason: 'stopped', turns: 0 });

    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const second = await start(() => ({ text: 'never' }), { signal: controller.signal });
    await second.events.next('waiting');
    second.agent.stop();
    await second.done;
    const listener = add.mock.calls.find(([type]) => type === 'abort')?.[1];
    expect(listener).toBeTypeOf('function');
    expect(remove.mock.calls.some(([type, fn]) => type === 'abort' && fn === listener)).toBe(true);
  });

  it('the time budget aborts a model call still running at the deadline, and the loop stops with reason "time"', async () => {
    const hub = await loop.open();
    await hub.human.dm({ to: 'bot', text: 'think hard' });
    const { model, done } = await start(
      untilAborted,
      { budget: { ms: 300 } },
    );
    expect(await done).toMatchObject({ reason: 'time', message: 'Time budget spent: 300 ms have passed.', turns: 0 });
    expect(model.doGenerateCalls).toHaveLength(1);
    // Nothing the aborted call was given is taken.
    expect((await hub.human.sentDeliveries()).map((d) => d.state)).toEqual(['pending']);
  });

  it('the time budget aborts a relevance check still running at the deadline too', async () => {
    const hub = await loop.open();
    await hub.human.dm({ to: 'bot', text: 'is this relevant?' });
    const relevanceModel = scriptedModel(
      untilAborted,
    );
    const { model, done } = await start(() => ({ text: 'never' }), { budget: { ms: 300 }, relevance: 'always', relevanceModel });
    expect(await done).toMatchObject({ reason: 'time', turns: 0 });
    expect(relevanceModel.doGenerateCalls).toHaveLength(1);
    expect(model.doGenerateCalls).toHaveLength(0);
  });
});

/** The relevance model: judges the numbered item whose line mentions `keep` relevant. */
function judge(keep: string, calls: Call[]) {
  return (call: Call): Reply => {
    calls.push(call);
    // Each item starts "N. " on a line of its own; its text may follow on the next lines.
    const items = call.last.split(/\n(?=\d+\. )/).filter((block) => /^\d+\. /.test(block));
    const chosen = items.filter((block) => block.includes(keep)).map((block) => Number(block.split('.')[0]));
    return { text: `Sure. {"relevant": ${JSON.stringify(chosen)}}` };
  };
}

describe('the relevance check', () => {
  it('"always": a forked call with the history judges the items; the irrelevant one is taken but never given to the model, and said in the log', async () => {
    const hub = await loop.open();
    const judged: Call[] = [];
    const relevanceModel = scriptedModel(judge('review my PR', judged));
    const lunch = await hub.human.post({ thread: 'general', text: 'lunch at noon' });
    await hub.human.dm({ to: 'bot', text: 'can you review my PR?' });
    const { events, model, lines, agent, done } = await start(() => ({ text: 'on it' }), { relevance: 'always', relevanceModel, system: 'You review code.' });
    await events.next('turn-end');
    // The check saw the parent's system prompt and the items, numbered, and was asked for a list.
    expect(judged).toHaveLength(1);
    expect(judged[0]?.system).toContain('You review code.');
    expect(judged[0]?.last).toMatch(/^user: Relevance check/);
    expect(judged[0]?.last).toContain('1. Direct message from @human');
    expect(judged[0]?.last).toContain('2. Message from @human in general');
    expect(judged[0]?.tools).toEqual([]);
    const relevance = events.of('relevance')[0];
    expect(relevance).toMatchObject({ relevant: 1, tokens: CALL_TOKENS });
    expect(relevance?.irrelevant.map((i) => i.id)).toEqual([lunch.id]);
    // The model was given the DM only.
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('can you review my PR?');
    expect(prompt).not.toContain('lunch at noon');
    expect(lines.some((l) => l.includes(`took 1 item(s) without giving them to the model (not relevant): ${lunch.id} from @human`))).toBe(true);
    // Taken on the hub: the lunch message no longer waits in the inbox.
    await events.next('waiting', events.events.indexOf(events.of('turn-end')[0]!));
    expect((await hub.agents.bot?.actor.peek())?.items).toEqual([]);
    agent.stop();
    // Relevance tokens count apart: the budget holds the model's call only; the result says what the checks spent.
    const result = await done;
    expect(result.usage.totalTokens).toBe(CALL_TOKENS);
    expect(result.relevanceTokens).toBe(CALL_TOKENS);
  });

  it('nothing relevant: the items are taken, no turn is run', async () => {
    const hub = await loop.open();
    const judged: Call[] = [];
    await hub.human.post({ thread: 'general', text: 'lunch at noon' });
    const { events, model, agent, done } = await start(() => ({ text: 'never' }), { relevance: 'always', relevanceModel: scriptedModel(judge('nothing matches', judged)) });
    await events.next('relevance');
    await events.next('waiting');
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(events.of('turn-start')).toEqual([]);
    expect((await hub.agents.bot?.actor.peek())?.items).toEqual([]);
    agent.stop();
    expect((await done).turns).toBe(0);
  });

  it('{ above: 1 } checks only when more than one item waits', async () => {
    const hub = await loop.open();
    const judged: Call[] = [];
    // Two items before the loop starts: its first drain has both.
    await hub.human.dm({ to: 'bot', text: 'first of two' });
    await hub.human.post({ thread: 'general', text: 'second of two' });
    const { events, agent, done } = await start(() => ({ text: 'ok' }), { relevance: { above: 1 }, relevanceModel: scriptedModel(judge('@human', judged)) });
    await events.next('turn-end');
    expect(judged).toHaveLength(1);
    expect(events.of('relevance')).toMatchObject([{ relevant: 2, irrelevant: [] }]);
    await events.next('waiting');
    const mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'just one' });
    await events.next('turn-end', mark);
    expect(judged).toHaveLength(1);
    expect(events.of('relevance')).toHaveLength(1);
    agent.stop();
    await done;
  });

  it('past its own token budget the check is skipped and every item is relevant; an unreadable answer keeps them all too', async () => {
    const hub = await loop.open();
    const answers = ['I cannot tell.', 'never asked'];
    const judged: Call[] = [];
    const relevanceModel = scriptedModel((call) => {
      judged.push(call);
      return { text: answers[call.n] ?? 'never asked' };
    });
    const { events, model, agent, done } = await start(() => ({ text: 'ok' }), { relevance: 'always', relevanceModel, relevanceBudget: { tokens: 10 } });
    await events.next('waiting');
    let mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'first' });
    await events.next('turn-end', mark);
    expect(events.of('relevance')).toMatchObject([{ relevant: 1, irrelevant: [], tokens: CALL_TOKENS, skipped: 'unparseable' }]);
    mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'second' });
    await events.next('turn-end', mark);
    expect(events.of('relevance')[1]).toMatchObject({ relevant: 1, irrelevant: [], tokens: 0, skipped: 'budget' });
    expect(judged).toHaveLength(1);
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain('second');
    agent.stop();
    await done;
  });
});
