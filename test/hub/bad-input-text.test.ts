import { describe, expect, it } from 'vitest';
import { ask, bad, badInputWorldForFile, liveWith, refused } from './bad-input-world.js';

/** Inputs are strict, and author text is text: unknown keys, control characters and unpaired surrogates are refused naming the field (see bad-input-world.ts). */
const { refusals, world } = badInputWorldForFile();

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
    const w = world();
    const posted = await w.alice.post({ thread: 'general', text });
    const events = (await w.bob.history({ thread: 'general', limit: 5 })).events;
    expect(events.find((e) => e.id === posted.id)?.content).toBe(text);
  });
});
