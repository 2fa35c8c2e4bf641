import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { Hub } from '../../src/hub/hub.js';
import { ParleyError } from '../../src/errors/parley-error.js';
import { caught, openTestHub, type TestHub } from '../helpers/hub.js';
import { snapshot } from '../helpers/store-snapshot.js';

/**
 * Bad input at every library entry point: each call is refused with the right
 * code, names the field at fault, and leaves the store (and the meeting
 * registry) exactly as it was.
 */
const MAX_INPUT_CHARS = 1000;
const MAX_PARAMS_BYTES = 256;
const MAX_WAIT_MS = 5000;
/** A well-formed ULID that names nothing in the hub. */
const UNKNOWN_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const LONG_TEXT = 'x'.repeat(MAX_INPUT_CHARS + 1);
/** A number over its maximum: the message names the maximum and does not say to "shorten" a number. */
const NAMES_MAX_1000 = /^(?![\s\S]*Shorten)[\s\S]*\b1000\b/;
/** A malformed control: the message lists the control kinds to choose from. */
const LISTS_KINDS = /ttl_seconds/;

interface World {
  hub: Hub;
  /** alice, bob, carol and dave are in session "default"; olga and oscar in session "other". */
  alice: Actor;
  bob: Actor;
  carol: Actor;
  dave: Actor;
  olga: Actor;
  /** The DM of alice and bob, and a message in it. */
  dmThread: string;
  dmEvent: string;
  side: string;
  closedSide: string;
  /** A request from alice to bob still open, and one bob completed. */
  openRequest: string;
  channelRequest: string;
  closedRequest: string;
  foreignThread: string;
  foreignEvent: string;
  foreignRequest: string;
}

let th: TestHub;
let w: World;

beforeAll(async () => {
  th = await openTestHub({
    config: {
      chat: { limits: { maxInputChars: MAX_INPUT_CHARS } },
      requests: { maxParamsBytes: MAX_PARAMS_BYTES },
      inbox: { maxWaitTimeoutMs: MAX_WAIT_MS, waitTimeoutMs: 100 },
      // The agents alice and carol steer here (its controls are the input under test): an admin's, since only admins steer.
      trust: { access: { alice: 'admin', carol: 'admin' } },
    },
  });
  const { hub } = th;
  const alice = await hub.join({ handle: 'alice' });
  const bob = await hub.join({ handle: 'bob' });
  const carol = await hub.join({ handle: 'carol' });
  const dave = await hub.join({ handle: 'dave' });
  const olga = await hub.join({ handle: 'olga', session: 'other' });
  await hub.join({ handle: 'oscar', session: 'other' });

  await alice.post({ thread: 'general', text: 'hello world' });
  await alice.createChannel({ name: 'ops' });
  const dm = await alice.dm({ to: 'bob', text: 'just between us' });
  const side = await alice.openSide({ parent: 'general', title: 'design' });
  const closedSide = await alice.openSide({ parent: 'general', title: 'old idea' });
  await alice.closeSide({ thread: closedSide.id, summary: 'dropped' });
  const openRequest = await alice.request({ to: 'bob', intent: 'review' });
  const closedRequest = await alice.request({ to: 'bob', intent: 'build' });
  const channelRequest = await alice.request({ to: 'bob', intent: 'check', thread: 'ops' });
  await bob.respond({ request_id: closedRequest.request_id, status: 'Completed' });
  await alice.meetingJoin('standup');

  const elsewhere = await olga.createChannel({ name: 'elsewhere' });
  const foreignEvent = await olga.post({ thread: 'elsewhere', text: 'over here' });
  const foreignRequest = await olga.request({ to: 'oscar', intent: 'deploy' });
  await olga.meetingJoin('retro');

  w = {
    hub,
    alice,
    bob,
    carol,
    dave,
    olga,
    dmThread: dm.thread,
    dmEvent: dm.id,
    side: side.id,
    closedSide: closedSide.id,
    openRequest: openRequest.request_id,
    channelRequest: channelRequest.request_id,
    closedRequest: closedRequest.request_id,
    foreignThread: elsewhere.id,
    foreignEvent: foreignEvent.id,
    foreignRequest: foreignRequest.request_id,
  };
});

afterAll(async () => {
  await th.close();
});

interface Case {
  name: string;
  run: (w: World) => unknown;
  code: string;
  field: string;
  /** What the message must say, beyond the code and field. */
  message?: RegExp;
}

/** One refused call: `entry` is the entry point, `what` the bad input. */
function refused(entry: string, what: string, run: (w: World) => unknown, code: string, field: string, message?: RegExp): Case {
  return { name: `bad input - ${entry}: ${what} is refused with ${code} naming ${field}`, run, code, field, ...(message ? { message } : {}) };
}

const bad = (value: unknown): never => value as never;

/** A request from alice to bob, with `extra` merged in. */
const ask = (extra: Record<string, unknown>) => (w: World) => w.alice.request(bad({ to: 'bob', intent: 'look', ...extra }));

/** Opens a live subscription and closes it again if it was (wrongly) accepted. */
const liveWith = (a: Actor, filter: unknown): void => a.live(bad(filter)).close();

/** One test per case, named by the case. */
function refusals(cases: Case[]): void {
  for (const c of cases) it(c.name, () => expectRefused(c));
}

async function expectRefused(c: Case): Promise<void> {
  const before = snapshot(w.hub);
  const error = await caught(() => c.run(w));
  expect(error, `${c.name}: threw ${String(error)}`).toBeInstanceOf(ParleyError);
  expect(`${error.code} naming ${error.field}`).toBe(`${c.code} naming ${c.field}`);
  expect(error.message.length).toBeGreaterThan(0);
  if (c.message) expect(error.message).toMatch(c.message);
  expect(snapshot(w.hub), 'nothing is stored on a refused call').toEqual(before);
}

