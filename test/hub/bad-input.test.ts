import { describe } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { bad, badInputWorldForFile, LISTS_KINDS, liveWith, LONG_TEXT, MAX_WAIT_MS, NAMES_MAX_1000, refused, UNKNOWN_ID, type World } from './bad-input-world.js';

/**
 * Bad input at every library entry point: each call is refused with the right
 * code, names the field at fault, and leaves the store (and the meeting
 * registry) exactly as it was. Requests, meetings and author text are in
 * bad-input-requests.test.ts and bad-input-text.test.ts.
 */
const { refusals } = badInputWorldForFile();

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
