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

/**
 * The participant API (participant-api.ts): one entry per method, no more and
 * no fewer (the type says so). Each row reads in the gate's order: chat, the
 * action its access must cover, the input parsed, the thread it names and
 * what it must allow, a write taken from the rate limit, a heavy read's turn,
 * in flight (`track`ed, or it `ends` at shutdown) and presence.
 */
export const PARTICIPANT_ENTRIES = {
  whoami: { chat: false, action: 'open', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  updateProfile: { chat: false, action: 'profile_update', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  participants: { chat: false, action: 'participants', rate: false, heavy: false, inflight: 'track', presence: 'touch' },

  post: { chat: true, action: 'post', input: parse(PostInputSchema), thread: write('thread'), rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  ingest: { envelope: 'live', chat: true, action: 'post', thread: write('envelope.thread'), rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  dm: { chat: true, action: 'dm', rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  threads: { chat: true, action: 'threads', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  createChannel: { chat: true, action: 'thread_create', rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  renameThread: { chat: true, action: 'thread_rename', input: parse(RenameThreadInputSchema), thread: write('thread'), rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  openSide: { chat: true, action: 'side_open', input: parse(OpenSideInputSchema), thread: write('parent'), rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  closeSide: { chat: true, action: 'side_close', input: parse(CloseSideInputSchema), thread: write('thread'), rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  subscribe: { chat: true, action: 'subscribe', input: parse(SubscriptionInputSchema), thread: see('thread'), rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  unsubscribe: { chat: true, action: 'unsubscribe', input: parse(SubscriptionInputSchema), thread: see('thread'), rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  mute: { chat: true, action: 'self_mute', input: parse(SubscriptionInputSchema), thread: see('thread'), rate: false, heavy: false, inflight: 'track', presence: 'touch' },

  readNew: { chat: true, action: 'read_new', input: parse(ReadNewInputSchema), thread: read('thread'), rate: false, heavy: true, inflight: 'track', presence: 'touch' },
  history: { chat: true, action: 'history', input: parse(HistoryInputSchema), thread: read('thread'), rate: false, heavy: true, inflight: 'track', presence: 'touch' },
  search: { chat: true, action: 'search', input: parse(SearchInputSchema), thread: { ...read('thread'), optional: true }, rate: false, heavy: true, inflight: 'track', presence: 'touch' },

  inbox: { chat: false, action: 'inbox', rate: false, heavy: true, inflight: 'track', presence: 'touch' },
  peek: { chat: false, action: 'peek', rate: false, heavy: true, inflight: 'track', presence: 'touch' },
  wait: { chat: false, action: 'wait', rate: false, heavy: false, inflight: 'ends', presence: 'wait' },
  ack: { chat: false, action: 'ack', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  inject: { chat: false, action: 'inject', rate: false, heavy: true, inflight: 'track', presence: 'touch' },
  sentDeliveries: { chat: false, action: 'sent_deliveries', rate: false, heavy: false, inflight: 'track', presence: 'touch' },

  control: { chat: true, action: 'steer', label: controlLabel, input: controlInput, thread: see('thread'), rate: true, heavy: false, inflight: 'track', presence: 'touch' },

  request: { chat: false, action: 'request_send', input: parse(RequestInputSchema), thread: { ...write('thread'), optional: true }, rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  respond: { chat: false, action: 'request_respond', rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  openRequests: { chat: false, action: 'open_requests', rate: false, heavy: false, inflight: 'track', presence: 'touch' },

  setPresence: { chat: false, action: 'presence_set', input: parse(PresenceInputSchema), thread: { ...see('thread'), optional: true }, rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  who: { chat: false, action: 'who', rate: false, heavy: false, inflight: 'track', presence: 'touch' },

  meetings: { chat: false, action: 'meetings', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  meetingJoin: { chat: false, action: 'meeting_join', input: (raw: unknown) => parseInput(MeetingNameSchema, raw, 'meeting'), rate: entersMeeting, heavy: false, inflight: 'track', presence: 'touch' },
  meetingLeave: { chat: false, action: 'meeting_leave', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  meetingSay: { chat: false, action: 'meeting_say', rate: true, heavy: false, inflight: 'track', presence: 'touch' },
  meetingHear: { chat: false, action: 'meeting_hear', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  meetingWho: { chat: false, action: 'meeting_who', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  meetingStatus: { chat: false, action: 'meeting_status', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
} as const satisfies Record<keyof ParticipantApi, AnyEntry>;

/** What the hub's own surfaces (REST, MCP, the page, hooks, the coordinator) reach besides the participant API. */
export const SURFACE_ENTRIES = {
  sessions: { chat: false, action: 'sessions', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  setAccess: { chat: false, action: 'access_set', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  /** Listening for changes of one's own access (live MCP tool lists): open to anyone holding a credential. */
  watchAccess: { chat: false, action: 'open', rate: false, heavy: false, inflight: 'ends', presence: 'none' },
  threadDetail: { chat: true, action: 'thread_detail', input: parse(ThreadNamedSchema), thread: read('thread'), rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  markRead: { chat: true, action: 'mark_read', input: parse(MarkReadSchema), thread: see('thread'), rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  export: { chat: true, action: 'export', input: parse(ExportInputSchema), thread: read('thread'), rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  deliveries: { chat: false, action: 'deliveries', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  meetingRing: { chat: false, action: 'meeting_ring', rate: false, heavy: false, inflight: 'track', presence: 'touch' },
  /** A live stream: present while it is open; the hub's shutdown ends it. */
  live: { chat: liveIsChat, action: 'live', input: parse(LiveFilterInputSchema), thread: { ...read('thread'), optional: true }, rate: false, heavy: false, inflight: 'ends', presence: 'stream' },
  /** An MCP session served in another process (`parley mcp`): present while it lasts. */
  connect: { chat: false, action: 'connect', rate: false, heavy: false, inflight: 'ends', presence: 'mcp' },
  /** An MCP session served here (/mcp), or one the coordinator runs in process: open to anyone holding a credential, so it can learn who it is. */
  mcpSession: { chat: false, action: 'open', rate: false, heavy: false, inflight: 'ends', presence: 'mcp' },
  streamSession: { chat: false, action: 'open', rate: false, heavy: false, inflight: 'ends', presence: 'stream' },
  /** An agent CLI's hook: a stop hook's wait ends at shutdown (its reads are tracked, see agent-hook.ts). */
  agentHook: { chat: false, action: 'agent_hook', rate: false, heavy: false, inflight: 'ends', presence: 'touch' },
} as const satisfies Record<string, AnyEntry>;

/** What linked hubs hand in (the peer links): each envelope's own signature says who it is from. */
export const PEER_ENTRIES = {
  /** History and fan-out from another hub of the roster: deduplicated by id, no TTL, no rate limit, no presence. */
  syncEnvelope: { envelope: 'sync', chat: true, action: 'post', thread: write('envelope.thread'), rate: false, heavy: false, inflight: 'track', presence: 'none' },
  /** A request from another hub: its author's access must cover sending one (operator), as here. */
  syncRequest: { envelope: 'sync', chat: false, action: 'request_send', thread: write('envelope.thread'), rate: false, heavy: false, inflight: 'track', presence: 'none' },
  /** A control from another hub (pause, done, pin, mute, unmute): it needs admin, as here ("pause needs admin"). */
  syncControl: { envelope: 'sync', chat: true, action: 'steer', thread: see('envelope.thread'), rate: false, heavy: false, inflight: 'track', presence: 'none' },
  /** A response from another hub: its author's access must cover responding, as here. */
  syncResponse: { envelope: 'sync', chat: false, action: 'request_respond', thread: see('envelope.thread'), rate: false, heavy: false, inflight: 'track', presence: 'none' },
} as const satisfies Record<string, AnyEntry>;

/** Refusing (FORBIDDEN_ROLE, NOT_IN_ROSTER) an action the caller's access does not cover, for what the hub then does on its behalf. */
export function accessCheck(action: Action): AnyEntry {
  return { chat: false, action, rate: false, heavy: false, inflight: 'track', presence: 'none' };
}
