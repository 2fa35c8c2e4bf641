/**
 * Linking the agent loop to its hub: at start, and again after the hub went
 * away (stopped, restarted on another port, the token refused). A hub away
 * is no failure: the loop pauses, backing off, and links again as it first
 * did (the home's hub.lock.json says where the hub now serves).
 */

import { AGENT_HUB_RETRY_FIRST_MS, AGENT_HUB_RETRY_MAX_MS } from '../config/defaults.js';
import type { HubConnection } from '../client/hub-connection.js';
import { linkToHub, type HubLink } from '../middleware/hub-link.js';
import type { AgentOptions } from './agent-options.js';
import { hubAway } from './hub-refusal.js';
import type { LoopParts, Stop } from './loop-parts.js';

/** A link to the hub and the connection that keeps the agent present there. */
export interface Linked {
  link: HubLink;
  connection: HubConnection;
}

/** Links to the hub and connects; a refused connection closes the link it came over. */
export async function linkAndConnect(options: AgentOptions): Promise<Linked> {
  const link = await linkToHub(options);
  const connection = await link.api.connect().catch((refusal: unknown) => {
    link.close();
    throw refusal;
  });
  return { link, connection };
}

/**
 * The hub is away (the old link already closed: its connection would knock
 * at the old address): after a pause that doubles from
 * AGENT_HUB_RETRY_FIRST_MS to AGENT_HUB_RETRY_MAX_MS (never past the time
 * budget; the loop's stop ends it), links as the loop first did and connects
 * anew. Ends with a stop when the loop is stopped or its budget is spent; a
 * failure other than the hub being away is thrown.
 */
export async function relinkAfter(parts: LoopParts, error: Error): Promise<{ stop: Stop } | Linked> {
  const { handle } = parts.options;
  let delay = AGENT_HUB_RETRY_FIRST_MS;
  for (let attempt = 1; ; attempt++) {
    const pause = Math.min(delay, parts.budget.remainingMs());
    parts.emit({ type: 'hub-away', error, attempt, retryInMs: pause });
    parts.log(`parley: agent @${handle}: the hub is away (${error.message}); linking again in ${pause} ms (try ${attempt}).`);
    await pauseUnlessStopped(pause, parts.stopping);
    if (parts.stopping.aborted) return { stop: { reason: 'stopped', message: 'Stopped while the hub was away.' } };
    const over = parts.budget.exceeded(true);
    if (over) return { stop: over };
    try {
      const linked = await linkAndConnect(parts.options);
      parts.emit({ type: 'hub-back', url: linked.link.api.url });
      parts.log(`parley: agent @${handle} is linked to the hub again at ${linked.link.api.url}.`);
      return linked;
    } catch (failure) {
      if (!hubAway(failure)) throw failure;
      error = failure;
      delay = Math.min(delay * 2, AGENT_HUB_RETRY_MAX_MS);
    }
  }
}

/** Resolves after `ms`, or at once when `stopping` aborts. */
function pauseUnlessStopped(ms: number, stopping: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stopping.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stopping.addEventListener('abort', done, { once: true });
  });
}
