import { describe } from 'vitest';
import { ask, bad, badInputWorldForFile, LONG_TEXT, MAX_PARAMS_BYTES, refused } from './bad-input-world.js';

/** Bad input to requests, presence and meetings: refused naming the field, nothing stored (see bad-input-world.ts). */
const { refusals } = badInputWorldForFile();

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
