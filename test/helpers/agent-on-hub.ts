import { afterEach } from 'vitest';
import { createAgent, type Agent, type AgentResult } from '../../src/agent/index.js';
import type { HubOptions } from '../../src/hub/hub.js';
import { openAgentHub, type AgentHub } from './agent-hub.js';
import { EventLog, hubOptionsFor, scriptedModel, type Call, type Reply } from './agent-loop.js';

/**
 * The agent-loop tests' set-up: a test hub (@human, @bot) per test, @bot's
 * loop on it with a scripted model, and the end of both after each test —
 * every loop stopped and its end awaited, then the hub closed — so no test
 * leaves a loop running into the next.
 */

/** A loop `start` ran: its hub, the agent, its events, its model, the lines it logged, and its end. */
export interface StartedLoop {
  hub: AgentHub;
  agent: Agent;
  events: EventLog;
  model: ReturnType<typeof scriptedModel>;
  lines: string[];
  done: Promise<AgentResult>;
}

export class AgentOnHub {
  #hub: AgentHub | undefined;
  readonly #running: Array<{ agent: Agent; done: Promise<AgentResult> }> = [];

  /** Opens this test's hub with these options (before `start`, to set the hub up first); `start` opens a default one when none is open. */
  async open(options: Partial<HubOptions> = {}): Promise<AgentHub> {
    this.#hub = await openAgentHub(['bot'], options);
    return this.#hub;
  }

  /**
   * Starts @bot's loop with a model answering by `script`, and `extra`
   * options; resolves once it waits on the hub, unless `waiting` is false
   * (a loop expected to stop before it ever waits).
   */
  async start(script: (call: Call) => Reply | Promise<Reply>, extra: Record<string, unknown> = {}, { waiting = true } = {}): Promise<StartedLoop> {
    const hub = this.#hub ?? (await this.open());
    const events = new EventLog();
    const model = scriptedModel(script);
    const lines: string[] = [];
    const agent = createAgent({ ...hubOptionsFor(hub), model, onEvent: events.push, log: (line) => lines.push(line), ...extra });
    const done = this.run(agent);
    if (waiting) await events.next('waiting');
    return { hub, agent, events, model, lines, done };
  }

  /** Runs an agent made by the test itself, stopped with the others at the end of the test. */
  run(agent: Agent): Promise<AgentResult> {
    const done = agent.run();
    this.#running.push({ agent, done });
    return done;
  }

  /** Stops every loop, waits for each to end, and closes the hub. */
  async end(): Promise<void> {
    for (const { agent } of this.#running) agent.stop();
    for (const { done } of this.#running.splice(0)) await done;
    await this.#hub?.close();
    this.#hub = undefined;
  }
}

/** An AgentOnHub for the tests of this file, ended after each test. */
export function agentOnHub(): AgentOnHub {
  const fixture = new AgentOnHub();
  afterEach(() => fixture.end());
  return fixture;
}
