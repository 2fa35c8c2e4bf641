import type { Actor } from '../../src/hub/actor.js';
import type { Hub } from '../../src/hub/hub.js';
import { PARTICIPANT_ENTRIES, PEER_ENTRIES, SURFACE_ENTRIES } from '../../src/hub/entries.js';
import { rawKeyOf } from '../../src/hub/participant-key.js';
import { decodedEnvelope, signedEnvelope } from '../helpers/envelope.js';
import type { TestHub } from '../helpers/hub.js';

/**
 * One call of every entry of the hub's gate table (entries.ts), as valid as
 * the call allows, made by `a` (a participant of session "s" beside @boss, a
 * human). The types make a table entry without a call a compile error; a test
 * also checks the keys at run time.
 */
export type EntryName = keyof typeof PARTICIPANT_ENTRIES | keyof typeof SURFACE_ENTRIES | keyof typeof PEER_ENTRIES;
export type EntryCall = (a: Actor, n: number, t: TestHub) => unknown;

const UNKNOWN_ID = '01JZZZZZZZZZZZZZZZZZZZZZZZ';

export const ENTRY_CALLS: Record<EntryName, EntryCall> = {
  whoami: (a) => a.whoami(),
  updateProfile: (a) => a.updateProfile({ model: 'a-model' }),
  participants: (a) => a.participants(),
  post: (a) => a.post({ thread: 'general', text: 'hello' }),
  ingest: (a, _n, t) => a.ingest(signedEnvelope(t, a)),
  dm: (a) => a.dm({ to: 'boss', text: 'hello' }),
  threads: (a) => a.threads(),
  createChannel: (a, n) => a.createChannel({ name: `channel-${n}` }),
  renameThread: (a) => a.renameThread({ thread: 'general', name: 'general' }),
  openSide: (a) => a.openSide({ parent: 'general', title: 'an aside' }),
  closeSide: (a) => a.closeSide({ thread: UNKNOWN_ID, summary: 'done' }),
  subscribe: (a) => a.subscribe('general'),
  unsubscribe: (a) => a.unsubscribe('general'),
  mute: (a) => a.mute('general'),
  readNew: (a) => a.readNew({ thread: 'general' }),
  history: (a) => a.history({ thread: 'general' }),
  search: (a) => a.search({ query: 'hello' }),
  inbox: (a) => a.inbox({}),
  peek: (a) => a.peek({}),
  wait: (a) => a.wait({ timeout_ms: 0 }),
  ack: (a) => a.ack({ ids: [UNKNOWN_ID] }),
  inject: (a) => a.inject({}),
  sentDeliveries: (a) => a.sentDeliveries({}),
  control: (a) => a.control('general', { done: true }),
  request: (a) => a.request({ to: 'boss', intent: 'approve' }),
  respond: (a) => a.respond({ request_id: UNKNOWN_ID, status: 'Completed' }),
  openRequests: (a) => a.openRequests(),
  setPresence: (a) => a.setPresence({ state: 'thinking' }),
  who: (a) => a.who(),
  meetings: (a) => a.meetings(),
  meetingJoin: (a) => a.meetingJoin('standup'),
  meetingLeave: (a) => a.meetingLeave('standup'),
  meetingSay: (a) => a.meetingSay('standup', 'hello'),
  meetingHear: (a) => a.meetingHear({ meeting: 'standup' }),
  meetingWho: (a) => a.meetingWho('standup'),
  meetingStatus: (a) => a.meetingStatus('standup'),

  sessions: (a) => a.sessions(),
  setAccess: (a) => a.setAccess('boss', 'admin'),
  watchAccess: (a) => a.onAccessChange(() => undefined)(),
  threadDetail: (a) => a.threadDetail('general'),
  markRead: (a) => a.markRead('general', 1),
  export: (a) => a.export({ thread: 'general', format: 'jsonl' }),
  deliveries: (a) => a.deliveries(),
  meetingRing: (a) => a.meetingRing('standup'),
  live: (a) => a.live({ ephemeral: false }).close(),
  connect: (a) => a.connect().close(),
  mcpSession: (a) => a.holdPresence('mcp')(),
  streamSession: (a) => a.holdPresence('stream')(),
  agentHook: (a) => a.agentHook({ event: 'tool' }),

  syncEnvelope: (a, _n, t) => t.hub.internals.peers.syncEnvelope(signedEnvelope(t, a)),
  // A request to @boss and a response to a request this hub never saw, as a linked hub hands them in.
  syncRequest: (a, n, t) =>
    t.hub.internals.peers.syncEnvelope(
      decodedEnvelope(t, a, { kind: 'request', to: rawKeyOf(t.hub.participant('boss')!), content: { request_id: `request-${n}-of-a-peer`, intent: 'review', params: {}, hop: 0 } }),
    ),
  syncControl: (a, _n, t) => t.hub.internals.peers.syncEnvelope(decodedEnvelope(t, a, { kind: 'control', content: { pin: { on: true } } })),
  syncResponse: (a, n, t) =>
    t.hub.internals.peers.syncEnvelope(decodedEnvelope(t, a, { kind: 'response', to: rawKeyOf(t.hub.participant('boss')!), content: { request_id: `elsewhere-${n}`, status: 'Completed' } })),
};

/** Every entry of the table, by name, with the participant calls first. */
export function allEntries(): Array<[EntryName, (typeof PARTICIPANT_ENTRIES)[keyof typeof PARTICIPANT_ENTRIES] | (typeof SURFACE_ENTRIES)[keyof typeof SURFACE_ENTRIES] | (typeof PEER_ENTRIES)[keyof typeof PEER_ENTRIES]]> {
  return [...Object.entries(PARTICIPANT_ENTRIES), ...Object.entries(SURFACE_ENTRIES), ...Object.entries(PEER_ENTRIES)] as never;
}

/** Runs a call and gives the code of what it threw, or undefined when it went through. */
export async function outcome(call: () => unknown): Promise<{ code: string | undefined; message: string; details?: unknown }> {
  try {
    await call();
    return { code: undefined, message: '' };
  } catch (error) {
    const e = error as { code?: string; message?: string; details?: unknown };
    return { code: e.code ?? 'THREW', message: e.message ?? String(error), details: e.details };
  }
}

/**
 * Begins the hub's shutdown while a call is held in flight (`release` lets it
 * finish), runs `body` against the closing hub, then lets the call and the
 * shutdown finish.
 */
export async function whileClosing(hub: Hub, release: () => void, body: () => Promise<void>): Promise<void> {
  const closing = hub.close();
  // The hub closes its doors once its retention pass has stopped: a few turns of the event loop, no timer.
  while (!hub.internals.ctx.lifecycle.closing) await new Promise<void>((resolve) => setImmediate(resolve));
  try {
    await body();
  } finally {
    release();
    await closing;
  }
}