describe('bad input - Hub.join and Hub.actor', () => {
  refusals([
    refused('join', 'a missing handle', (w) => w.hub.join(bad({})), 'INVALID_INPUT', 'handle'),
    refused('join', 'a handle of the wrong type', (w) => w.hub.join(bad({ handle: 42 })), 'INVALID_INPUT', 'handle'),
    refused('join', 'an invalid handle', (w) => w.hub.join({ handle: 'no spaces!' }), 'INVALID_INPUT', 'handle'),
    refused('join', 'a handle over 64 characters', (w) => w.hub.join({ handle: 'h'.repeat(65) }), 'INVALID_INPUT', 'handle'),
    refused('join', 'a session of the wrong type', (w) => w.hub.join(bad({ handle: 'zoe', session: 7 })), 'INVALID_INPUT', 'session'),
    refused('join', 'an invalid session name', (w) => w.hub.join({ handle: 'zoe', session: 'my session' }), 'INVALID_INPUT', 'session'),
    refused('join', 'an empty session name', (w) => w.hub.join({ handle: 'zoe', session: '  ' }), 'INVALID_INPUT', 'session'),
    refused('join', 'an unknown profile kind', (w) => w.hub.join(bad({ handle: 'zoe', profile: { kind: 'robot' } })), 'INVALID_INPUT', 'profile.kind'),
    refused('join', 'a profile of the wrong type', (w) => w.hub.join(bad({ handle: 'zoe', profile: 'agent' })), 'INVALID_INPUT', 'profile'),
    refused('join', 'input that is not an object', (w) => w.hub.join(bad(null)), 'INVALID_INPUT', '(input)'),
    refused('actor', 'an unknown handle', (w) => w.hub.actor('nobody'), 'NOT_FOUND', 'handle'),
    refused('actor', 'a participant of another session', (w) => w.hub.actor('olga'), 'NOT_FOUND', 'handle'),
    refused('actor', 'an unknown session', (w) => w.hub.actor('alice', 'nosuch'), 'NOT_FOUND', 'session'),
    refused('actor', 'an invalid handle', (w) => w.hub.actor('no spaces!'), 'INVALID_INPUT', 'handle'),
    refused('actor', 'a handle of the wrong type', (w) => w.hub.actor(bad(42)), 'INVALID_INPUT', 'handle'),
    refused('actor', 'a session of the wrong type', (w) => w.hub.actor('alice', bad(7)), 'INVALID_INPUT', 'session'),
  ]);
});

/** Every entry point that names a thread, with the field it names it by. */
const THREAD_TAKERS: Array<[entry: string, field: string, call: (a: Actor, ref: string) => unknown]> = [
  ['post', 'thread', (a, t) => a.post({ thread: t, text: 'hi' })],
  ['readNew', 'thread', (a, t) => a.readNew({ thread: t })],
  ['history', 'thread', (a, t) => a.history({ thread: t })],
  ['search', 'thread', (a, t) => a.search({ query: 'hello', thread: t })],
  ['subscribe', 'thread', (a, t) => a.subscribe(t)],
  ['mute', 'thread', (a, t) => a.mute(t)],
  ['unsubscribe', 'thread', (a, t) => a.unsubscribe(t)],
  ['renameThread', 'thread', (a, t) => a.renameThread({ thread: t, name: 'renamed' })],
  ['openSide', 'parent', (a, t) => a.openSide({ parent: t, title: 'aside' })],
  ['closeSide', 'thread', (a, t) => a.closeSide({ thread: t, summary: 'done' })],
  ['control', 'thread', (a, t) => a.control(t, { done: true })],
  ['request', 'thread', (a, t) => a.request({ to: 'bob', intent: 'look', thread: t })],
  ['setPresence', 'thread', (a, t) => a.setPresence({ state: 'thinking', thread: t })],
  ['live', 'thread', (a, t) => liveWith(a, { thread: t })],
];

/** Threads a caller may not use: [what, who calls, the ref, the code]. */
const THREAD_REFS: Array<[what: string, who: 'alice' | 'carol', ref: (w: World) => string, code: string]> = [
  ['an unknown channel name', 'alice', () => 'nosuch', 'NOT_FOUND'],
  ['an unknown thread id', 'alice', () => UNKNOWN_ID, 'NOT_FOUND'],
  ['a thread of another session', 'alice', (w) => w.foreignThread, 'NOT_FOUND'],
  ['a DM thread of two other participants', 'carol', (w) => w.dmThread, 'NOT_FOUND'],
];

describe('bad input - threads that do not exist or are not the caller’s', () => {
  refusals(
    THREAD_TAKERS.flatMap(([entry, field, call]) =>
      THREAD_REFS.map(([what, who, ref, code]) => refused(entry, what, (w) => call(w[who], ref(w)), code, field)),
    ),
  );
});

