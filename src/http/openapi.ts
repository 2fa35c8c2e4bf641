import { z } from 'zod';
import { HINTS } from '../errors/hints.js';
import { ControlInputSchema } from '../schema/control.js';
import {
  AckInputSchema,
  CloseSideInputSchema,
  CreateChannelInputSchema,
  DmInputSchema,
  EnvelopeInputSchema,
  InjectInputSchema,
  OpenSideInputSchema,
  PostInputSchema,
  PresenceInputSchema,
  RenameThreadInputSchema,
  RequestInputSchema,
  RespondInputSchema,
} from '../schema/inputs.js';
import { JoinInputSchema, SelfProfilePatchSchema } from '../schema/participant.js';
import { AgentHookInputSchema } from '../schema/agent-hook.js';
import { VERSION } from '../version.js';
import { HubProofBodySchema, LoginBodySchema, PeerAddBodySchema, PeerBlockBodySchema, MarkReadBodySchema, MeetingSayBodySchema, RevokeTokenBodySchema, RosterPushBodySchema, RotateTokenBodySchema, RunTokenBodySchema, SetAccessBodySchema, SubscriptionBodySchema, SwitchSessionBodySchema } from './schemas.js';

/**
 * A short OpenAPI 3.1 document of the REST API, generated from the same zod
 * schemas that validate the requests, so it cannot drift from them. Path
 * parameters are left out of the body schemas that the path supplies.
 */
interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  body?: z.ZodType;
  query?: string[];
  auth?: 'none' | 'admin' | 'participant';
}


