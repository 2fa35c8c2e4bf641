import type { CoordinatorAgentConfig } from '../config/schema.js';

/**
 * The adapters come from config only (`coordinator.agents`): per participant
 * handle, the argv to run, with its working directory, timeout and extra
 * environment. Nothing here knows any particular agent CLI.
 */
export interface AdapterContext {
  url: string;
  token: string;
  handle: string;
  /** The thread to answer in (its id: a reference every Parley command takes). */
  thread: string;
  session: string;
  home: string;
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
 * The adapter's environment: the coordinator's own (without its PARLEY_*
 * settings), the adapter's `env`, then the participant's context, so that an
 * adapter like `claude -p` with Parley's MCP server acts as that participant
 * and no one else.
 */
export function adapterEnv(base: NodeJS.ProcessEnv, adapter: CoordinatorAgentConfig, context: AdapterContext): NodeJS.ProcessEnv {
  // None of the coordinator's own Parley settings leak in: the adapter is this participant, at this hub.
  const inherited = Object.fromEntries(Object.entries(base).filter(([key]) => !key.startsWith('PARLEY_')));
  return {
    ...inherited,
    ...adapter.env,
    PARLEY_URL: context.url,
    PARLEY_TOKEN: context.token,
    PARLEY_HANDLE: context.handle,
    PARLEY_THREAD: context.thread,
    PARLEY_SESSION: context.session,
    PARLEY_HOME: context.home,
    PARLEY_DEPTH: String(context.depth),
    ...(context.requestId === undefined ? {} : { PARLEY_REQUEST_ID: context.requestId }),
  };
}