describe('bad input - conversation', () => {
  refusals([
    refused('post', 'text of the wrong type', (w) => w.alice.post(bad({ thread: 'general', text: 42 })), 'INVALID_INPUT', 'text'),
    refused('post', 'a missing text', (w) => w.alice.post(bad({ thread: 'general' })), 'INVALID_INPUT', 'text'),
    refused('post', 'a missing thread', (w) => w.alice.post(bad({ text: 'hi' })), 'INVALID_INPUT', 'thread'),
    refused('post', 'an empty thread', (w) => w.alice.post({ thread: ' ', text: 'hi' }), 'INVALID_INPUT', 'thread'),
    refused('post', 'a blank text', (w) => w.alice.post({ thread: 'general', text: '   ' }), 'INVALID_INPUT', 'text'),
    refused('post', 'text over maxInputChars', (w) => w.alice.post({ thread: 'general', text: LONG_TEXT }), 'PAYLOAD_TOO_LARGE', 'text', /shorter/),
    refused('post', 'an invalid to handle', (w) => w.alice.post({ thread: 'general', text: 'hi', to: 'no spaces!' }), 'INVALID_INPUT', 'to'),
    refused('post', 'an unknown to handle', (w) => w.alice.post({ thread: 'general', text: 'hi', to: 'nobody' }), 'NOT_FOUND', 'to'),
    refused('post', 'a to handle of another session', (w) => w.alice.post({ thread: 'general', text: 'hi', to: 'olga' }), 'NOT_FOUND', 'to'),
    refused('post', 'a reply_to that is not a ULID', (w) => w.alice.post({ thread: 'general', text: 'hi', reply_to: 'abc' }), 'INVALID_INPUT', 'reply_to'),
    refused('post', 'an unknown reply_to', (w) => w.alice.post({ thread: 'general', text: 'hi', reply_to: UNKNOWN_ID }), 'NOT_FOUND', 'reply_to'),
    refused('post', 'a reply_to in another session', (w) => w.alice.post({ thread: 'general', text: 'hi', reply_to: w.foreignEvent }), 'NOT_FOUND', 'reply_to'),
    refused('post', 'a reply_to in a DM of others', (w) => w.carol.post({ thread: 'general', text: 'hi', reply_to: w.dmEvent }), 'NOT_FOUND', 'reply_to'),
    refused('post', 'tags of the wrong type', (w) => w.alice.post(bad({ thread: 'general', text: 'hi', tags: 'urgent' })), 'INVALID_INPUT', 'tags'),
    refused('post', 'more than 16 tags', (w) => w.alice.post({ thread: 'general', text: 'hi', tags: Array.from({ length: 17 }, (_, i) => `t${i}`) }), 'INVALID_INPUT', 'tags'),
    refused('post', 'input that is not an object', (w) => w.alice.post(bad(null)), 'INVALID_INPUT', '(input)'),
    refused('post', 'a post to a closed side channel', (w) => w.alice.post({ thread: w.closedSide, text: 'hi' }), 'THREAD_CLOSED', 'thread'),
    refused('dm', 'text of the wrong type', (w) => w.alice.dm(bad({ to: 'bob', text: 42 })), 'INVALID_INPUT', 'text'),
    refused('dm', 'a missing to', (w) => w.alice.dm(bad({ text: 'hi' })), 'INVALID_INPUT', 'to'),
    refused('dm', 'an invalid to handle', (w) => w.alice.dm({ to: 'no spaces!', text: 'hi' }), 'INVALID_INPUT', 'to'),
    refused('dm', 'an unknown to handle', (w) => w.alice.dm({ to: 'nobody', text: 'hi' }), 'NOT_FOUND', 'to'),
    refused('dm', 'a to handle of another session', (w) => w.alice.dm({ to: 'olga', text: 'hi' }), 'NOT_FOUND', 'to'),
    refused('dm', 'a DM to oneself', (w) => w.alice.dm({ to: 'alice', text: 'hi' }), 'INVALID_INPUT', 'to'),
    refused('dm', 'text over maxInputChars', (w) => w.carol.dm({ to: 'dave', text: LONG_TEXT }), 'PAYLOAD_TOO_LARGE', 'text'),
    refused('dm', 'an unknown reply_to (first DM of the pair)', (w) => w.carol.dm({ to: 'dave', text: 'hi', reply_to: UNKNOWN_ID }), 'NOT_FOUND', 'reply_to'),
    refused('createChannel', 'a name of the wrong type', (w) => w.alice.createChannel(bad({ name: 42 })), 'INVALID_INPUT', 'name'),
    refused('createChannel', 'a missing name', (w) => w.alice.createChannel(bad({})), 'INVALID_INPUT', 'name'),
    refused('createChannel', 'an invalid channel name', (w) => w.alice.createChannel({ name: 'Bad Name!' }), 'INVALID_INPUT', 'name'),
    refused('createChannel', 'a name over 64 characters', (w) => w.alice.createChannel({ name: 'c'.repeat(65) }), 'INVALID_INPUT', 'name'),
    refused('createChannel', 'an existing channel name', (w) => w.alice.createChannel({ name: '#General' }), 'CONFLICT', 'name'),
    refused('createChannel', 'members of the wrong type', (w) => w.alice.createChannel(bad({ name: 'fresh', members: 'bob' })), 'INVALID_INPUT', 'members'),
    refused('createChannel', 'an invalid member handle', (w) => w.alice.createChannel({ name: 'fresh', members: ['bob', 'no spaces!'] }), 'INVALID_INPUT', 'members.1'),
    refused('createChannel', 'an unknown member', (w) => w.alice.createChannel({ name: 'fresh', members: ['nobody'] }), 'NOT_FOUND', 'members.0'),
    refused('createChannel', 'a member of another session', (w) => w.alice.createChannel({ name: 'fresh', members: ['bob', 'olga'] }), 'NOT_FOUND', 'members.1'),
    refused('renameThread', 'a name of the wrong type', (w) => w.alice.renameThread(bad({ thread: 'ops', name: 42 })), 'INVALID_INPUT', 'name'),
    refused('renameThread', 'a missing name', (w) => w.alice.renameThread(bad({ thread: 'ops' })), 'INVALID_INPUT', 'name'),
    refused('renameThread', 'an invalid channel name', (w) => w.alice.renameThread({ thread: 'ops', name: 'Bad Name!' }), 'INVALID_INPUT', 'name'),
    refused('renameThread', 'the name of another channel', (w) => w.alice.renameThread({ thread: 'ops', name: 'general' }), 'CONFLICT', 'name'),
    refused('renameThread', 'a side title on two lines', (w) => w.alice.renameThread({ thread: w.side, name: 'a\nb' }), 'INVALID_INPUT', 'name'),
    refused('renameThread', 'a DM thread', (w) => w.alice.renameThread({ thread: w.dmThread, name: 'ours' }), 'INVALID_INPUT', 'thread'),
    refused('openSide', 'a missing title', (w) => w.alice.openSide(bad({ parent: 'general' })), 'INVALID_INPUT', 'title'),
    refused('openSide', 'a title on two lines', (w) => w.alice.openSide({ parent: 'general', title: 'a\nb' }), 'INVALID_INPUT', 'title'),
    refused('openSide', 'a title over 200 characters', (w) => w.alice.openSide({ parent: 'general', title: 't'.repeat(201) }), 'INVALID_INPUT', 'title'),
    refused('openSide', 'a from_event that is not a ULID', (w) => w.alice.openSide({ parent: 'general', title: 't', from_event: 'abc' }), 'INVALID_INPUT', 'from_event'),
    refused('openSide', 'an unknown from_event', (w) => w.alice.openSide({ parent: 'general', title: 't', from_event: UNKNOWN_ID }), 'NOT_FOUND', 'from_event'),
    refused('openSide', 'a from_event in a DM of others', (w) => w.carol.openSide({ parent: 'general', title: 't', from_event: w.dmEvent }), 'NOT_FOUND', 'from_event'),
    refused('openSide', 'a DM as parent', (w) => w.alice.openSide({ parent: w.dmThread, title: 't' }), 'INVALID_INPUT', 'parent'),
    refused('openSide', 'an unknown member', (w) => w.alice.openSide({ parent: 'general', title: 't', members: ['nobody'] }), 'NOT_FOUND', 'members.0'),
    refused('openSide', 'a closed parent', (w) => w.alice.openSide({ parent: w.closedSide, title: 't' }), 'THREAD_CLOSED', 'parent'),
    refused('closeSide', 'a missing summary', (w) => w.alice.closeSide(bad({ thread: w.side })), 'INVALID_INPUT', 'summary'),
    refused('closeSide', 'a summary of the wrong type', (w) => w.alice.closeSide(bad({ thread: w.side, summary: 42 })), 'INVALID_INPUT', 'summary'),
    refused('closeSide', 'a blank summary', (w) => w.alice.closeSide({ thread: w.side, summary: '  ' }), 'INVALID_INPUT', 'summary'),
    refused('closeSide', 'a summary over maxInputChars', (w) => w.alice.closeSide({ thread: w.side, summary: LONG_TEXT }), 'PAYLOAD_TOO_LARGE', 'summary'),
    refused('closeSide', 'a channel that is not a side channel', (w) => w.alice.closeSide({ thread: 'general', summary: 's' }), 'INVALID_INPUT', 'thread'),
    refused('closeSide', 'an already closed side channel', (w) => w.alice.closeSide({ thread: w.closedSide, summary: 's' }), 'THREAD_CLOSED', 'thread'),
    refused('subscribe', 'a thread of the wrong type', (w) => w.alice.subscribe(bad(42)), 'INVALID_INPUT', 'thread'),
    refused('mute', 'an empty thread', (w) => w.alice.mute(''), 'INVALID_INPUT', 'thread'),
    refused('unsubscribe', 'a thread over 200 characters', (w) => w.alice.unsubscribe('t'.repeat(201)), 'INVALID_INPUT', 'thread'),
  ]);
});

