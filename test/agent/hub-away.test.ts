import { afterEach, describe, expect, it } from 'vitest';
import { createAgent, type Agent, type AgentEvent, type AgentResult } from '../../src/agent/index.js';
import { registerParticipant } from '../../src/client/registration.js';
import { RestParticipant } from '../../src/client/rest-participant.js';
import { tempHome } from '../helpers/hub.js';
import { EventLog, said, scriptedModel, type Reply } from '../helpers/agent-loop.js';
import { startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/**
 * A loop given only its home, on a real `parley serve`: when the hub goes
 * away it is no model failure — the loop backs off and links again as it
 * first did, finding the hub where the home's lock file says it now serves;
 * stop() ends the back-off at once.
 */
const cleanups: Array<() => Promise<unknown> | unknown> = [];
let running: { agent: Agent; done: Promise<AgentResult> } | undefined;

const servedHomes: Array<() => void> = [];
afterEach(async () => {
  running?.agent.stop();
  await running?.done;
  running = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await stopHubs();
  // A served home goes last, once its hub is stopped: a running hub may still write there.
  for (const remove of servedHomes.splice(0)) remove();
});

/** A served home with @bot's token kept in it (as `parley join bot` leaves it), and @human's token. */
async function servedHome(): Promise<{ home: string; hub: RunningHub; humanToken: string }> {
  const { home, cleanup } = tempHome();
  servedHomes.push(cleanup);
  const hub = await startServe(home);
  await registerParticipant(hub.url, home, { handle: 'bot', profile: { kind: 'agent' } });
  const { token } = await registerParticipant(hub.url, home, { handle: 'human', profile: { kind: 'human' } });
  return { home, hub, humanToken: token };
}

function startAgent(home: string, script: () => Reply) {
  const events = new EventLog();
  const agent = createAgent({ handle: 'bot', home, model: scriptedModel(script), maxRetries: 0, onEvent: events.push, log: false });
  running = { agent, done: agent.run() };
  return { agent, events, done: running.done };
}

/** The event, or a failure saying how the loop ended first. */
function eventBeforeEnd<T>(event: Promise<T>, done: Promise<AgentResult>): Promise<T> {
  return Promise.race([event, done.then((r) => Promise.reject(new Error(`the loop ended first (${r.reason}): ${r.message}`)))]);
}

describe('the agent loop when the hub goes away', () => {
  it('backs off while the hub is down, links again to the hub restarted on the same home (another port), and answers a DM there', async () => {
    const first = await servedHome();
    let answered = false;
    const { events, agent, done } = startAgent(first.home, () => {
      if (answered) return { text: 'done' };
      answered = true;
      return { calls: [{ tool: 'chat_dm', input: { to: 'human', text: 'back again' } }] };
    });
    await eventBeforeEnd(events.next('waiting'), done);
    const mark = events.mark();
    await first.hub.stop();
    const away = await eventBeforeEnd(events.next('hub-away', mark), done);
    expect(away).toMatchObject({ attempt: 1, retryInMs: 500 });
    expect((away.error as { code?: string }).code).toMatch(/^(HUB_CLOSED|UNAUTHORIZED)$/);

    const second = await startServe(first.home);
    expect(second.url).not.toBe(first.hub.url);
    const back = await eventBeforeEnd(events.next('hub-back', mark), done);
    expect(back.url).toBe(second.url);
    // Away is no model failure, and each try waited longer than the one before.
    expect(events.of('error')).toEqual([]);
    const pauses = events.of('hub-away').map((e) => e.retryInMs);
    expect(pauses).toEqual(pauses.map((_, i) => Math.min(500 * 2 ** i, 10_000)));

    const human = new RestParticipant(second.url, first.humanToken);
    cleanups.push(() => human.close());
    const turn = events.mark();
    await human.dm({ to: 'bot', text: 'are you back?' });
    await eventBeforeEnd(events.next('turn-end', turn), done);
    expect(await said(human, '@bot')).toEqual(['human: are you back?', 'bot: back again']);
    agent.stop();
    expect((await done).reason).toBe('stopped');
  });

  it('stop() during the back-off ends the loop at once, with reason "stopped"', async () => {
    const { home, hub } = await servedHome();
    const { events, agent, done } = startAgent(home, () => ({ text: 'never' }));
    await eventBeforeEnd(events.next('waiting'), done);
    const mark = events.mark();
    await hub.stop();
    // The second pause (1 s): stopped well within it.
    const away = await eventBeforeEnd(
      events.next('hub-away', mark, (e) => e.attempt === 2),
      done,
    );
    expect(away.retryInMs).toBe(1000);
    const stoppedAt = Date.now();
    agent.stop();
    const result = await done;
    expect(result).toMatchObject({ reason: 'stopped', message: 'Stopped while the hub was away.', turns: 0 });
    expect(Date.now() - stoppedAt).toBeLessThan(away.retryInMs);
    expect(events.events.slice(mark).map((e: AgentEvent) => e.type)).toEqual(['hub-away', 'hub-away', 'stopped']);
  });
});
