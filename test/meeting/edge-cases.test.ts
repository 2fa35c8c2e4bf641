// The seven edge cases of a meeting room, one test each, with Parley's defaults (ring of 100).

import { describe, expect, it } from 'vitest';
import { Meeting } from '../../src/meeting/meeting.js';
import { alice, bob } from './participants.js';

function meeting(): Meeting {
  return new Meeting({ id: 'm_test', name: 'standup', sessionId: 's1', createdAt: 0 });
}

describe('meeting edge cases', () => {
  it('meeting - edge 1: only participant hears nothing', () => {
    const m = meeting();
    m.join(alice, 1);
    // Before anyone said anything.
    expect(m.hear(0, alice.id)).toEqual({ messages: [], messagesLost: false, lastHeard: 0 });
    // After she spoke alone: still nothing to hear, but her position moves past her own message.
    m.say(alice, 'anyone here?', 2);
    expect(m.hear(0, alice.id, 1)).toEqual({ messages: [], messagesLost: false, lastHeard: 1 });
    expect(m.status(1, alice.id)).toEqual({ active: 1, oldest: 1, latest: 1, unread: 0 });
  });

  it('meeting - edge 2: reader behind the ring gets the oldest with messages_lost', () => {
    const m = meeting();
    m.join(alice, 1);
    m.join(bob, 1);
    for (let i = 1; i <= 50; i++) m.say(alice, `msg ${i}`, i);
    const caughtUp = m.hear(0, bob.id);
    expect(caughtUp.messages).toHaveLength(50);
    expect(caughtUp.lastHeard).toBe(50);
    // Bob does not hear for 150 messages; the ring (100) wraps past his position.
    for (let i = 51; i <= 200; i++) m.say(alice, `msg ${i}`, i);
    expect(m.ring.oldest).toBe(101);
    const one = m.hear(50, bob.id, 1);
    expect(one.messagesLost).toBe(true);
    expect(one.messages.map((x) => [x.number, x.content])).toEqual([[101, 'msg 101']]);
    expect(one.lastHeard).toBe(101);
    // He continues from there without a further loss.
    const rest = m.hear(one.lastHeard, bob.id);
    expect(rest.messagesLost).toBe(false);
    expect(rest.messages.map((x) => x.number)).toEqual(Array.from({ length: 99 }, (_, i) => 102 + i));
    expect(rest.lastHeard).toBe(200);
    // A reader exactly one behind the oldest lost nothing.
    expect(m.hear(100, bob.id, 1).messagesLost).toBe(false);
  });

  it('meeting - edge 3: rapid fire own messages are all skipped', () => {
    const m = meeting();
    m.join(alice, 1);
    m.join(bob, 1);
    for (let i = 1; i <= 10; i++) m.say(alice, `thought ${i}`, i);
    const heard = m.hear(0, alice.id);
    expect(heard).toEqual({ messages: [], messagesLost: false, lastHeard: 10 });
    // The one-message hear skips them too, and returns the position so they are not rescanned.
    expect(m.hear(0, alice.id, 1)).toEqual({ messages: [], messagesLost: false, lastHeard: 10 });
    expect(m.hear(10, alice.id)).toEqual({ messages: [], messagesLost: false, lastHeard: 10 });
    expect(m.status(0, alice.id).unread).toBe(0);
    expect(m.status(0, bob.id).unread).toBe(10);
  });

  it("meeting - edge 4: interleaved messages skip own and return the other's", () => {
    const m = meeting();
    m.join(alice, 1);
    m.join(bob, 1);
    m.say(alice, 'A', 10);
    m.say(bob, 'B', 11);
    const heard = m.hear(0, alice.id, 1);
    expect(heard.messagesLost).toBe(false);
    expect(heard.messages).toEqual([{ number: 2, speakerId: bob.id, speaker: 'bob', ts: 11, content: 'B' }]);
    expect(heard.lastHeard).toBe(2);
    // And Bob hears only Alice's.
    expect(m.hear(0, bob.id).messages.map((x) => x.content)).toEqual(['A']);
  });

  it('meeting - edge 5: hear(0) starts at the oldest', () => {
    const m = meeting();
    m.join(alice, 1);
    m.join(bob, 1);
    m.say(alice, 'first', 1);
    m.say(alice, 'second', 2);
    expect(m.hear(0, bob.id, 1).messages.map((x) => [x.number, x.content])).toEqual([[1, 'first']]);
    // After the ring wrapped, 0 still means "from the oldest retained", and is not a loss.
    for (let i = 3; i <= 130; i++) m.say(alice, `msg ${i}`, i);
    const heard = m.hear(0, bob.id, 1);
    expect(heard.messagesLost).toBe(false);
    expect(heard.messages.map((x) => x.number)).toEqual([31]);
    expect(m.hear(0, bob.id).messages).toHaveLength(100);
  });

  it('meeting - edge 6: 101st message overwrites the first and oldest becomes 2', () => {
    const m = meeting();
    m.join(alice, 1);
    for (let i = 1; i <= 100; i++) m.say(alice, `msg ${i}`, i);
    expect([m.ring.oldest, m.ring.latest]).toEqual([1, 100]);
    m.say(alice, 'msg 101', 101);
    expect([m.ring.oldest, m.ring.latest, m.ring.size]).toEqual([2, 101, 100]);
    const all = m.hear(0, bob.id);
    expect(all.messages[0]?.number).toBe(2);
    expect(all.messages.at(-1)?.content).toBe('msg 101');
    expect(all.messages.some((x) => x.number === 1)).toBe(false);
    expect(m.status(0, bob.id)).toEqual({ active: 1, oldest: 2, latest: 101, unread: 100 });
  });

  it('meeting - edge 7: state persists in memory after everyone leaves', () => {
    const m = meeting();
    m.join(alice, 1);
    m.join(bob, 2);
    m.say(alice, 'decision: use sqlite', 3);
    m.say(bob, 'agreed', 4);
    expect(m.leave(alice.id)).toBe(true);
    expect(m.leave(bob.id)).toBe(true);
    expect(m.who()).toEqual([]);
    expect(m.status(0, 'a_newcomer')).toEqual({ active: 0, oldest: 1, latest: 2, unread: 2 });
    // Someone coming back later still finds the conversation.
    m.join({ id: 'a_newcomer', handle: 'newcomer' }, 100);
    expect(m.hear(0, 'a_newcomer').messages.map((x) => x.content)).toEqual(['decision: use sqlite', 'agreed']);
    // And numbering continues where it was.
    expect(m.say({ id: 'a_newcomer', handle: 'newcomer' }, 'hello', 101).message.number).toBe(3);
  });
});