describe('bad input - reading and the inbox', () => {
  refusals([
    refused('readNew', 'a missing thread', (w) => w.alice.readNew(bad({})), 'INVALID_INPUT', 'thread'),
    refused('readNew', 'a negative limit', (w) => w.alice.readNew({ thread: 'general', limit: -1 }), 'INVALID_INPUT', 'limit'),
    refused('readNew', 'a limit of the wrong type', (w) => w.alice.readNew(bad({ thread: 'general', limit: 'x' })), 'INVALID_INPUT', 'limit'),
    refused('history', 'a negative before', (w) => w.alice.history({ thread: 'general', before: -1 }), 'INVALID_INPUT', 'before'),
    refused('history', 'an after of the wrong type', (w) => w.alice.history(bad({ thread: 'general', after: 'x' })), 'INVALID_INPUT', 'after'),
    refused('history', 'a fractional limit', (w) => w.alice.history({ thread: 'general', limit: 1.5 }), 'INVALID_INPUT', 'limit'),
    refused('history', 'a limit over the maximum', (w) => w.alice.history({ thread: 'general', limit: 1001 }), 'INVALID_INPUT', 'limit', NAMES_MAX_1000),
    refused('search', 'a missing query', (w) => w.alice.search(bad({})), 'INVALID_INPUT', 'query'),
    refused('search', 'a query of the wrong type', (w) => w.alice.search(bad({ query: 42 })), 'INVALID_INPUT', 'query'),
    refused('search', 'an empty query', (w) => w.alice.search({ query: ' ' }), 'INVALID_INPUT', 'query'),
    refused('search', 'a query without words', (w) => w.alice.search({ query: '!!! ***' }), 'INVALID_INPUT', 'query'),
    refused('search', 'a query over 500 characters', (w) => w.alice.search({ query: 'q'.repeat(501) }), 'INVALID_INPUT', 'query'),
    refused('search', 'a negative limit', (w) => w.alice.search({ query: 'hello', limit: -1 }), 'INVALID_INPUT', 'limit'),
    refused('inbox', 'a negative limit', (w) => w.bob.inbox({ limit: -1 }), 'INVALID_INPUT', 'limit'),
    refused('inbox', 'a limit of the wrong type', (w) => w.bob.inbox(bad({ limit: 'x' })), 'INVALID_INPUT', 'limit'),
    refused('inbox', 'a limit over 500', (w) => w.bob.inbox({ limit: 501 }), 'INVALID_INPUT', 'limit'),
    refused('inbox', 'input that is not an object', (w) => w.bob.inbox(bad(null)), 'INVALID_INPUT', '(input)'),
    refused('peek', 'a negative limit', (w) => w.bob.peek({ limit: -1 }), 'INVALID_INPUT', 'limit'),
    refused('peek', 'a limit of the wrong type', (w) => w.bob.peek(bad({ limit: 'x' })), 'INVALID_INPUT', 'limit'),
    refused('wait', 'timeout_ms over inbox.maxWaitTimeoutMs', (w) => w.bob.wait({ timeout_ms: MAX_WAIT_MS + 1 }), 'INVALID_INPUT', 'timeout_ms', new RegExp(`${MAX_WAIT_MS}`)),
    refused('wait', 'a negative timeout_ms', (w) => w.bob.wait({ timeout_ms: -1 }), 'INVALID_INPUT', 'timeout_ms'),
    refused('wait', 'a timeout_ms of the wrong type', (w) => w.bob.wait(bad({ timeout_ms: 'soon' })), 'INVALID_INPUT', 'timeout_ms'),
    refused('wait', 'a limit of zero', (w) => w.bob.wait({ timeout_ms: 0, limit: 0 }), 'INVALID_INPUT', 'limit'),
    refused('ack', 'missing ids', (w) => w.bob.ack(bad({})), 'INVALID_INPUT', 'ids'),
    refused('ack', 'ids of the wrong type', (w) => w.bob.ack(bad({ ids: 'x' })), 'INVALID_INPUT', 'ids'),
    refused('ack', 'an empty ids list', (w) => w.bob.ack({ ids: [] }), 'INVALID_INPUT', 'ids'),
    refused('ack', 'an id that is not a ULID', (w) => w.bob.ack({ ids: [w.dmEvent, 'abc'] }), 'INVALID_INPUT', 'ids.1'),
    refused('ack', 'an unknown id', (w) => w.bob.ack({ ids: [UNKNOWN_ID] }), 'NOT_FOUND', 'ids.0'),
    refused('ack', 'an unknown id after a valid one', (w) => w.bob.ack({ ids: [w.dmEvent, UNKNOWN_ID] }), 'NOT_FOUND', 'ids.1'),
    refused('ack', 'an id of another session', (w) => w.bob.ack({ ids: [w.foreignEvent] }), 'NOT_FOUND', 'ids.0'),
    refused('ack', 'an id in a DM of others', (w) => w.carol.ack({ ids: [w.dmEvent] }), 'NOT_FOUND', 'ids.0'),
    refused('deliveries', 'an unknown state', (w) => w.bob.deliveries(bad('bogus')), 'INVALID_INPUT', 'state'),
    refused('deliveries', 'a negative limit', (w) => w.bob.deliveries('delivered', -1), 'INVALID_INPUT', 'limit'),
    refused('deliveries', 'a limit of the wrong type', (w) => w.bob.deliveries('delivered', bad('x')), 'INVALID_INPUT', 'limit'),
    refused('live', 'a thread of the wrong type', (w) => liveWith(w.alice, { thread: 42 }), 'INVALID_INPUT', 'thread'),
    refused('live', 'a negative since', (w) => liveWith(w.alice, { since: -1 }), 'INVALID_INPUT', 'since'),
    refused('live', 'a since of the wrong type', (w) => liveWith(w.alice, { since: 'x' }), 'INVALID_INPUT', 'since'),
    refused('live', 'an inbox flag of the wrong type', (w) => liveWith(w.alice, { inbox: 'yes' }), 'INVALID_INPUT', 'inbox'),
  ]);
});

