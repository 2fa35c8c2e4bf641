import type { Context } from 'hono';
import type { Actor, Credential, Hub } from '../hub/index.js';
import type { Logger } from '../util/logger.js';
import type { McpHttpSessions } from './http.js';

/**
 * The MCP sessions served at /mcp, loaded with the MCP SDK and the tools at
 * the first MCP request over HTTP. They are about a tenth of a second of a
 * hub's start, and a hub that no agent reaches over HTTP (agents on stdio
 * come through the local socket) never needs them.
 */
export class LazyMcpSessions {
  #loading: Promise<McpHttpSessions> | undefined;
  #loaded: McpHttpSessions | undefined;
  #closed = false;

  constructor(
    private readonly hub: Hub,
    private readonly logger: Logger,
  ) {}

  /** Sessions held (none before the first MCP request). */
  get size(): number {
    return this.#loaded?.size ?? 0;
  }

  stats(): { sessions: number; heldJsonResponses: number } {
    return this.#loaded?.stats() ?? { sessions: 0, heldJsonResponses: 0 };
  }

  async handle(c: Context, actor: Actor, credential?: Credential): Promise<Response> {
    if (this.#closed) return shuttingDown();
    const sessions = await this.#load();
    // Closed while the SDK was loading: no session may open after closeAll.
    if (this.#closed) return shuttingDown();
    return sessions.handle(c, actor, credential);
  }

  /** Ends every session, and refuses those asked for afterwards. */
  async closeAll(): Promise<void> {
    this.#closed = true;
    const sessions = await this.#loading;
    await sessions?.closeAll();
  }

  #load(): Promise<McpHttpSessions> {
    this.#loading ??= import('./http.js').then(({ McpHttpSessions }) => {
      this.#loaded = new McpHttpSessions(this.hub, this.logger);
      return this.#loaded;
    });
    return this.#loading;
  }
}

function shuttingDown(): Response {
  const body = { jsonrpc: '2.0', error: { code: -32000, message: 'The hub is shutting down; reconnect to the running hub.' }, id: null };
  return new Response(JSON.stringify(body), { status: 503, headers: { 'content-type': 'application/json' } });
}
