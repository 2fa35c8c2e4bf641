/**
 * The adapters come from config only (`coordinator.agents`): per participant
 * handle, the argv to run, with its working directory, timeout and extra
 * environment. Nothing here knows any particular agent CLI.
 */

import path from 'node:path';
import type { CoordinatorAgentConfig } from '../config/schema.js';

export interface AdapterContext {
  url: string;
  /** The run's own token (revoked when the run ends). */
  token: string;
  handle: string;
  /** The thread to answer in (its id: a reference every Parley command takes). */
  thread: string;
  session: string;
  /** The loop depth the answer will carry. */
  depth: number;
  /** The request to respond to, when the run answers one. */
  requestId?: string;
}

export function adapterFor(agents: Record<string, CoordinatorAgentConfig>, handle: string): CoordinatorAgentConfig | undefined {
  const wanted = handle.toLowerCase();
  const key = Object.keys(agents).find((k) => k.toLowerCase() === wanted);
  return key === undefined ? undefined : agents[key];
}

export function adapterTimeoutMs(adapter: CoordinatorAgentConfig, defaultSeconds: number): number {
  return (adapter.timeoutSeconds ?? defaultSeconds) * 1000;
}

/**
 * The adapter's environment: the coordinator's own, the adapter's `env`, then
 * the participant's context for this run, so that an adapter like `claude -p`
 * with Parley's MCP server acts as that participant and no one else, with a
 * token that ends with the run. Nothing inherited leads to the home, which
 * holds every participant's token, the admin token and every private key:
 * neither the coordinator's PARLEY_* settings (its home, the hub password, a
 * token) nor any variable whose value is a path into the home.
 */
export function adapterEnv(base: NodeJS.ProcessEnv, adapter: CoordinatorAgentConfig, context: AdapterContext, home: string): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(base).filter(([key, value]) => !key.startsWith('PARLEY_') && !leadsInto(value, home)));
  return {
    ...inherited,
    ...adapter.env,
    PARLEY_URL: context.url,
    PARLEY_TOKEN: context.token,
    PARLEY_HANDLE: context.handle,
    PARLEY_THREAD: context.thread,
    PARLEY_SESSION: context.session,
    PARLEY_DEPTH: String(context.depth),
    ...(context.requestId === undefined ? {} : { PARLEY_REQUEST_ID: context.requestId }),
  };
}

/** Whether `value`, or one entry of it as a path list (PATH-like), is the home or a path inside it. */
function leadsInto(value: string | undefined, home: string): boolean {
  if (value === undefined) return false;
  const root = path.resolve(home);
  return value.split(path.delimiter).some((entry) => {
    if (!path.isAbsolute(entry)) return false;
    const resolved = path.resolve(entry);
    return resolved === root || resolved.startsWith(root + path.sep);
  });
}
