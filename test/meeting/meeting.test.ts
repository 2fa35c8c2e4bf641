import { describe, expect, it } from 'vitest';
import { DEFAULT_MEETING_MAX_MESSAGE_CHARS, TRUNCATION_MARKER } from '../../src/config/defaults.js';
import { Meeting } from '../../src/meeting/meeting.js';
import { refusal } from '../helpers/refusal.js';
import { alice, bob, carol } from './participants.js';

function meeting(options: { ringSize?: number; maxParticipants?: number; maxMessageChars?: number } = {}): Meeting {
  return new Meeting({ id: 'm_test', name: 'standup', sessionId: 's1', createdAt: 0, ...options });
}

describe('Meeting', () => {
  it('meeting - content over 1024 chars is truncated with the marker and flagged', () => {
    const m = meeting();
    expect(m.maxMessageChars).toBe(DEFAULT_MEETING_MAX_MESSAGE_CHARS);
    const long = m.say(alice, 'x'.repeat(5000), 1);
    expect(long.truncated).toBe(true);
    expect(long.message.content).toHaveLength(1024);
    expect(long.message.content.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(long.message.content.endsWith(' … [truncated]')).toBe(true);
    expect(long.message.content.startsWith('x'.repeat(1024 - TRUNCATION_MARKER.length))).toBe(true);
    // What others hear is the truncated text.
    expect(m.hear(0, bob.id).messages[0]?.content).toBe(long.message.content);

    const exact = m.say(alice, 'y'.repeat(1024), 2);
    expect(exact.truncated).toBe(false);
    expect(exact.message.content).toBe('y'.repeat(1024));
    const short = m.say(alice, 'hello', 3);
    expect([short.truncated, short.message.content]).toEqual([false, 'hello']);
  });

  it('meeting - maxMessageChars is configurable', () => {
    const m = meeting({ maxMessageChars: 40 });
    const said = m.say(alice, 'a'.repeat(41), 1);
    expect(said.truncated).toBe(true);
    expect(said.message.content).toBe('a'.repeat(40 - TRUNCATION_MARKER.length) + TRUNCATION_MARKER);
  });

  it('meeting - the 33rd participant is refused with MEETING_FULL and nothing changes', () => {
    const m = meeting();
    for (let i = 1; i <= 32; i++) m.join({ id: `a_${i}`, handle: `agent${i}` }, i);
    const before = m.who();
    expect(before).toHaveLength(32);
    const error = refusal(() => m.join({ id: 'a_33', handle: 'agent33' }, 33));
    expect(error.code).toBe('MEETING_FULL');
    expect(error.message).toContain('32 of 32');
    expect(error.message).toContain('leave');
    expect(error.details).toEqual({ active: 32, maxParticipants: 32 });
    expect(m.who()).toEqual(before);
    expect(m.isMember('a_33')).toBe(false);
    expect(m.status(0, 'a_1').active).toBe(32);
    // A member already in may "join" again while full.
    expect(m.join({ id: 'a_7', handle: 'agent7' }, 99).joinedAt).toBe(7);
    // Once someone leaves, there is room.
    expect(m.leave('a_1')).toBe(true);
    expect(m.join({ id: 'a_33', handle: 'agent33' }, 34).joinedAt).toBe(34);
    expect(m.who()).toHaveLength(32);
  });

  it('meeting - maxParticipants is configurable', () => {
    const m = meeting({ maxParticipants: 2 });
    m.join(alice, 1);
    m.join(bob, 2);
    const error = refusal(() => m.join(carol, 3));
    expect([error.code, error.message.includes('2 of 2')]).toEqual(['MEETING_FULL', true]);
  });

  it('meeting - join is idempotent and keeps the first joinedAt', () => {
    const m = meeting();
    expect(m.join({ ...alice, role: 'reviewer' }, 100)).toEqual({
      id: alice.id,
      handle: 'alice',
      role: 'reviewer',
      joinedAt: 100,
    });
    const again = m.join({ ...alice, role: 'other' }, 200);
    expect(again).toEqual({ id: alice.id, handle: 'alice', role: 'reviewer', joinedAt: 100 });
    expect(m.who()).toHaveLength(1);
    expect(m.active).toBe(1);
    // Returned entries are copies: mutating one does not change the meeting.
    again.joinedAt = 1;
    expect(m.who()[0]?.joinedAt).toBe(100);
  });

  it('meeting - leave reports whether the member was in', () => {
    const m = meeting();
    m.join(alice, 1);
    m.join(bob, 2);
    expect(m.leave(alice.id)).toBe(true);
    expect(m.leave(alice.id)).toBe(false);
    expect(m.leave('a_never')).toBe(false);
    expect(m.isMember(alice.id)).toBe(false);
    expect(m.isMember(bob.id)).toBe(true);
    expect(m.who().map((w) => w.id)).toEqual([bob.id]);
  });

  it('meeting - who lists members in join order with role and joinedAt', () => {
    const m = meeting();
    m.join(carol, 10);
    m.join({ ...alice, role: 'lead' }, 20);
    m.join(bob, 30);
    expect(m.who()).toEqual([
      { id: carol.id, handle: 'carol', role: null, joinedAt: 10 },
      { id: alice.id, handle: 'alice', role: 'lead', joinedAt: 20 },
      { id: bob.id, handle: 'bob', role: null, joinedAt: 30 },
    ]);
    // Leaving and rejoining puts a member at the end with a new joinedAt.
    m.leave(carol.id);
    m.join(carol, 40);
    expect(m.who().map((w) => [w.handle, w.joinedAt])).toEqual([
      ['alice', 20],
      ['bob', 30],
      ['carol', 40],
    ]);
  });

  it('meeting - status reports active members, oldest, latest and unread from others', () => {
    const m = meeting({ ringSize: 3 });
    expect(m.status(0, alice.id)).toEqual({ active: 0, oldest: 0, latest: 0, unread: 0 });
    m.join(alice, 1);
    m.join(bob, 1);
    m.say(alice, 'a1', 2);
    m.say(bob, 'b2', 3);
    m.say(bob, 'b3', 4);
    expect(m.status(0, alice.id)).toEqual({ active: 2, oldest: 1, latest: 3, unread: 2 });
    expect(m.status(0, bob.id)).toEqual({ active: 2, oldest: 1, latest: 3, unread: 1 });
    expect(m.status(2, alice.id)).toEqual({ active: 2, oldest: 1, latest: 3, unread: 1 });
    m.say(alice, 'a4', 5);
    // Message 1 is gone; bob's unread is clamped at the oldest retained.
    expect(m.status(0, bob.id)).toEqual({ active: 2, oldest: 2, latest: 4, unread: 1 });
    m.leave(bob.id);
    expect(m.status(3, bob.id)).toEqual({ active: 1, oldest: 2, latest: 4, unread: 1 });
  });

  it('meeting - hear without a number goes on from the line kept for the participant, and status counts from it', () => {
    const m = meeting();
    m.say(alice, 'one', 1);
    m.say(alice, 'two', 2);
    expect(m.status(undefined, bob.id).unread).toBe(2);
    expect(m.hear(undefined, bob.id).messages.map((x) => x.content)).toEqual(['one', 'two']);
    expect(m.lastHeardBy(bob.id)).toBe(2);
    // Heard twice: the second time only what is new, which is nothing.
    expect(m.hear(undefined, bob.id)).toEqual({ messages: [], messagesLost: false, lastHeard: 2 });
    expect(m.status(undefined, bob.id).unread).toBe(0);
    m.say(alice, 'three', 3);
    expect(m.status(undefined, bob.id).unread).toBe(1);
    expect(m.hear(undefined, bob.id).messages.map((x) => x.content)).toEqual(['three']);
    // Kept per participant: carol has heard nothing yet.
    expect(m.lastHeardBy(carol.id)).toBe(0);
    expect(m.hear(undefined, carol.id, 1).messages.map((x) => x.content)).toEqual(['one']);
    expect(m.hear(undefined, carol.id).messages.map((x) => x.content)).toEqual(['two', 'three']);
  });

  it('meeting - an explicit last_heard still works and never moves the kept line back', () => {
    const m = meeting();
    for (const [n, text] of ['one', 'two', 'three'].entries()) m.say(alice, text, n);
    expect(m.hear(undefined, bob.id).lastHeard).toBe(3);
    // Re-reading from the start returns everything, as before.
    expect(m.hear(0, bob.id, 1).messages.map((x) => x.content)).toEqual(['one']);
    expect(m.status(1, bob.id).unread).toBe(2);
    // …and what bob had heard stays heard.
    expect(m.lastHeardBy(bob.id)).toBe(3);
    expect(m.hear(undefined, bob.id).messages).toEqual([]);
    // A number ahead of the kept line moves it up: the caller says it heard that far.
    const fresh = meeting();
    for (const [n, text] of ['one', 'two', 'three'].entries()) fresh.say(alice, text, n);
    expect(fresh.hear(2, bob.id).messages.map((x) => x.content)).toEqual(['three']);
    expect(fresh.lastHeardBy(bob.id)).toBe(3);
  });

  it('meeting - the kept line survives leaving and rejoining', () => {
    const m = meeting();
    m.join(bob, 0);
    m.say(alice, 'one', 1);
    m.hear(undefined, bob.id);
    m.leave(bob.id);
    m.say(alice, 'two', 2);
    m.join(bob, 3);
    expect(m.hear(undefined, bob.id).messages.map((x) => x.content)).toEqual(['two']);
  });

  it('meeting - invalid limits are refused', () => {
    expect(refusal(() => meeting({ maxParticipants: 0 })).field).toBe('maxParticipants');
    expect(refusal(() => meeting({ maxMessageChars: -1 })).field).toBe('maxMessageChars');
    expect(refusal(() => meeting({ ringSize: 0 })).field).toBe('ringSize');
  });
});
