// Every way into the hub, with what the gate (gate.ts) checks and holds for
// each, in one table: a reader sees here how every entry is gated.

import { z } from 'zod';
import { parseInput } from '../errors/parley-error.js';
import { parseControl, type ControlParsed } from '../schema/control.js';
import {
  CloseSideInputSchema,
  ExportInputSchema,
  HistoryInputSchema,
  LiveFilterInputSchema,
  MeetingNameSchema,
  OpenSideInputSchema,
  PostInputSchema,
  PresenceInputSchema,
  ReadNewInputSchema,
  RenameThreadInputSchema,
  RequestInputSchema,
  SearchInputSchema,
  SubscriptionInputSchema,
} from '../schema/inputs.js';
import { SeqSchema, ThreadRefSchema } from '../schema/names.js';
import type { Caller } from './records.js';
import type { HubContext } from './context.js';
import type { EnvelopeMode } from './envelope-opening.js';
import type { ParticipantApi } from './participant-api.js';
import type { Action } from './permissions.js';
import type { ConnectionKind } from './presence.js';

/**
 * What the thread an entry names must allow its caller: `see` it (a DM only
 * its two participants; any other thread of the session), or also `read` or
 * `write` it as its channel's access policy says.
 */
export type ThreadNeed = 'see' | 'read' | 'write';

export interface ThreadField {
  /** The input field that names the thread (and that a refusal names); an envelope's is the thread it was signed for. */
  field: string;
  need: ThreadNeed;
  /** The input may leave it out (search, live, a request, presence). */
  optional?: true;
}

/** One entry's gating, field by field in the order the gate applies it (chat before access: see gate.ts). */
export interface Entry<I = unknown> {
  /** A signed envelope, opened first: its signature says who the caller is (see envelope-opening.ts). */
  envelope?: EnvelopeMode;
  /** Chat: refused (CHAT_DISABLED) for a caller without chat; a function decides from the raw input. */
  chat: boolean | ((raw: unknown) => boolean);
  /** The permission-table action its caller's access must cover; `open`: any credential holder, even outside the roster. */
  action: Action | 'open';
  /** How a refusal names the action, from the raw input ("pause needs admin"). */
  label?: (raw: unknown) => string;
  /** Parses the input once, here; the operation gets the parsed value (else the input as given, which it parses). */
  input?: (raw: unknown) => I;
  /** The thread the input names: resolved once, checked, and handed to the operation. */
  thread?: ThreadField;
  /** Takes one write from the caller's rate limit (a function: only when it says so). */
  rate: boolean | ((ctx: Pick<HubContext, 'meetings'>, caller: Caller, input: I) => boolean);
  /** A heavy read: runs in the caller's read turn (ReadGate). */
  heavy: boolean;
  /** `track`: closing waits for it; `ends`: it ends (HUB_CLOSED, or its stream ends) when the hub closes, holding nothing up. */
  inflight: 'track' | 'ends';
  /** `touch`: a sign of life; a connection kind: present for as long as it lasts; `none`: presence untouched. */
  presence: 'touch' | 'none' | ConnectionKind;
}

/** Any entry, whatever it parses its input to. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEntry = Entry<any>;

/** The parsed input an entry hands its operation. */
export type InputOf<E> = E extends { input: (raw: unknown) => infer I } ? I : unknown;

const parse =
  <S extends z.ZodType>(schema: S) =>
  (raw: unknown): z.output<S> =>
    parseInput(schema, raw);

/** The entries that name a thread by a positional argument, given to the gate as an object. */
const ThreadNamedSchema = z.strictObject({ thread: ThreadRefSchema });
const MarkReadSchema = z.strictObject({ thread: ThreadRefSchema, up_to: SeqSchema });

/** A control and the thread it steers; the control parsed by its one key, so its errors name the exact field. */
function controlInput(raw: unknown): { thread: string; control: ControlParsed } {
  const { thread, control } = raw as { thread: unknown; control: unknown };
  return { thread: parseInput(ThreadRefSchema, thread, 'thread'), control: parseControl(control) };
}

