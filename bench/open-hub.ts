import { openHub, type Hub, type HubOptions } from '../src/hub/hub.js';

/**
 * A hub for a benchmark, its search indexer started. A hub starts it a few
 * seconds after it opens (or at its 500th post, or its first search), which
 * would fall inside a measured window of posts: the figures measure a running
 * hub, as before the indexer started late, not its start.
 */
export async function openBenchHub(options: HubOptions): Promise<Hub> {
  const hub = await openHub(options);
  try {
    await hub.internals.ctx.search.started();
  } catch (error) {
    await hub.close();
    throw error;
  }
  return hub;
}