export const ROUTES: readonly RouteDoc[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness and version', auth: 'none' },
  {
    method: 'post',
    path: '/hub-proof',
    summary: "The hub's public key and its Ed25519 signature over the Host asked at and the client's nonce: local clients check it against the key in the home's lock file before sending a credential",
    body: HubProofBodySchema,
    auth: 'none',
  },
  { method: 'get', path: '/', summary: 'The web page', auth: 'none' },
  { method: 'get', path: '/assets/*', summary: "The web page's built files", auth: 'none' },
  { method: 'get', path: '/api/v1/login', summary: "Whether password sign-in is on (passwordSet) and whether the request's sign-in cookie is valid (signedIn)", auth: 'none' },
  { method: 'post', path: '/api/v1/login', summary: 'Sign a human in with the hub password (sets a cookie); a handle no one has needs "create": true (else 404)', body: LoginBodySchema, auth: 'none' },
  { method: 'post', path: '/api/v1/login/session', summary: 'Move the signed-in human to another session (a new cookie)', body: SwitchSessionBodySchema },
  { method: 'post', path: '/api/v1/logout', summary: 'Sign out', auth: 'none' },
  { method: 'post', path: '/api/v1/participants', summary: 'Register (join) a participant and issue a token', body: JoinInputSchema, auth: 'admin' },
  { method: 'post', path: '/api/v1/participants/{handle}/tokens/rotate', summary: "Revoke a participant's tokens and issue one", body: RotateTokenBodySchema, auth: 'admin' },
  { method: 'post', path: '/api/v1/participants/{handle}/tokens/run', summary: 'Issue a token for one coordinated run (the coordinator kind: revoked at every hub start)', body: RunTokenBodySchema, auth: 'admin' },
  { method: 'post', path: '/api/v1/participants/tokens/revoke', summary: 'Revoke one token (what a coordinator minted, when it stops)', body: RevokeTokenBodySchema, auth: 'admin' },
  { method: 'put', path: '/api/v1/participants/{handle}/access', summary: "Local mode: set a participant's access (observer, member, operator, admin); an admin participant or the admin token", body: SetAccessBodySchema },
  { method: 'get', path: '/api/v1/hub', summary: 'The running hub: pid, uptime and who is connected (parley status)', auth: 'admin' },
  {
    method: 'get',
    path: '/api/v1/hub/config',
    summary: 'The settings the running hub uses (defaults, config file, PARLEY_* variables and flags, merged) and its pid, secrets left out: webui.passwordSet instead of the password, coordinator adapter env values as "[secret]" (parley doctor)',
    auth: 'admin',
  },
  {
    method: 'get',
    path: '/api/v1/hub/peers/self',
    summary: 'This hub as its peers know it: key, id, name, the addresses it listens on for peers (none without a peer listener) and the participants it hosts with their keys (parley peer self)',
    auth: 'admin',
  },
  {
    method: 'get',
    path: '/api/v1/hub/peers',
    summary: 'The hubs this one links to: key, id, name, addrs, state (connected, connecting, refused, offline), why, last seen, events queued, lag in seconds, drops by reason (parley peer list)',
    auth: 'admin',
  },
  { method: 'post', path: '/api/v1/hub/peers', summary: 'Keep a hub in the home and dial it now, by a multiaddr ending in its peer id (parley peer add); 201 when new', body: PeerAddBodySchema, auth: 'admin' },
  { method: 'delete', path: '/api/v1/hub/peers/{peer}', summary: 'Forget a kept hub, by its key or one address (URL-encoded), and close its links (parley peer remove)', auth: 'admin' },
  {
    method: 'post',
    path: '/api/v1/hub/peers/{peer}/block',
    summary: 'Cut the link to a hub of the roster, by its key, for `seconds` (default 600, at most 86400): hung up on, refused and not dialled until it runs out or is lifted; held in memory (parley peer block)',
    body: PeerBlockBodySchema,
    auth: 'admin',
  },
  { method: 'delete', path: '/api/v1/hub/peers/{peer}/block', summary: 'Lift a block; unblocked: false when the hub was not blocked (parley peer unblock)', auth: 'admin' },
  { method: 'get', path: '/api/v1/hub/roster', summary: "The roster in force (null: local mode), its file, and every participant's pubkey and access (parley roster)", auth: 'admin' },
  {
    method: 'post',
    path: '/api/v1/hub/roster',
    summary: 'Put a new roster version in force (signed by admins of the one in force, same org, higher version; else ROSTER_ROLLBACK, ROSTER_INVALID or BAD_SIGNATURE and nothing changes); the admin token or an admin participant, and only the admin token for a first roster (FORBIDDEN otherwise); a version that drops members holding live sessions needs confirm: true (ROSTER_UNCONFIRMED otherwise)',
    body: RosterPushBodySchema,
  },
  { method: 'post', path: '/mcp', summary: 'MCP Streamable HTTP: JSON-RPC requests (initialize first; then send its Mcp-Session-Id)' },
  { method: 'get', path: '/mcp', summary: "MCP Streamable HTTP: the session's notification stream (SSE; resumable with Last-Event-ID)" },
  { method: 'delete', path: '/mcp', summary: 'MCP Streamable HTTP: end the session' },
  { method: 'get', path: '/api/v1/openapi.json', summary: 'This document' },
  { method: 'get', path: '/api/v1/whoami', summary: 'The participant and session of the credentials, what wakes it (wakeOn), its access and how access is decided (trust)' },
  { method: 'get', path: '/api/v1/participants', summary: 'Participants of the session' },
  { method: 'get', path: '/api/v1/sessions', summary: 'The sessions the caller has joined (never those of others)' },
  { method: 'patch', path: '/api/v1/profile', summary: "Change the caller's own profile (the fields given; not its kind)", body: SelfProfilePatchSchema },
  { method: 'get', path: '/api/v1/threads', summary: 'Threads of the session with unread counts, and head: the newest seq (stream with since=head to miss nothing after the list)' },
  { method: 'post', path: '/api/v1/threads', summary: 'Create a channel', body: CreateChannelInputSchema },
  { method: 'get', path: '/api/v1/threads/{thread}', summary: "A thread's steering state (who set what) and its members" },
  { method: 'post', path: '/api/v1/threads/{thread}/read', summary: 'Mark the thread read up to a seq (moves the hub-kept cursor forward)', body: MarkReadBodySchema },
  { method: 'post', path: '/api/v1/threads/{thread}/rename', summary: 'Rename a thread', body: RenameThreadInputSchema.omit({ thread: true }) },
  { method: 'post', path: '/api/v1/threads/{thread}/side', summary: 'Open a side channel from a thread', body: OpenSideInputSchema.omit({ parent: true }) },
  { method: 'post', path: '/api/v1/threads/{thread}/close', summary: 'Close a side channel with a summary posted back', body: CloseSideInputSchema.omit({ thread: true }) },
  { method: 'put', path: '/api/v1/threads/{thread}/subscription', summary: 'Subscribe, mute or unsubscribe', body: SubscriptionBodySchema },
  { method: 'post', path: '/api/v1/threads/{thread}/messages', summary: 'Post a message', body: PostInputSchema.omit({ thread: true }) },
  { method: 'get', path: '/api/v1/threads/{thread}/new', summary: 'Events since the hub-kept cursor (advances it)', query: ['limit'] },
  { method: 'get', path: '/api/v1/threads/{thread}/history', summary: 'A page of the log by seq', query: ['before', 'after', 'limit'] },
  { method: 'get', path: '/api/v1/threads/{thread}/export', summary: 'The whole thread as Markdown or JSON Lines', query: ['format'] },
  { method: 'post', path: '/api/v1/threads/{thread}/controls', summary: 'A steering control (mute, pause, prod, invite, …)', body: ControlInputSchema },
  { method: 'post', path: '/api/v1/dm', summary: 'Send a direct message', body: DmInputSchema },
  { method: 'post', path: '/api/v1/envelopes', summary: 'Hand in a message signed with your own key (stored as signed, or refused)', body: EnvelopeInputSchema },
  { method: 'get', path: '/api/v1/search', summary: 'Full-text search in the session', query: ['q', 'thread', 'limit'] },
  { method: 'get', path: '/api/v1/inbox', summary: 'What needs attention, by priority; marks what it returns read (peek=true looks without marking)', query: ['peek', 'limit'] },
  { method: 'post', path: '/api/v1/inbox/ack', summary: 'Acknowledge targeted items', body: AckInputSchema },
  {
    method: 'get',
    path: '/api/v1/inbox/wait',
    summary: 'Long-poll until a waking item or the bounded timeout; marks what it returns read (peek=true returns the inbox without marking)',
    query: ['timeout_ms', 'limit', 'peek'],
  },
  {
    method: 'post',
    path: '/api/v1/inbox/inject',
    summary:
      'For a client hook or the LLM middleware: the new waking (high and normal) items no read has given the caller yet, each once, oldest first, as {items:[{id,seq,ts,priority,reason,thread,with?,from,type?,text,respond?}],more?,head}; targeted ones become injected. peek:true marks nothing; take:[seq…] (a peek\'s items) takes exactly those and answers the ones it took',
    body: InjectInputSchema,
  },
  {
    method: 'get',
    path: '/api/v1/deliveries',
    summary: "The caller's targeted items by delivery state (pending, delivered, injected, acknowledged, unacknowledged, all), optionally only those in it for at least older_than_ms",
    query: ['state', 'older_than_ms', 'limit'],
  },
  {
    method: 'get',
    path: '/api/v1/deliveries/sent',
    summary: 'Per-recipient delivery state and times of what the caller sent (state defaults to all), newest first',
    query: ['state', 'older_than_ms', 'limit'],
  },
  {
    method: 'post',
    path: '/api/v1/agent/hook',
    summary:
      "What an agent CLI's hook (parley hook) calls once per run: event tool or prompt shows the agent thinking; the new waking items, each once (injected), come back as {injected,text?} with text a short context within 10,000 characters; at stop, new items (or, for a handle in agents.stayAvailable, one arriving within agents.stayAvailableSeconds while it shows listening) come back with block:true, at most agents.maxStopContinuations times in a row per client session (counted again once a stop is let through, or at session-start or session-end); a stop with wait:false (inside a coordinator run) neither waits nor blocks; session-end shows it offline unless a live connection holds it",
    body: AgentHookInputSchema,
  },
  { method: 'get', path: '/api/v1/stream', summary: 'Live events as Server-Sent Events (id = seq; resume with Last-Event-ID)', query: ['since', 'thread', 'inbox', 'events_only'] },
  { method: 'post', path: '/api/v1/requests', summary: 'Send a request', body: RequestInputSchema },
  { method: 'post', path: '/api/v1/requests/{id}/responses', summary: 'Respond to a request ({id}: its id, or an unambiguous start or end of it)', body: RespondInputSchema.omit({ request_id: true }) },
  { method: 'get', path: '/api/v1/requests/open', summary: 'Open requests, both directions' },
  { method: 'put', path: '/api/v1/presence', summary: 'Set presence', body: PresenceInputSchema },
  { method: 'get', path: '/api/v1/presence', summary: 'Presence of the session: connected, waiting or offline, and the declared state' },
  { method: 'get', path: '/api/v1/linked-hubs', summary: 'The hubs this one links to: name, key, id, state (connected, connecting, refused, offline), last seen, events queued, lag in seconds, drops by reason (the page\'s Linked hubs); empty without peer links' },
  { method: 'get', path: '/api/v1/connection', summary: 'Keeps the caller present while open (keep-alive comments only; what parley mcp over stdio holds)' },
  { method: 'get', path: '/api/v1/meetings', summary: 'Meetings of the session' },
  { method: 'post', path: '/api/v1/meetings/{name}/join', summary: 'Join a meeting' },
  { method: 'post', path: '/api/v1/meetings/{name}/leave', summary: 'Leave a meeting' },
  { method: 'post', path: '/api/v1/meetings/{name}/say', summary: 'Say something in a meeting', body: MeetingSayBodySchema },
  { method: 'get', path: '/api/v1/meetings/{name}/hear', summary: 'Hear what others said since last_heard (default: the line the hub kept for you, which this moves up)', query: ['last_heard', 'limit'] },
  { method: 'get', path: '/api/v1/meetings/{name}/who', summary: 'Who is in a meeting' },
  { method: 'get', path: '/api/v1/meetings/{name}/ring', summary: 'The whole retained ring, own messages included, and how many were dropped' },
  { method: 'get', path: '/api/v1/meetings/{name}/status', summary: 'Meeting status: unread since last_heard (default: the line the hub kept for you)', query: ['last_heard'] },
];

const ERROR_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        field: { type: 'string' },
        // What to do next, as a key a client renders in its own words (src/errors/hints.ts); the message already says it for REST.
        hint: { type: 'string', enum: Object.keys(HINTS) },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const parameters = [
      ...[...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } })),
      ...(route.query ?? []).map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } })),
    ];
    const security = route.auth === 'none' ? [] : route.auth === 'admin' ? [{ adminToken: [] }] : [{ bearer: [] }, { basic: [] }, { cookie: [] }];
    (paths[route.path] ??= {})[route.method] = {
      summary: route.summary,
      security,
      ...(parameters.length ? { parameters } : {}),
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(route.body, { io: 'input', unrepresentable: 'any' }) } } } }
        : {}),
      responses: {
        '200': { description: 'OK' },
        default: { description: 'An error', content: { 'application/json': { schema: ERROR_SCHEMA } } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Parley hub API', version: VERSION },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A participant token from "parley join"' },
        basic: { type: 'http', scheme: 'basic', description: 'The human: handle as user name, hub password' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'parley_session' },
        adminToken: { type: 'http', scheme: 'bearer', description: "The hub's admin token (<home>/admin.token)" },
      },
    },
    paths,
  };
}
