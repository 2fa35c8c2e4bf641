/**
 * MCP over Streamable HTTP at /mcp. Each MCP session is one participant's
 * connection: its own server (and loaded rooms) and transport, created by an
 * initialize request and named by the Mcp-Session-Id header after that.
 * Every request is authenticated again (a rotated token stops a session), and
 * a session answers only the participant that opened it. Responses are plain
 * JSON (cheaper than an SSE stream per call); notifications such as
 * tools/list_changed travel on the session's GET stream, resumable with
 * Last-Event-ID. Idle sessions are closed; sessions are capped per token, per
 * participant and in all; revoking the token a session was opened with closes it.
 * An open session keeps its participant present; however it closes, that ends.
 */

import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { Actor, Credential, Hub } from '../hub/index.js';
import { inBackground } from '../util/background.js';
import type { Logger } from '../util/logger.js';
import { isJsonContentType, readBodyText } from '../request/body.js';
import { nodeBindings } from '../request/node-bindings.js';
import { transportRequest } from './node-request.js';
import { SessionEventStore } from './event-store.js';
import { heldJsonResponses, releaseFinishedJsonResponses } from './json-response-release.js';
import { humanHandles } from './instructions.js';
import { createMcpServer } from './server.js';

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  participantId: string;
  /** The token it was opened with (absent for the password): revoking it closes the session. */
  credential?: Credential;
  lastUsed: number;
  /** Answers still owed to clients: settled with an error if the session closes first. */
  pending: Set<(response: Response) => void>;
  detach: () => void;
  /** Ends the presence the session holds: the participant's last one closing makes it offline and leaves its meetings. */
  release: () => void;
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

  /** Sessions held, and the response streams their transports still hold (0 between calls: see json-response-release). */
  stats(): { sessions: number; heldJsonResponses: number } {
    let held = 0;
    for (const session of this.#sessions.values()) held += heldJsonResponses(session.transport);
    return { sessions: this.#sessions.size, heldJsonResponses: held };
  }

  async handle(c: Context, actor: Actor, credential?: Credential): Promise<Response> {
    const sessionId = c.req.header('mcp-session-id');
    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      if (!isJsonContentType(c.req.header('content-type'))) {
        return rpcError(415, -32000, 'Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json.');
      }
      try {
        parsedBody = JSON.parse(await readBodyText(c));
      } catch (error) {
        if ((error as { code?: string }).code) throw error;
        return rpcError(400, -32700, 'Parse error: the body is not valid JSON.');
      }
      const refused = this.#checkBatch(parsedBody);
      if (refused) return refused;
    }
    const request = webRequest(c);
    if (sessionId !== undefined) {
      const session = this.#sessions.get(sessionId);
      if (!session || session.participantId !== actor.participant.id) {
        return rpcError(404, -32001, 'Session not found: it was closed or never existed; initialize a new one.');
      }
      this.#touch(session);
      return this.#answer(session, request, parsedBody);
    }
    if (c.req.method !== 'POST' || !isInitializeRequest(parsedBody)) {
      return rpcError(400, -32000, 'Bad Request: send an initialize request first, then the Mcp-Session-Id it returns on every request.');
    }
    return this.#open(c, actor, credential, request, parsedBody);
  }

  async closeAll(): Promise<void> {
    clearInterval(this.#sweep);
    const sessions = [...this.#sessions.values()];
    await Promise.all(sessions.map((s) => this.#close(s, 503, 'The hub is shutting down.')));
  }

  /**
   * JSON-RPC batches are bounded, so one request cannot make the hub do
   * unbounded work or build an unbounded answer.
   */
  #checkBatch(body: unknown): Response | undefined {
    if (!Array.isArray(body)) return undefined;
    const limit = this.hub.config.mcp.maxBatchSize;
    if (body.length === 0) return rpcError(400, -32600, 'Invalid Request: the batch is empty; send at least one message.');
    if (body.length > limit) {
      return rpcError(400, -32600, `Invalid Request: a batch of ${body.length} messages is over the hub's limit of ${limit} (mcp.maxBatchSize); send them in smaller batches or one at a time.`);
    }
    return undefined;
  }

  async #open(c: Context, actor: Actor, credential: Credential | undefined, request: Request, body: unknown): Promise<Response> {
    const config = this.hub.config;
    const participant = actor.participant;
    const humans = await humanHandles(actor);
    const rooms = roomsQuery(c.req.query('rooms'));
    const { server } = createMcpServer({
      api: actor,
      config,
      participant,
      session: actor.session.name,
      humans,
      access: () => actor.access,
      onAccessChange: (listener) => actor.onAccessChange(listener),
      logger: this.logger,
      ...(rooms ? { rooms } : {}),
    });
    // The id is made here so the session counts toward the caps before any await lets another open run.
    const id = randomUUID();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: true,
      eventStore: new SessionEventStore(),
      onsessionclosed: () => inBackground(this.#close(session, 404, 'The session was closed.'), this.logger, 'closing the MCP session its client closed'),
    });
    releaseFinishedJsonResponses(transport);
    const session: Session = {
      id,
      transport,
      server,
      participantId: participant.id,
      lastUsed: Date.now(),
      pending: new Set(),
      detach: () => undefined,
      release: () => undefined,
      ...(credential ? { credential } : {}),
    };
    this.#makeRoomFor(session);
    this.#sessions.set(id, session);
    session.release = actor.holdPresence('mcp');
    if (credential) {
      const onRevoked = (): void =>
        inBackground(
          this.#close(session, 401, 'The token this MCP session was opened with has been revoked; connect again with a valid token.'),
          this.logger,
          'closing an MCP session whose token was revoked',
        );
      credential.revoked.addEventListener('abort', onRevoked, { once: true });
      session.detach = () => credential.revoked.removeEventListener('abort', onRevoked);
      if (credential.revoked.aborted) onRevoked();
    }
    await server.connect(transport);
    const response = await this.#answer(session, request, body);
    // An initialize the transport refused opened nothing.
    if (transport.sessionId === undefined) await this.#close(session, 404, 'The session was never opened.');
    return response;
  }

  /** The transport's answer, or an error if the session is closed before it comes. */
  #answer(session: Session, request: Request, parsedBody: unknown): Promise<Response> {
    // A DELETE is the client closing the session itself: the transport answers it as it closes.
    if (request.method === 'DELETE') return session.transport.handleRequest(request, { parsedBody });
    return new Promise<Response>((resolve, reject) => {
      session.pending.add(resolve);
      session.transport.handleRequest(request, { parsedBody }).then(resolve, reject).finally(() => session.pending.delete(resolve));
    });
  }

  /**
   * Caps: per token, per participant, and in all. Whoever goes over a cap
   * loses their own least recently used session, so one participant opening
   * sessions in a loop never closes another's.
   */
  #makeRoomFor(incoming: Session): void {
    const { maxSessions, maxSessionsPerParticipant, maxSessionsPerToken } = this.hub.config.mcp;
    const credentialId = incoming.credential?.id;
    if (credentialId !== undefined) {
      this.#evictOldest((s) => s.credential?.id === credentialId, maxSessionsPerToken - 1, 'its token opened too many sessions (mcp.maxSessionsPerToken)');
    }
    this.#evictOldest((s) => s.participantId === incoming.participantId, maxSessionsPerParticipant - 1, 'its participant opened too many sessions (mcp.maxSessionsPerParticipant)');
    while (this.#sessions.size >= maxSessions) {
      const heaviest = this.#heaviestParticipant();
      this.#evictOldest((s) => s.participantId === heaviest, this.#countOf(heaviest) - 1, 'the hub holds its most sessions (mcp.maxSessions)');
    }
  }

  #evictOldest(matches: (session: Session) => boolean, keep: number, why: string): void {
    const mine = [...this.#sessions.values()].filter(matches);
    for (const session of mine.slice(0, Math.max(0, mine.length - keep))) {
      this.logger.info('MCP session closed to make room', { session: session.id, reason: why });
      inBackground(this.#close(session, 404, `Session closed: ${why}; initialize a new one.`), this.logger, 'closing an MCP session to make room');
    }
  }

  #heaviestParticipant(): string {
    const counts = new Map<string, number>();
    for (const s of this.#sessions.values()) counts.set(s.participantId, (counts.get(s.participantId) ?? 0) + 1);
    let heaviest = '';
    let most = -1;
    for (const [id, n] of counts) if (n > most) [heaviest, most] = [id, n];
    return heaviest;
  }

  #countOf(participantId: string): number {
    let n = 0;
    for (const s of this.#sessions.values()) if (s.participantId === participantId) n++;
    return n;
  }

  async #close(session: Session, status: number, reason: string): Promise<void> {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
    session.detach();
    session.detach = () => undefined;
    session.release();
    const owed = [...session.pending];
    session.pending.clear();
    for (const resolve of owed) resolve(rpcError(status, -32001, reason));
    try {
      await session.transport.close();
    } catch {
      // Already gone from the hub's sessions: nothing is left to undo.
    }
  }

  #touch(session: Session): void {
    session.lastUsed = Date.now();
    this.#sessions.delete(session.id);
    this.#sessions.set(session.id, session);
  }

  #closeIdle(): void {
    const cutoff = Date.now() - this.hub.config.mcp.sessionIdleMs;
    for (const session of [...this.#sessions.values()]) {
      if (session.lastUsed >= cutoff) break;
      inBackground(this.#close(session, 404, 'The session was idle too long; initialize a new one.'), this.logger, 'closing an idle MCP session');
    }
  }
}

/** `?rooms=chat,meeting` or `?rooms=all` on the initialize request: the rooms this connection starts with. */
function roomsQuery(value: string | undefined): string[] | 'all' | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (value.trim() === 'all') return 'all';
  return value.split(',').map((room) => room.trim()).filter(Boolean);
}

/**
 * The request as the SDK's web-standard transport reads it: method, URL and headers (the body is passed parsed).
 * On the hub's Node server it is read straight off the IncomingMessage (see node-request.ts).
 */
function webRequest(c: Context): Request {
  const { incoming, outgoing } = nodeBindings(c);
  if (!incoming || !outgoing) return new Request(c.req.url, { method: c.req.method, headers: c.req.raw.headers });
  // The response closing (finished, or the client gone) ends what the transport streams.
  const request = transportRequest(incoming, c.req.url, (listener) => outgoing.once('close', listener));
  // The transport's declared parameter is a fetch Request; it reads only what TransportRequest has.
  return request as unknown as Request;
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