/** The steering control's name as a refusal shows it ("pause needs admin"); every control needs admin. */
function controlLabel(raw: unknown): string {
  const control = (raw as { control?: unknown } | undefined)?.control;
  const key = typeof control === 'object' && control !== null ? Object.keys(control)[0] : undefined;
  if (key === 'pause') return (control as { pause?: { on?: unknown } }).pause?.on === false ? 'resume' : 'pause';
  return key ?? 'steer';
}

/** Entering a meeting is a write; joining one already joined is not. */
function entersMeeting(ctx: Pick<HubContext, 'meetings'>, caller: Caller, meeting: string): boolean {
  return !ctx.meetings.find(caller.session.id, meeting)?.isMember(caller.participant.id);
}

/** A live stream of the inbox alone is not chat: it carries only what reaches a participant without chat. */
const liveIsChat = (raw: unknown): boolean => (raw as { inbox?: unknown } | undefined)?.inbox !== true;

const see = (field: string): ThreadField => ({ field, need: 'see' });
const read = (field: string): ThreadField => ({ field, need: 'read' });
const write = (field: string): ThreadField => ({ field, need: 'write' });

/** A one-shot call: tracked in flight (closing waits for it) and a sign of life. */
const CALL = { inflight: 'track', presence: 'touch' } as const;
const PLAIN = { chat: false, rate: false, heavy: false, ...CALL } as const;
const CHAT = { chat: true, rate: false, heavy: false, ...CALL } as const;
const CHAT_WRITE = { chat: true, rate: true, heavy: false, ...CALL } as const;
const CHAT_READ = { chat: true, rate: false, heavy: true, ...CALL } as const;

/**
 * The participant API (participant-api.ts): one entry per method, no more and
 * no fewer (the type says so). Read across: action, chat, input, thread,
 * rate, heavy read, in flight, presence.
 */
export const PARTICIPANT_ENTRIES = {
  whoami: { action: 'open', ...PLAIN },
  updateProfile: { action: 'profile_update', ...PLAIN },
  participants: { action: 'participants', ...PLAIN },

  post: { action: 'post', ...CHAT_WRITE, input: parse(PostInputSchema), thread: write('thread') },
  ingest: { action: 'post', ...CHAT_WRITE, envelope: 'live', thread: write('envelope.thread') },
  dm: { action: 'dm', ...CHAT_WRITE },
  threads: { action: 'threads', ...CHAT },
  createChannel: { action: 'thread_create', ...CHAT_WRITE },
  renameThread: { action: 'thread_rename', ...CHAT_WRITE, input: parse(RenameThreadInputSchema), thread: write('thread') },
  openSide: { action: 'side_open', ...CHAT_WRITE, input: parse(OpenSideInputSchema), thread: write('parent') },
  closeSide: { action: 'side_close', ...CHAT_WRITE, input: parse(CloseSideInputSchema), thread: write('thread') },
  subscribe: { action: 'subscribe', ...CHAT, input: parse(SubscriptionInputSchema), thread: see('thread') },
  unsubscribe: { action: 'unsubscribe', ...CHAT, input: parse(SubscriptionInputSchema), thread: see('thread') },
  mute: { action: 'self_mute', ...CHAT, input: parse(SubscriptionInputSchema), thread: see('thread') },

  readNew: { action: 'read_new', ...CHAT_READ, input: parse(ReadNewInputSchema), thread: read('thread') },
  history: { action: 'history', ...CHAT_READ, input: parse(HistoryInputSchema), thread: read('thread') },
  search: { action: 'search', ...CHAT_READ, input: parse(SearchInputSchema), thread: { ...read('thread'), optional: true } },

  inbox: { action: 'inbox', ...PLAIN, heavy: true },
  peek: { action: 'peek', ...PLAIN, heavy: true },
  wait: { action: 'wait', ...PLAIN, inflight: 'ends', presence: 'wait' },
  ack: { action: 'ack', ...PLAIN },
  inject: { action: 'inject', ...PLAIN, heavy: true },
  sentDeliveries: { action: 'sent_deliveries', ...PLAIN },

  control: { action: 'steer', label: controlLabel, ...CHAT_WRITE, input: controlInput, thread: see('thread') },

  request: { action: 'request_send', ...PLAIN, rate: true, input: parse(RequestInputSchema), thread: { ...write('thread'), optional: true } },
  respond: { action: 'request_respond', ...PLAIN, rate: true },
  openRequests: { action: 'open_requests', ...PLAIN },

  setPresence: { action: 'presence_set', ...PLAIN, input: parse(PresenceInputSchema), thread: { ...see('thread'), optional: true } },
  who: { action: 'who', ...PLAIN },

  meetings: { action: 'meetings', ...PLAIN },
  meetingJoin: { action: 'meeting_join', ...PLAIN, input: (raw: unknown) => parseInput(MeetingNameSchema, raw, 'meeting'), rate: entersMeeting },
  meetingLeave: { action: 'meeting_leave', ...PLAIN },
  meetingSay: { action: 'meeting_say', ...PLAIN, rate: true },
  meetingHear: { action: 'meeting_hear', ...PLAIN },
  meetingWho: { action: 'meeting_who', ...PLAIN },
  meetingStatus: { action: 'meeting_status', ...PLAIN },
} as const satisfies Record<keyof ParticipantApi, AnyEntry>;