describe('bad input - control, for every control kind', () => {
  const on = (control: unknown) => (w: World) => w.alice.control('general', bad(control));
  refusals([
    refused('control', 'a thread of the wrong type', (w) => w.alice.control(bad(42), { done: true }), 'INVALID_INPUT', 'thread'),
    refused('control', 'a control that is not an object', on('pause'), 'INVALID_INPUT', 'control', LISTS_KINDS),
    refused('control', 'a null control', on(null), 'INVALID_INPUT', 'control', LISTS_KINDS),
    refused('control', 'an empty control', on({}), 'INVALID_INPUT', 'control', LISTS_KINDS),
    refused('control', 'an unknown control kind', on({ explode: true }), 'INVALID_INPUT', 'control', LISTS_KINDS),
    refused('control', 'two control kinds at once', on({ done: true, pause: { on: true } }), 'INVALID_INPUT', 'control', LISTS_KINDS),
    refused('control mute', 'targets of the wrong type', on({ mute: { targets: 'bob' } }), 'INVALID_INPUT', 'control.mute.targets'),
    refused('control mute', 'empty targets', on({ mute: { targets: [] } }), 'INVALID_INPUT', 'control.mute.targets'),
    refused('control mute', 'an invalid target handle', on({ mute: { targets: ['no spaces!'] } }), 'INVALID_INPUT', 'control.mute.targets.0'),
    refused('control mute', 'an unknown target', on({ mute: { targets: ['bob', 'nobody'] } }), 'NOT_FOUND', 'control.mute.targets.1'),
    refused('control mute', 'a target of another session', on({ mute: { targets: ['olga'] } }), 'NOT_FOUND', 'control.mute.targets.0'),
    refused('control mute', 'a mode other than hard', on({ mute: { targets: ['bob'], mode: 'soft' } }), 'INVALID_INPUT', 'control.mute.mode'),
    refused('control mute', 'a mute in a DM', (w) => w.alice.control(w.dmThread, { mute: { targets: ['bob'] } }), 'INVALID_INPUT', 'control'),
    refused('control unmute', 'missing targets', on({ unmute: {} }), 'INVALID_INPUT', 'control.unmute.targets'),
    refused('control unmute', 'empty targets', on({ unmute: { targets: [] } }), 'INVALID_INPUT', 'control.unmute.targets'),
    refused('control unmute', 'an invalid target handle', on({ unmute: { targets: ['no spaces!'] } }), 'INVALID_INPUT', 'control.unmute.targets.0'),
    refused('control unmute', 'an unknown target', on({ unmute: { targets: ['nobody'] } }), 'NOT_FOUND', 'control.unmute.targets.0'),
    refused('control pause', 'on of the wrong type', on({ pause: { on: 'yes' } }), 'INVALID_INPUT', 'control.pause.on'),
    refused('control pause', 'a missing on', on({ pause: {} }), 'INVALID_INPUT', 'control.pause.on'),
    refused('control pause', 'a boolean instead of an object', on({ pause: true }), 'INVALID_INPUT', 'control.pause'),
    refused('control prod', 'targets of the wrong type', on({ prod: 'bob' }), 'INVALID_INPUT', 'control.prod'),
    refused('control prod', 'empty targets', on({ prod: [] }), 'INVALID_INPUT', 'control.prod'),
    refused('control prod', 'an invalid target handle', on({ prod: ['no spaces!'] }), 'INVALID_INPUT', 'control.prod.0'),
    refused('control prod', 'an unknown target', on({ prod: ['nobody'] }), 'NOT_FOUND', 'control.prod.0'),
    refused('control done', 'a value of the wrong type', on({ done: 'yes' }), 'INVALID_INPUT', 'control.done'),
    refused('control ttl_seconds', 'zero', on({ ttl_seconds: 0 }), 'INVALID_INPUT', 'control.ttl_seconds'),
    refused('control ttl_seconds', 'a fraction', on({ ttl_seconds: 1.5 }), 'INVALID_INPUT', 'control.ttl_seconds'),
    refused('control ttl_seconds', 'a value of the wrong type', on({ ttl_seconds: '60' }), 'INVALID_INPUT', 'control.ttl_seconds'),
    refused('control ttl_seconds', 'more than a year', on({ ttl_seconds: 365 * 24 * 3600 + 1 }), 'INVALID_INPUT', 'control.ttl_seconds'),
    refused('control discussion', 'a missing on', on({ discussion: {} }), 'INVALID_INPUT', 'control.discussion.on'),
    refused('control discussion', 'allow_agent_mentions of the wrong type', on({ discussion: { on: true, allow_agent_mentions: 'x' } }), 'INVALID_INPUT', 'control.discussion.allow_agent_mentions'),
    refused('control invited_auto', 'on of the wrong type', on({ invited_auto: { on: 1 } }), 'INVALID_INPUT', 'control.invited_auto.on'),
    refused('control invite', 'a missing participant_id', on({ invite: {} }), 'INVALID_INPUT', 'control.invite.participant_id'),
    refused('control invite', 'an invalid handle', on({ invite: { participant_id: 'no spaces!' } }), 'INVALID_INPUT', 'control.invite.participant_id'),
    refused('control invite', 'an unknown profile kind', on({ invite: { participant_id: 'zoe', profile: { kind: 'robot' } } }), 'INVALID_INPUT', 'control.invite.profile.kind'),
    refused('control invite', 'an invite in a DM', (w) => w.alice.control(w.dmThread, { invite: { participant_id: 'carol' } }), 'INVALID_INPUT', 'control'),
    refused('hardMute', 'no targets', (w) => w.alice.hardMute('general', []), 'INVALID_INPUT', 'control.mute.targets'),
    refused('prod', 'an unknown target', (w) => w.alice.prod('general', ['nobody']), 'NOT_FOUND', 'control.prod.0'),
    refused('invite', 'an invalid handle', (w) => w.alice.invite('general', 'no spaces!'), 'INVALID_INPUT', 'control.invite.participant_id'),
  ]);
});

