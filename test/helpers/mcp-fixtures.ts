import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Hub, HubOptions } from '../../src/hub/hub.js';
import { openTestHub, tempHome, type TestHub } from './hub.js';
import { connectHttp, connectInMemory, type McpTestClient } from './mcp.js';
import { joinOver, startServe, stopHubs, type RunningHub } from './serve.js';

/**
 * The MCP tests' set-ups, each with its end, so no client, hub or process
 * outlives its test: a hub in this process with in-memory SDK clients, fresh
 * for each test (mcpOnHub), and a `parley serve` process with SDK clients
 * over Streamable HTTP, one for the whole file (mcpServedHub).
 */

/** Closes the clients; a client whose connection already went has nothing left to close. */
async function closeAll(clients: McpTestClient[]): Promise<void> {
  for (const client of clients.splice(0)) {
    try {
      await client.close();
    } catch {
      // Already closed by the test (or its server gone): nothing is left to undo.
    }
  }
}

export class McpOnHub {
  #t: TestHub | undefined;
  readonly #clients: McpTestClient[] = [];

  /** Opens this test's hub (a real SQLite file in a temporary home). */
  async open(options: Partial<HubOptions> = {}): Promise<Hub> {
    this.#t = await openTestHub(options);
    return this.#t.hub;
  }

  /** The hub `open` opened. */
  get hub(): Hub {
    if (!this.#t) throw new Error('mcpOnHub: open() the hub first');
    return this.#t.hub;
  }

  /** Connects a participant's in-memory MCP client (closed at the end of the test). */
  async connect(handle: string, session: string, rooms?: string[] | 'all'): Promise<McpTestClient> {
    const client = await connectInMemory(this.hub, handle, session, rooms);
    this.#clients.push(client);
    return client;
  }

  /** Closes the clients, then the hub. */
  async end(): Promise<void> {
    await closeAll(this.#clients);
    await this.#t?.close();
    this.#t = undefined;
  }
}

/** An McpOnHub for the tests of this file, ended after each test. */
export function mcpOnHub(): McpOnHub {
  const fixture = new McpOnHub();
  afterEach(() => fixture.end());
  return fixture;
}

/** Who joins a served hub before the tests: a handle, its session, its profile. */
export interface ServedParticipant {
  handle: string;
  session: string;
  profile?: Record<string, unknown>;
}

export class McpServedHub {
  #hub: RunningHub | undefined;
  readonly tokens: Record<string, string> = {};
  readonly #clients: McpTestClient[] = [];

  /** The running hub (started before the file's tests). */
  get hub(): RunningHub {
    if (!this.#hub) throw new Error('mcpServedHub: the hub has not started');
    return this.#hub;
  }

  /** Starts `parley serve` on `home` and joins the participants, keeping their tokens. */
  async start(home: string, people: ServedParticipant[], env: NodeJS.ProcessEnv = {}): Promise<void> {
    this.#hub = await startServe(home, { env });
    for (const { handle, session, profile } of people) this.tokens[handle] = await joinOver(this.#hub, { handle, session, ...(profile ? { profile } : {}) });
  }

  /** The token `handle` joined with. */
  token(handle: string): string {
    const token = this.tokens[handle];
    if (token === undefined) throw new Error(`mcpServedHub: ${handle} did not join`);
    return token;
  }

  /** Connects `handle`'s SDK client to /mcp over Streamable HTTP (`query`: `?rooms=…`), closed when the file's tests end. */
  async connect(handle: string, query = ''): Promise<McpTestClient> {
    return this.keep(await connectHttp(this.hub.url, this.token(handle), query));
  }

  /** Keeps a client the test connected itself, to close it with the others. */
  keep<C extends McpTestClient>(client: C): C {
    this.#clients.push(client);
    return client;
  }

  /** Closes the clients, stops the hub. */
  async end(): Promise<void> {
    await closeAll(this.#clients);
    await stopHubs();
  }
}

/**
 * A served hub for the tests of this file: started before them on a
 * temporary home that `prepare` may write to first (a config.json, say), with
 * `people` joined; stopped after them, its home removed.
 */
export function mcpServedHub(people: ServedParticipant[], prepare: (home: string) => void = () => undefined, env: NodeJS.ProcessEnv = {}): McpServedHub {
  const served = new McpServedHub();
  let cleanup: () => void = () => undefined;
  beforeAll(async () => {
    const made = tempHome();
    cleanup = made.cleanup;
    prepare(made.home);
    await served.start(made.home, people, env);
  }, 30_000);
  afterAll(async () => {
    await served.end();
    cleanup();
  });
  return served;
}
