import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { Actor } from '../hub/actor.js';
import type { Hub } from '../hub/hub.js';
import type { Logger } from '../util/logger.js';
import { readBodyText } from '../http/body.js';
import { nodeBindings } from '../http/node-bindings.js';
import { SessionEventStore } from './event-store.js';
import { humanHandles } from './instructions.js';
import { createMcpServer } from './server.js';

/**
 * MCP over Streamable HTTP at /mcp. Each MCP session is one participant's
 * connection: its own server (and loaded rooms) and transport, created by an
 * initialize request and named by the Mcp-Session-Id header after that.
 * Every request is authenticated again (a rotated token stops a session), and
 * a session answers only the participant that opened it. Responses are plain
 * JSON (cheaper than an SSE stream per call); notifications such as
 * tools/list_changed travel on the session's GET stream, resumable with
 * Last-Event-ID. Idle sessions are closed, and the least recently used one
 * when there are too many.
 */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  participantId: string;
  lastUsed: number;
}

const SWEEP_MS = 60_000;

export class McpHttpSessions {
  /** In least-recently-used order: a used session is moved to the end. */
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;

  constructor(
    private readonly hub: Hub,
    private readonly logger: Logger,
  ) {
    this.#sweep = setInterval(() => this.#closeIdle(), SWEEP_MS);
    this.#sweep.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  async handle(c: Context, actor: Actor): Promise<Response> {
    const sessionId = c.req.header('mcp-session-id');
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      try {
        parsedBody = JSON.parse(await readBodyText(c));
      } catch (error) {
        if ((error as { code?: string }).code) throw error;
        return rpcError(400, -32700, 'Parse error: the body is not valid JSON.');
      }
    }
    const request = webRequest(c);
    if (sessionId !== undefined) {
      const session = this.#sessions.get(sessionId);
      if (!session || session.participantId !== actor.participant.id) {
        return rpcError(404, -32001, 'Session not found: it was closed or never existed; initialize a new one.');
      }
      this.#touch(sessionId, session);
      return session.transport.handleRequest(request, { parsedBody });
    }
    if (c.req.method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return rpcError(400, -32000, 'Bad Request: send an initialize request first, then the Mcp-Session-Id it returns on every request.');
    }
    return this.#open(c, actor, request, parsedBody);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.transport.close().catch(() => undefined)));
  }

  async #open(c: Context, actor: Actor, request: Request, body: unknown): Promise<Response> {
    const config = this.hub.config;
    while (this.#sessions.size >= config.mcp.maxSessions) {
      const [oldestId, oldest] = this.#sessions.entries().next().value as [string, Session];
      this.#sessions.delete(oldestId);
      await oldest.transport.close().catch(() => undefined);
    }
    const participant = actor.participant;
    const humans = await humanHandles(actor);
    const rooms = roomsQuery(c.req.query('rooms'));
    const { server } = createMcpServer({
      api: actor,
      config,
      participant,
      session: actor.session.name,
      humans,
      logger: this.logger,
      ...(rooms ? { rooms } : {}),
    });
    const session: Session = { transport: undefined as never, server, participantId: participant.id, lastUsed: Date.now() };
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      eventStore: new SessionEventStore(),
      onsessioninitialized: (id) => {
        this.#sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    await server.connect(session.transport);
    return session.transport.handleRequest(request, { parsedBody: body });
  }

  #touch(id: string, session: Session): void {
    session.lastUsed = Date.now();
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
  }

  #closeIdle(): void {
    const cutoff = Date.now() - this.hub.config.mcp.sessionIdleMs;
    for (const [id, session] of this.#sessions) {
      if (session.lastUsed >= cutoff) break;
      this.#sessions.delete(id);
      void session.transport.close().catch(() => undefined);
    }
  }
}

/** `?rooms=chat,meeting` or `?rooms=all` on the initialize request: the rooms this connection starts with. */
function roomsQuery(value: string | undefined): string[] | 'all' | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (value.trim() === 'all') return 'all';
  return value.split(',').map((room) => room.trim()).filter(Boolean);
}

/** The request as the SDK's web-standard transport reads it: method, URL and headers (the body is passed parsed). */
function webRequest(c: Context): Request {
  const { incoming, outgoing } = nodeBindings(c);
  if (!incoming || !outgoing) return new Request(c.req.url, { method: c.req.method, headers: c.req.raw.headers });
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  // The response closing (finished, or the client gone) ends what the transport streams.
  const controller = new AbortController();
  outgoing.once('close', () => controller.abort());
  return new Request(c.req.url, { method: c.req.method, headers, signal: controller.signal });
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
