import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { tempHome } from './hub.js';
import { connectHttp, type McpTestClient } from './mcp.js';
import { startServe, type RunningHub } from './serve.js';
import { fileSnapshot } from './store-snapshot.js';

/**
 * `parley serve` processes on temporary homes, with their end registered
 * once: one process for a whole test file, or processes each test starts.
 * After them the MCP clients connected through `mcp` are closed, the hubs
 * killed and the homes removed.
 */
export interface ServeOptions {
  /** Written as the home's config.json before the hub starts. */
  config?: object;
  env?: NodeJS.ProcessEnv;
  args?: string[];
}

export interface ServedHub {
  readonly hub: RunningHub;
  readonly home: string;
  /** What the hub has stored, read from its database file: each table's row count and digest. */
  stored(): ReturnType<typeof fileSnapshot>;
  /** An official SDK client on the hub's /mcp with `token`, closed when the hub is stopped. */
  mcp(token: string, query?: string): Promise<McpTestClient>;
}

/** Ends what a test (or a file) started: MCP clients, hub processes, then homes. */
class Started {
  readonly #clients: McpTestClient[] = [];
  readonly #hubs: RunningHub[] = [];
  readonly #homes: Array<() => void> = [];

  home(prefix?: string): string {
    const made = tempHome(prefix);
    this.#homes.push(made.cleanup);
    return made.home;
  }

  async serve(home: string, options: ServeOptions): Promise<ServedHub> {
    if (options.config) fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify(options.config));
    const hub = await startServe(home, { ...(options.env ? { env: options.env } : {}), ...(options.args ? { args: options.args } : {}) });
    this.#hubs.push(hub);
    return {
      hub,
      home,
      stored: () => fileSnapshot(path.join(home, 'parley.db')),
      mcp: async (token, query = '') => {
        const client = await connectHttp(hub.url, token, query);
        this.#clients.push(client);
        return client;
      },
    };
  }

  async end(): Promise<void> {
    try {
      for (const client of this.#clients.splice(0)) await client.close();
    } finally {
      // A client that fails to close still leaves no process or home behind. Only these hubs:
      // a file's own hub outlives the hubs its tests start.
      for (const hub of this.#hubs.splice(0)) await hub.stop('SIGKILL');
      for (const cleanup of this.#homes.splice(0)) cleanup();
    }
  }
}

/** One hub process for the whole file: started before its first test, stopped after its last. */
export function servedHubForFile(options: ServeOptions = {}): ServedHub {
  const started = new Started();
  let served: ServedHub | undefined;
  beforeAll(async () => {
    served = await started.serve(started.home(), options);
  }, 30_000);
  afterAll(() => started.end());
  const current = (): ServedHub => {
    if (!served) throw new Error('the served hub starts in beforeAll; use it inside a hook or a test');
    return served;
  };
  return {
    get hub() {
      return current().hub;
    },
    get home() {
      return current().home;
    },
    stored: () => current().stored(),
    mcp: (token, query) => current().mcp(token, query),
  };
}

/** Hub processes each test starts: `home` makes a scratch home, `serve` starts a hub on one; all end after the test. */
export function servedHubsPerTest(): { home(prefix?: string): string; serve(home: string, options?: ServeOptions): Promise<ServedHub> } {
  const started = new Started();
  afterEach(() => started.end());
  return { home: (prefix) => started.home(prefix), serve: (home, options = {}) => started.serve(home, options) };
}