describe('bad input - requests and presence', () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  refusals([
    refused('request', 'a missing to', (w) => w.alice.request(bad({ intent: 'look' })), 'INVALID_INPUT', 'to'),
    refused('request', 'an invalid to handle', ask({ to: 'no spaces!' }), 'INVALID_INPUT', 'to'),
    refused('request', 'an unknown to handle', ask({ to: 'nobody' }), 'NOT_FOUND', 'to'),
    refused('request', 'a to handle of another session', ask({ to: 'olga' }), 'NOT_FOUND', 'to'),
    refused('request', 'a request to oneself', ask({ to: 'alice' }), 'INVALID_INPUT', 'to'),
    refused('request', 'a missing intent', (w) => w.alice.request(bad({ to: 'bob' })), 'INVALID_INPUT', 'intent'),
    refused('request', 'an intent of the wrong type', ask({ intent: 42 }), 'INVALID_INPUT', 'intent'),
    refused('request', 'an empty intent', ask({ intent: '  ' }), 'INVALID_INPUT', 'intent'),
    refused('request', 'an intent over 128 characters', ask({ intent: 'i'.repeat(129) }), 'INVALID_INPUT', 'intent'),
    refused('request', 'params over requests.maxParamsBytes', ask({ params: { blob: 'p'.repeat(MAX_PARAMS_BYTES) } }), 'PAYLOAD_TOO_LARGE', 'params', /file/),
    refused('request', 'params that are not JSON (a BigInt)', ask({ params: { n: 1n } }), 'INVALID_INPUT', 'params'),
    refused('request', 'params that are not JSON (circular)', ask({ params: circular }), 'INVALID_INPUT', 'params'),
    refused('request', 'text of the wrong type', ask({ text: 42 }), 'INVALID_INPUT', 'text'),
    refused('request', 'text over maxInputChars', ask({ text: LONG_TEXT }), 'PAYLOAD_TOO_LARGE', 'text'),
    refused('request', 'an invalid request_id', ask({ request_id: 'short' }), 'INVALID_INPUT', 'request_id'),
    refused('request', 'a request_id already used', (w) => w.alice.request({ to: 'bob', intent: 'look', request_id: w.openRequest }), 'CONFLICT', 'request_id'),
    refused('request', 'an unknown reply_to', ask({ reply_to: 'no-such-request' }), 'NOT_FOUND', 'reply_to'),
    refused('request', 'a reply_to of another session', (w) => w.alice.request({ to: 'bob', intent: 'look', reply_to: w.foreignRequest }), 'NOT_FOUND', 'reply_to'),
    refused('respond', 'a missing request_id', (w) => w.bob.respond(bad({ status: 'Completed' })), 'INVALID_INPUT', 'request_id'),
    refused('respond', 'an empty request_id', (w) => w.bob.respond({ request_id: ' ', status: 'Completed' }), 'INVALID_INPUT', 'request_id'),
    refused('respond', 'an unknown request id', (w) => w.bob.respond({ request_id: 'no-such-request', status: 'Completed' }), 'NOT_FOUND', 'request_id'),
    refused('respond', 'a request of another session', (w) => w.bob.respond({ request_id: w.foreignRequest, status: 'Completed' }), 'NOT_FOUND', 'request_id'),
    refused('respond', 'a request addressed to someone else', (w) => w.carol.respond({ request_id: w.channelRequest, status: 'Completed' }), 'FORBIDDEN', 'request_id'),
    refused('respond', 'a request in a DM of two others', (w) => w.carol.respond({ request_id: w.openRequest, status: 'Completed' }), 'NOT_FOUND', 'request_id'),
    refused('respond', 'a response by the requester', (w) => w.alice.respond({ request_id: w.openRequest, status: 'Completed' }), 'FORBIDDEN', 'request_id'),
    refused('respond', 'a second response after a terminal status', (w) => w.bob.respond({ request_id: w.closedRequest, status: 'Failed' }), 'REQUEST_CLOSED', 'request_id'),
    refused('respond', 'an unknown status', (w) => w.bob.respond(bad({ request_id: w.openRequest, status: 'done' })), 'INVALID_INPUT', 'status'),
    refused('respond', 'a missing status', (w) => w.bob.respond(bad({ request_id: w.openRequest })), 'INVALID_INPUT', 'status'),
    refused('respond', 'text of the wrong type', (w) => w.bob.respond(bad({ request_id: w.openRequest, status: 'Accepted', text: 42 })), 'INVALID_INPUT', 'text'),
    refused('respond', 'text over maxInputChars', (w) => w.bob.respond({ request_id: w.openRequest, status: 'Accepted', text: LONG_TEXT }), 'PAYLOAD_TOO_LARGE', 'text'),
    refused('respond', 'a result over requests.maxParamsBytes', (w) => w.bob.respond({ request_id: w.openRequest, status: 'Accepted', result: { blob: 'r'.repeat(MAX_PARAMS_BYTES) } }), 'PAYLOAD_TOO_LARGE', 'result'),
    refused('setPresence', 'an unknown state', (w) => w.alice.setPresence(bad({ state: 'asleep' })), 'INVALID_INPUT', 'state'),
    refused('setPresence', 'a missing state', (w) => w.alice.setPresence(bad({})), 'INVALID_INPUT', 'state'),
    refused('setPresence', 'a negative seq', (w) => w.alice.setPresence({ state: 'idle', seq: -1 }), 'INVALID_INPUT', 'seq'),
    refused('setPresence', 'a seq of the wrong type', (w) => w.alice.setPresence(bad({ state: 'idle', seq: 'x' })), 'INVALID_INPUT', 'seq'),
    refused('setPresence', 'a note over 200 characters', (w) => w.alice.setPresence({ state: 'idle', note: 'n'.repeat(201) }), 'INVALID_INPUT', 'note'),
  ]);
});

