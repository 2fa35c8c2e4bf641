import { describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/index.js';
import { QUESTION_REMINDER } from '../../src/format/agent-prompts.js';
import { agentOnHub } from '../helpers/agent-on-hub.js';
import type { AgentHub } from '../helpers/agent-hub.js';
import { EventLog, hubOptionsFor, said, scriptedModel, type Reply } from '../helpers/agent-loop.js';

/**
 * The agent loop against a real hub over loopback: what wakes it (and what
 * does not), what the model is given, what it does through the hub's tools,
 * presence, and a failed model call.
 */
const loop = agentOnHub();

const DM_TEXT = /Direct message from @human \(id \w+\)\. Reply with chat_dm to @human\./;

describe('the agent loop', () => {
  it('sleeps on the hub until a DM wakes it, gives the model the DM last, and its chat_dm answer reaches the human through the hub', async () => {
    const { hub, events, model, agent, done } = await loop.start((call) =>
      call.n === 0 ? { calls: [{ tool: 'chat_dm', input: { to: 'human', text: 'pong from the loop' } }] } : { text: 'answered' },
    );
    expect(events.of('woke')).toEqual([]);
    const mark = events.mark();
    const dm = await hub.human.dm({ to: 'bot', text: 'ping?' });
    const end = await events.next('turn-end', mark);
    expect(end).toMatchObject({ turn: 1, steps: 2, usage: { totalTokens: 30 } });
    const woke = events.of('woke');
    expect(woke.map((e) => e.items.map((i) => [i.id, i.reason, i.text]))).toEqual([[[dm.id, 'dm', 'ping?']]]);

    // The first call: the system prompt carries the addendum; the DM is the last message.
    const first = model.doGenerateCalls[0];
    expect(first?.prompt[0]).toMatchObject({ role: 'system' });
    expect(String(first?.prompt[0]?.content)).toContain('You are @bot in Parley');
    const last = first?.prompt[first.prompt.length - 1];
    expect(last?.role).toBe('user');
    const lastText = last?.role === 'user' && last.content[0]?.type === 'text' ? last.content[0].text : '';
    expect(lastText).toMatch(/^Recent chat messages/);
    expect(lastText).toMatch(DM_TEXT);
    expect(lastText).toContain('ping?');
    // Its tools: Parley's hub tools and the subagent tools.
    expect((first?.tools ?? []).map((t) => t.name)).toEqual(expect.arrayContaining(['chat_post', 'chat_dm', 'chat_read', 'chat_history', 'chat_threads', 'request_send', 'request_respond', 'requests_open', 'who', 'subagent_spawn', 'subagent_fork', 'subagents_list', 'subagent_cancel']));
    // The second call keeps the DM in the loop's history (not only in the call it was injected into), then the tool's result.
    const second = model.doGenerateCalls[1]?.prompt ?? [];
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);

    expect(await said(hub.human, '@bot')).toEqual(['human: ping?', 'bot: pong from the loop']);
    // Taken on the hub: the DM is marked injected.
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'injected']]);

    await events.next('waiting', mark);
    agent.stop();
    expect(await done).toMatchObject({ reason: 'stopped', turns: 1, usage: { totalTokens: 30 } });
  });

  it('after a step whose only tool calls were chat tools, the next call\'s system prompt opens with the reminder; not after another tool', async () => {
    const { hub, events, model, agent, done } = await loop.start((call) =>
      call.n === 0
        ? { calls: [{ tool: 'chat_dm', input: { to: 'human', text: 'on it' } }] }
        : call.n === 1
          ? { calls: [{ tool: 'who', input: {} }] }
          : { text: 'done' },
    );
    const mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'status?' });
    await events.next('turn-end', mark);
    const systems = model.doGenerateCalls.map((call) => (call.prompt[0]?.role === 'system' ? call.prompt[0].content : ''));
    expect(systems.map((system) => system.startsWith(`${QUESTION_REMINDER}\n\n`))).toEqual([false, true, false]);
    expect(systems[1]).toBe(`${QUESTION_REMINDER}\n\n${systems[0]}`);
    agent.stop();
    await done;
  });

  it('a channel message wakes it; a message in a thread it muted (Low) does not reach it, and stays unread', async () => {
    const hub = await loop.open();
    await hub.agents.bot?.actor.createChannel({ name: 'noise' });
    await hub.human.subscribe('noise');
    await hub.agents.bot?.actor.mute('noise');
    const { events, model, done, agent } = await loop.start(() => ({ text: 'ok' }));
    const mark = events.mark();
    await hub.human.post({ thread: 'noise', text: 'muted chatter' });
    const general = await hub.human.post({ thread: 'general', text: 'channel news' });
    await events.next('turn-end', mark);
    expect(events.of('woke').map((e) => e.items.map((i) => [i.id, i.priority, i.reason]))).toEqual([[[general.id, 'normal', 'channel']]]);
    expect(model.doGenerateCalls).toHaveLength(1);
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('channel news');
    expect(prompt).not.toContain('muted chatter');
    agent.stop();
    await done;
    // The muted message is still there to read, at Low priority: nothing took it.
    const low = (await hub.agents.bot?.actor.peek())?.items.map((i) => [i.priority, i.event.content]);
    expect(low).toEqual([['low', 'muted chatter']]);
  });

  it('with wakeOn "addressed", channel messages do not wake it: only what is addressed to it is given', async () => {
    const hub = await loop.open();
    await hub.agents.bot?.actor.updateProfile({ wakeOn: 'addressed' });
    const { events, model, agent, done } = await loop.start(() => ({ text: 'ok' }));
    const mark = events.mark();
    await hub.human.post({ thread: 'general', text: 'talk among ourselves' });
    const mention = await hub.human.post({ thread: 'general', text: '@bot can you look?' });
    await events.next('turn-end', mark);
    expect(events.of('woke').map((e) => e.items.map((i) => [i.id, i.priority]))).toEqual([[[mention.id, 'high']]]);
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('can you look?');
    expect(prompt).not.toContain('talk among ourselves');
    agent.stop();
    await done;
  });

  it('gives a turn its items by priority: DMs, requests and mentions before channel messages, each oldest first', async () => {
    const hub = await loop.open();
    await hub.human.post({ thread: 'general', text: 'first, in the channel' });
    await hub.human.dm({ to: 'bot', text: 'second, a DM' });
    await hub.human.post({ thread: 'general', text: 'third, in the channel' });
    const { events, model, agent, done } = await loop.start(() => ({ text: 'ok' }));
    await events.next('turn-end');
    const last = model.doGenerateCalls[0]?.prompt.at(-1);
    const text = last?.role === 'user' && last.content[0]?.type === 'text' ? last.content[0].text : '';
    const order = ['second, a DM', 'first, in the channel', 'third, in the channel'].map((t) => text.indexOf(t));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    agent.stop();
    await done;
  });

  it('answers a request with request_respond, using the request_id it was given', async () => {
    const { hub, events, model, agent, done } = await loop.start((call) => {
      const id = /request_id (\w+)/.exec(call.last)?.[1];
      if (call.n === 0 && id) return { calls: [{ tool: 'request_respond', input: { request_id: id, status: 'Completed', result: { approved: true }, text: 'looks good' } }] };
      return { text: 'done' };
    });
    const mark = events.mark();
    const sent = await hub.human.request({ to: 'bot', intent: 'review', text: 'please review the plan' });
    await events.next('turn-end', mark);
    expect(model.doGenerateCalls).toHaveLength(2);
    expect((await hub.human.openRequests()).outgoing).toEqual([]);
    const answer = (await hub.human.inbox()).items.find((i) => i.event.type === 'response');
    expect(answer?.event.content).toMatchObject({ request_id: sent.request_id, status: 'Completed', result: { approved: true }, text: 'looks good' });
    agent.stop();
    await done;
  });

  it('a participant without chat still wakes on a request and answers it, with no chat tools and no chat addendum', async () => {
    const hub = await loop.open({ config: { chat: { enabled: false } } });
    const { events, model, agent, done } = await loop.start((call) => {
      const id = /request_id (\w+)/.exec(call.last)?.[1];
      return call.n === 0 && id ? { calls: [{ tool: 'request_respond', input: { request_id: id, status: 'Rejected', text: 'not mine' } }] } : { text: 'done' };
    });
    const mark = events.mark();
    await hub.human.request({ to: 'bot', intent: 'deploy' });
    await events.next('turn-end', mark);
    expect((model.doGenerateCalls[0]?.tools ?? []).map((t) => t.name).filter((n) => n.startsWith('chat_'))).toEqual([]);
    expect(JSON.stringify(model.doGenerateCalls[0]?.prompt)).not.toContain('You are @bot in Parley');
    expect((await hub.human.openRequests()).outgoing).toEqual([]);
    agent.stop();
    await done;
  });

  it('presence follows the loop: thinking while the model runs, listening while it waits, offline once stopped', async () => {
    let seen: string | undefined;
    const stateOf = async (h: AgentHub) => (await h.human.who()).find((p) => p.handle === 'bot')?.state;
    const hub = await loop.open();
    const theHub = hub;
    const { events, agent, done } = await loop.start(async () => {
      seen = await stateOf(theHub);
      return { text: 'ok' };
    });
    expect(await stateOf(theHub)).toBe('listening');
    const mark = events.mark();
    await theHub.human.dm({ to: 'bot', text: 'are you there?' });
    await events.next('waiting', mark);
    expect(seen).toBe('thinking');
    expect(await stateOf(theHub)).toBe('listening');
    agent.stop();
    expect((await done).reason).toBe('stopped');
    expect(await stateOf(theHub)).toBe('offline');
  });

  it('a failed model call takes nothing: the DM stays pending and is given again to the next call', async () => {
    const { hub, events, model, agent, done, lines } = await loop.start((call) => (call.n === 0 ? { error: 'provider overloaded' } : { text: 'second try worked' }));
    const mark = events.mark();
    const dm = await hub.human.dm({ to: 'bot', text: 'do not lose me' });
    const error = await events.next('error', mark);
    expect(error).toMatchObject({ consecutive: 1 });
    expect(error.error.message).toBe('provider overloaded');
    await events.next('turn-end', mark);
    expect(model.doGenerateCalls).toHaveLength(2);
    for (const call of model.doGenerateCalls) expect(JSON.stringify(call.prompt)).toContain('do not lose me');
    expect(events.of('turn-start').map((e) => e.turn)).toEqual([1, 1]);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'injected']]);
    expect(lines.some((l) => l.includes('provider overloaded (1 of 3 failures in a row)'))).toBe(true);
    agent.stop();
    expect(await done).toMatchObject({ reason: 'stopped', turns: 1 });
  });

  it('a hub whose longest wait is shorter than waitMs: the loop waits that long instead of failing every wait, and still wakes on a DM', async () => {
    const hub = await loop.open({ config: { inbox: { maxWaitTimeoutMs: 1000, waitTimeoutMs: 500 } } });
    const events = new EventLog();
    const lines: string[] = [];
    const agent = createAgent({ ...hubOptionsFor(hub), model: scriptedModel(() => ({ text: 'ok' })), waitMs: 5000, onEvent: events.push, log: (line) => lines.push(line) });
    const done = loop.run(agent);
    const first = await events.next('waiting');
    expect(first.timeoutMs).toBe(5000);
    const second = await Promise.race([events.next('waiting', events.events.indexOf(first) + 1), done.then((r) => Promise.reject(new Error(`ended: ${r.message}`)))]);
    expect(second.timeoutMs).toBe(1000);
    expect(events.of('error')).toEqual([]);
    expect(lines.some((l) => l.includes('the hub waits at most 1000 ms'))).toBe(true);
    const mark = events.mark();
    await hub.human.dm({ to: 'bot', text: 'still there?' });
    await events.next('turn-end', mark);
    agent.stop();
    expect((await done).reason).toBe('stopped');
  });

  it('stop() during a model call aborts it and takes nothing: the DM stays pending', async () => {
    let inCall!: () => void;
    const called = new Promise<void>((resolve) => (inCall = resolve));
    const { hub, agent, done } = await loop.start(
      (call) =>
        new Promise<Reply>((_, reject) => {
          inCall();
          call.options.abortSignal?.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const dm = await hub.human.dm({ to: 'bot', text: 'long question' });
    await called;
    agent.stop();
    expect(await done).toMatchObject({ reason: 'stopped', message: 'Stopped during a model call; what it was given comes again.', turns: 0 });
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'pending']]);
  });

  it('model calls that keep failing stop the loop with reason "error", leaving the item pending on the hub', async () => {
    const { hub, events, done } = await loop.start(() => ({ error: 'invalid api key' }));
    const dm = await hub.human.dm({ to: 'bot', text: 'hello?' });
    const result = await done;
    expect(result).toMatchObject({ reason: 'error', turns: 0, usage: { totalTokens: 0 } });
    expect(result.message).toBe('3 model calls or hub reads failed in a row; the last: invalid api key');
    expect(events.of('error').map((e) => e.consecutive)).toEqual([1, 2, 3]);
    expect((await hub.human.sentDeliveries()).map((d) => [d.id, d.state])).toEqual([[dm.id, 'pending']]);
    expect(events.of('stopped')).toHaveLength(1);
  });
});
