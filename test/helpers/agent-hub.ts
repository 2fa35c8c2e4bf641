import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import type { Actor } from '../../src/hub/actor.js';
import type { HubOptions } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { closeServed, openTestHub, type TestHub } from './hub.js';

/**
 * A real hub on a real SQLite file, served over loopback HTTP in this
 * process, with a human and the given agents joined: what the LLM middleware
 * and the agent loop reach with a URL and a token.
 */
export interface AgentHub {
  t: TestHub;
  url: string;
  human: Actor;
  /** Each agent's in-process view (to look at what it sent or was given) and its bearer token. */
  agents: Record<string, { actor: Actor; token: string }>;
  close(): Promise<void>;
}

export async function openAgentHub(handles: string[], options: Partial<HubOptions> = {}): Promise<AgentHub> {
  const t = await openTestHub(options);
  let server: HttpServer | undefined;
  try {
    server = await startHttpServer({ hub: t.hub, host: '127.0.0.1', port: 0, logger: createSilentLogger() });
    const human = await t.hub.join({ handle: 'human', profile: { kind: 'human' } });
    const agents: AgentHub['agents'] = {};
    for (const handle of handles) {
      const actor = await t.hub.join({ handle, profile: { kind: 'agent' } });
      agents[handle] = { actor, token: await t.hub.issueToken(handle) };
    }
    const served = server;
    return { t, url: served.url, human, agents, close: () => closeServed(t, served) };
  } catch (error) {
    await closeServed(t, server);
    throw error;
  }
}