describe('bad input - meetings', () => {
  const BAD_NAME = 'no spaces!';
  refusals([
    refused('meetingJoin', 'an invalid meeting name', (w) => w.alice.meetingJoin(BAD_NAME), 'INVALID_INPUT', 'meeting'),
    refused('meetingJoin', 'a meeting name of the wrong type', (w) => w.alice.meetingJoin(bad(42)), 'INVALID_INPUT', 'meeting'),
    refused('meetingJoin', 'a meeting name over 64 characters', (w) => w.alice.meetingJoin('m'.repeat(65)), 'INVALID_INPUT', 'meeting'),
    refused('meetingJoin', 'an empty meeting name', (w) => w.alice.meetingJoin(''), 'INVALID_INPUT', 'meeting'),
    refused('meetingLeave', 'an invalid meeting name', (w) => w.alice.meetingLeave(BAD_NAME), 'INVALID_INPUT', 'meeting'),
    refused('meetingLeave', 'a meeting that does not exist', (w) => w.alice.meetingLeave('nosuch'), 'NOT_FOUND', 'meeting'),
    refused('meetingSay', 'an invalid meeting name', (w) => w.alice.meetingSay(BAD_NAME, 'hi'), 'INVALID_INPUT', 'meeting'),
    refused('meetingSay', 'text of the wrong type', (w) => w.alice.meetingSay('standup', bad(42)), 'INVALID_INPUT', 'text'),
    refused('meetingSay', 'a blank text', (w) => w.alice.meetingSay('standup', '  '), 'INVALID_INPUT', 'text'),
    refused('meetingSay', 'text over maxInputChars', (w) => w.alice.meetingSay('fresh-meeting', LONG_TEXT), 'PAYLOAD_TOO_LARGE', 'text'),
    refused('meetingHear', 'an invalid meeting name', (w) => w.alice.meetingHear({ meeting: BAD_NAME }), 'INVALID_INPUT', 'meeting'),
    refused('meetingHear', 'a missing meeting', (w) => w.alice.meetingHear(bad({})), 'INVALID_INPUT', 'meeting'),
    refused('meetingHear', 'a meeting that does not exist', (w) => w.alice.meetingHear({ meeting: 'nosuch' }), 'NOT_FOUND', 'meeting'),
    refused('meetingHear', 'a meeting of another session', (w) => w.alice.meetingHear({ meeting: 'retro' }), 'NOT_FOUND', 'meeting'),
    refused('meetingHear', 'a negative last_heard', (w) => w.alice.meetingHear({ meeting: 'standup', last_heard: -1 }), 'INVALID_INPUT', 'last_heard'),
    refused('meetingHear', 'a limit of the wrong type', (w) => w.alice.meetingHear(bad({ meeting: 'standup', limit: 'x' })), 'INVALID_INPUT', 'limit'),
    refused('meetingWho', 'an invalid meeting name', (w) => w.alice.meetingWho(BAD_NAME), 'INVALID_INPUT', 'meeting'),
    refused('meetingWho', 'a meeting that does not exist', (w) => w.alice.meetingWho('nosuch'), 'NOT_FOUND', 'meeting'),
    refused('meetingStatus', 'an invalid meeting name', (w) => w.alice.meetingStatus(BAD_NAME), 'INVALID_INPUT', 'meeting'),
    refused('meetingStatus', 'a meeting that does not exist', (w) => w.alice.meetingStatus('nosuch'), 'NOT_FOUND', 'meeting'),
    refused('meetingStatus', 'a negative last_heard', (w) => w.alice.meetingStatus('standup', -1), 'INVALID_INPUT', 'last_heard'),
  ]);
});

