import { describe, expect, it } from 'vitest';
import { DEFAULT_MEETING_RING_SIZE } from '../../src/config/defaults.js';
import { MeetingRing } from '../../src/meeting/ring.js';
import { refusal } from '../helpers/refusal.js';
import { alice, bob, carol } from './participants.js';

describe('MeetingRing', () => {
  it('meeting - say is O(1): the backing array never grows past capacity over 10,000 says', () => {
    const ring = new MeetingRing();
    expect(ring.capacity).toBe(DEFAULT_MEETING_RING_SIZE);
    expect(ring.allocatedSlots).toBe(100);
    for (let i = 1; i <= 10_000; i++) {
      const said = ring.say(i % 2 === 0 ? alice : bob, `m${i}`, i);
      expect(said.number).toBe(i);
      expect(ring.allocatedSlots).toBe(100);
    }
    expect(ring.latest).toBe(10_000);
    expect(ring.oldest).toBe(9_901);
    expect(ring.size).toBe(100);
    const all = ring.hear(0, carol.id);
    expect(all.messages).toHaveLength(100);
    expect(all.messages[0]?.content).toBe('m9901');
    expect(all.messages.at(-1)?.content).toBe('m10000');
    expect(ring.allocatedSlots).toBe(100);
  });

  it('meeting - numbers start at 1 and say returns the stored message', () => {
    const ring = new MeetingRing(3);
    const first = ring.say(alice, 'hi', 1234);
    expect(first).toEqual({ number: 1, speakerId: alice.id, speaker: 'alice', ts: 1234, content: 'hi' });
    expect(Object.isFrozen(first)).toBe(true);
    expect(ring.say(bob, 'yo', 1235).number).toBe(2);
    expect([ring.oldest, ring.latest]).toEqual([1, 2]);
  });

  it('meeting - empty ring: oldest 0, latest 0, hear returns nothing, status is zero', () => {
    const ring = new MeetingRing(5);
    expect([ring.oldest, ring.latest, ring.size]).toEqual([0, 0, 0]);
    expect(ring.hear(0, alice.id)).toEqual({ messages: [], messagesLost: false, lastHeard: 0 });
    expect(ring.hear(0, alice.id, 1)).toEqual({ messages: [], messagesLost: false, lastHeard: 0 });
    expect(ring.status(0, alice.id)).toEqual({ oldest: 0, latest: 0, unread: 0 });
    expect(ring.status(0)).toEqual({ oldest: 0, latest: 0, unread: 0 });
  });

  it('meeting - lastHeard from an older ring restarts at the oldest with messagesLost', () => {
    const ring = new MeetingRing(5);
    // Empty ring after a restart: nothing to return, and the position is reset to 0.
    expect(ring.hear(57, bob.id)).toEqual({ messages: [], messagesLost: true, lastHeard: 0 });
    expect(ring.status(57, bob.id)).toEqual({ oldest: 0, latest: 0, unread: 0 });
    ring.say(alice, 'one', 1);
    ring.say(alice, 'two', 2);
    const heard = ring.hear(57, bob.id);
    expect(heard.messagesLost).toBe(true);
    expect(heard.messages.map((m) => m.content)).toEqual(['one', 'two']);
    expect(heard.lastHeard).toBe(2);
    expect(ring.status(57, bob.id)).toEqual({ oldest: 1, latest: 2, unread: 2 });
    // Stale and only own messages: the position still moves into the new ring.
    expect(ring.hear(57, alice.id)).toEqual({ messages: [], messagesLost: true, lastHeard: 2 });
  });

  it('meeting - hear honours limit and returns the last examined number', () => {
    const ring = new MeetingRing(10);
    ring.say(alice, 'a1', 1);
    ring.say(bob, 'b2', 2);
    ring.say(alice, 'a3', 3);
    ring.say(alice, 'a4', 4);
    ring.say(carol, 'c5', 5);
    ring.say(alice, 'a6', 6);
    const first = ring.hear(0, alice.id, 1);
    expect(first.messages.map((m) => m.content)).toEqual(['b2']);
    expect(first.lastHeard).toBe(2);
    const second = ring.hear(first.lastHeard, alice.id, 1);
    expect(second.messages.map((m) => m.content)).toEqual(['c5']);
    expect(second.lastHeard).toBe(5);
    // The trailing own message is examined and skipped.
    expect(ring.hear(second.lastHeard, alice.id, 1)).toEqual({ messages: [], messagesLost: false, lastHeard: 6 });
    expect(ring.hear(6, alice.id, 1)).toEqual({ messages: [], messagesLost: false, lastHeard: 6 });
    // Limit 2 for a reader who hears everyone.
    const two = ring.hear(0, 'a_dave', 2);
    expect(two.messages.map((m) => m.number)).toEqual([1, 2]);
    expect(two.lastHeard).toBe(2);
  });

  it('meeting - status counts unread messages, from others when selfId is given', () => {
    const ring = new MeetingRing(4);
    for (const [speaker, text] of [
      [alice, 'a1'],
      [bob, 'b2'],
      [alice, 'a3'],
      [bob, 'b4'],
      [alice, 'a5'],
      [bob, 'b6'],
    ] as const) {
      ring.say(speaker, text, 0);
    }
    // Retained: 3..6.
    expect(ring.status(0)).toEqual({ oldest: 3, latest: 6, unread: 4 });
    expect(ring.status(0, alice.id)).toEqual({ oldest: 3, latest: 6, unread: 2 });
    expect(ring.status(1, bob.id)).toEqual({ oldest: 3, latest: 6, unread: 2 });
    expect(ring.status(4, alice.id)).toEqual({ oldest: 3, latest: 6, unread: 1 });
    expect(ring.status(4)).toEqual({ oldest: 3, latest: 6, unread: 2 });
    expect(ring.status(6, alice.id)).toEqual({ oldest: 3, latest: 6, unread: 0 });
  });

  it('meeting - invalid capacity, lastHeard and limit are refused with INVALID_INPUT', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      const error = refusal(() => new MeetingRing(bad));
      expect([error.code, error.field]).toEqual(['INVALID_INPUT', 'ringSize']);
    }
    const ring = new MeetingRing(3);
    ring.say(alice, 'x', 0);
    for (const bad of [-1, 0.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(refusal(() => ring.hear(bad, bob.id)).field).toBe('lastHeard');
      expect(refusal(() => ring.status(bad, bob.id)).field).toBe('lastHeard');
    }
    for (const bad of [0, -3, 2.5]) {
      const error = refusal(() => ring.hear(0, bob.id, bad));
      expect([error.code, error.field]).toEqual(['INVALID_INPUT', 'limit']);
    }
  });
});