/** What the hub's own surfaces (REST, MCP, the page, hooks, the coordinator) reach besides the participant API. */
export const SURFACE_ENTRIES = {
  sessions: { action: 'sessions', ...PLAIN },
  setAccess: { action: 'access_set', ...PLAIN },
  /** Listening for changes of one's own access (live MCP tool lists): open to anyone holding a credential. */
  watchAccess: { action: 'open', ...PLAIN, inflight: 'ends', presence: 'none' },
  threadDetail: { action: 'thread_detail', ...CHAT, input: parse(ThreadNamedSchema), thread: read('thread') },
  markRead: { action: 'mark_read', ...CHAT, input: parse(MarkReadSchema), thread: see('thread') },
  export: { action: 'export', ...CHAT, input: parse(ExportInputSchema), thread: read('thread') },
  deliveries: { action: 'deliveries', ...PLAIN },
  meetingRing: { action: 'meeting_ring', ...PLAIN },
  /** A live stream: present while it is open; the hub's shutdown ends it. */
  live: { action: 'live', chat: liveIsChat, rate: false, heavy: false, input: parse(LiveFilterInputSchema), thread: { ...read('thread'), optional: true }, inflight: 'ends', presence: 'stream' },
  /** An MCP session served in another process (`parley mcp`): present while it lasts. */
  connect: { action: 'connect', ...PLAIN, inflight: 'ends', presence: 'mcp' },
  /** An MCP session served here (/mcp), or one the coordinator runs in process: open to anyone holding a credential, so it can learn who it is. */
  mcpSession: { action: 'open', ...PLAIN, inflight: 'ends', presence: 'mcp' },
  streamSession: { action: 'open', ...PLAIN, inflight: 'ends', presence: 'stream' },
  /** An agent CLI's hook: a stop hook's wait ends at shutdown (its reads are tracked, see agent-hook.ts). */
  agentHook: { action: 'agent_hook', ...PLAIN, inflight: 'ends' },
} as const satisfies Record<string, AnyEntry>;

/** What linked hubs hand in (the peer links): each envelope's own signature says who it is from. */
export const PEER_ENTRIES = {
  /** History and fan-out from another hub of the roster: deduplicated by id, no TTL, no rate limit, no presence. */
  syncEnvelope: { action: 'post', chat: true, envelope: 'sync', thread: write('envelope.thread'), rate: false, heavy: false, inflight: 'track', presence: 'none' },
} as const satisfies Record<string, AnyEntry>;

/** Refusing (FORBIDDEN_ROLE, NOT_IN_ROSTER) an action the caller's access does not cover, for what the hub then does on its behalf. */
export function accessCheck(action: Action): AnyEntry {
  return { action, ...PLAIN, presence: 'none' };
}