/** An unknown extra key is refused naming the key itself (with its path), not the whole input. */
describe('bad input - unknown extra keys (inputs are strict)', () => {
  const x = { bogus: 1 };
  refusals([
    refused('join', 'an unknown key', (w) => w.hub.join(bad({ handle: 'zoe', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('join', 'an unknown profile key', (w) => w.hub.join(bad({ handle: 'zoe', profile: x })), 'INVALID_INPUT', 'profile.bogus', /bogus/),
    refused('post', 'an unknown key', (w) => w.alice.post(bad({ thread: 'general', text: 'hi', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('dm', 'an unknown key', (w) => w.alice.dm(bad({ to: 'bob', text: 'hi', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('createChannel', 'an unknown key', (w) => w.alice.createChannel(bad({ name: 'fresh', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('renameThread', 'an unknown key', (w) => w.alice.renameThread(bad({ thread: 'ops', name: 'ops2', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('openSide', 'an unknown key', (w) => w.alice.openSide(bad({ parent: 'general', title: 't', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('closeSide', 'an unknown key', (w) => w.alice.closeSide(bad({ thread: w.side, summary: 's', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('readNew', 'an unknown key', (w) => w.alice.readNew(bad({ thread: 'general', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('history', 'an unknown key', (w) => w.alice.history(bad({ thread: 'general', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('search', 'an unknown key', (w) => w.alice.search(bad({ query: 'hello', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('inbox', 'an unknown key', (w) => w.bob.inbox(bad(x)), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('peek', 'an unknown key', (w) => w.bob.peek(bad(x)), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('wait', 'an unknown key', (w) => w.bob.wait(bad({ timeout_ms: 0, ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('ack', 'an unknown key', (w) => w.bob.ack(bad({ ids: [w.dmEvent], ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('live', 'an unknown key', (w) => liveWith(w.alice, x), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('control', 'an unknown key inside pause', (w) => w.alice.control('general', bad({ pause: { on: true, ...x } })), 'INVALID_INPUT', 'control.pause.bogus', /bogus/),
    refused('control', 'an unknown key inside mute', (w) => w.alice.control('general', bad({ mute: { targets: ['bob'], ...x } })), 'INVALID_INPUT', 'control.mute.bogus', /bogus/),
    refused('request', 'an unknown key', ask(x), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('respond', 'an unknown key', (w) => w.bob.respond(bad({ request_id: w.openRequest, status: 'Accepted', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('setPresence', 'an unknown key', (w) => w.alice.setPresence(bad({ state: 'idle', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
    refused('meetingHear', 'an unknown key', (w) => w.alice.meetingHear(bad({ meeting: 'standup', ...x })), 'INVALID_INPUT', 'bogus', /bogus/),
  ]);
});

/**
 * Text that is not text: a NUL, other control characters and unpaired
 * surrogates are refused in every field of author text, naming the field
 * (they were stored verbatim or rewritten before); tab, line breaks, CRLF and
 * format characters such as a bidi override are text and are stored as sent.
 */
describe('bad input - control characters and unpaired surrogates in author text', () => {
  const NUL = 'a\u0000b';
  const LONE = 'a\ud800b';
  const ESC = 'red \u001b[31malert';
  const LONE_CR = 'progress 10%\rprogress 99%';
  const C1 = 'next line\u0085';
  const DEL = 'rub\u007fout';
  refusals([
    refused('post', 'a NUL in text', (w) => w.alice.post({ thread: 'general', text: NUL }), 'INVALID_INPUT', 'text', /U\+0000/),
    refused('post', 'an unpaired surrogate in text', (w) => w.alice.post({ thread: 'general', text: LONE }), 'INVALID_INPUT', 'text', /unpaired surrogate U\+D800/),
    refused('post', 'a terminal escape in text', (w) => w.alice.post({ thread: 'general', text: ESC }), 'INVALID_INPUT', 'text', /U\+001B/),
    refused('post', 'a lone carriage return in text', (w) => w.alice.post({ thread: 'general', text: LONE_CR }), 'INVALID_INPUT', 'text', /carriage return/),
    refused('post', 'a C1 control in text', (w) => w.alice.post({ thread: 'general', text: C1 }), 'INVALID_INPUT', 'text', /U\+0085/),
    refused('post', 'DEL in text', (w) => w.alice.post({ thread: 'general', text: DEL }), 'INVALID_INPUT', 'text', /U\+007F/),
    refused('post', 'a NUL in a tag', (w) => w.alice.post({ thread: 'general', text: 'hi', tags: ['ok', NUL] }), 'INVALID_INPUT', 'tags.1'),
    refused('post', 'a NUL in the thread name', (w) => w.alice.post({ thread: `general${NUL}`, text: 'hi' }), 'INVALID_INPUT', 'thread'),
    refused('dm', 'an unpaired surrogate in text', (w) => w.alice.dm({ to: 'bob', text: 'x\udfff' }), 'INVALID_INPUT', 'text', /U\+DFFF/),
    refused('renameThread', 'a NUL in a side title', (w) => w.alice.renameThread({ thread: w.side, name: NUL }), 'INVALID_INPUT', 'name'),
    refused('openSide', 'a NUL in the title', (w) => w.alice.openSide({ parent: 'general', title: NUL }), 'INVALID_INPUT', 'title', /U\+0000/),
    refused('openSide', 'an unpaired surrogate in the title', (w) => w.alice.openSide({ parent: 'general', title: LONE }), 'INVALID_INPUT', 'title'),
    refused('closeSide', 'a NUL in the summary', (w) => w.alice.closeSide({ thread: w.side, summary: NUL }), 'INVALID_INPUT', 'summary'),
    refused('request', 'a NUL in the intent', ask({ intent: NUL }), 'INVALID_INPUT', 'intent'),
    refused('request', 'an unpaired surrogate in text', ask({ text: LONE }), 'INVALID_INPUT', 'text'),
    refused('request', 'a NUL in a string inside params', ask({ params: { files: ['a.ts', NUL] } }), 'INVALID_INPUT', 'params.files.1', /U\+0000/),
    refused('request', 'an unpaired surrogate in a key of params', ask({ params: { nested: { [LONE]: 1 } } }), 'INVALID_INPUT', 'params.nested', /key/),
    refused('request', 'a NUL in reply_to', ask({ reply_to: NUL }), 'INVALID_INPUT', 'reply_to'),
    refused('respond', 'a NUL in text', (w) => w.bob.respond({ request_id: w.openRequest, status: 'Accepted', text: NUL }), 'INVALID_INPUT', 'text'),
    refused('respond', 'an unpaired surrogate inside result', (w) => w.bob.respond({ request_id: w.openRequest, status: 'Completed', result: { out: LONE } }), 'INVALID_INPUT', 'result.out'),
    refused('setPresence', 'a NUL in the note', (w) => w.alice.setPresence({ state: 'idle', note: NUL }), 'INVALID_INPUT', 'note'),
    refused('meetingSay', 'a NUL in text', (w) => w.alice.meetingSay('standup', NUL), 'INVALID_INPUT', 'text'),
    refused('meetingJoin', 'a NUL in the meeting name', (w) => w.alice.meetingJoin(`standup${NUL}`), 'INVALID_INPUT', 'meeting'),
    refused('join', 'a NUL in the nickname', (w) => w.hub.join({ handle: 'zoe', profile: { nickname: NUL } }), 'INVALID_INPUT', 'profile.nickname'),
    refused('join', 'a line break in the nickname', (w) => w.hub.join({ handle: 'zoe', profile: { nickname: 'dave\n(human)' } }), 'INVALID_INPUT', 'profile.nickname', /one line/),
    refused('updateProfile', 'an unpaired surrogate in the model', (w) => w.alice.updateProfile({ model: LONE }), 'INVALID_INPUT', 'profile.model'),
    refused('updateProfile', 'a NUL in the client', (w) => w.alice.updateProfile({ client: NUL }), 'INVALID_INPUT', 'profile.client'),
    refused('join', 'a C1 control in a role', (w) => w.hub.join({ handle: 'zoe', profile: { roles: ['reviewer', C1] } }), 'INVALID_INPUT', 'profile.roles.1'),
    refused('control invite', 'a NUL in the invitee’s nickname', (w) => w.alice.control('general', { invite: { participant_id: 'zoe', profile: { nickname: NUL } } }), 'INVALID_INPUT', 'control.invite.profile.nickname'),
  ]);

  it('text - tab, CRLF, line breaks, astral characters and a bidi override are text, stored as sent', async () => {
    const text = 'col\tcol\r\nsecond line\nemoji \u{1F600} and \u202Ereversed\u202C';
    const posted = await w.alice.post({ thread: 'general', text });
    const events = (await w.bob.history({ thread: 'general', limit: 5 })).events;
    expect(events.find((e) => e.id === posted.id)?.content).toBe(text);
  });
});
