import { describe, expect, it } from 'vitest';
import { MeetingRegistry, normalizeMeetingName } from '../../src/meeting/meeting-registry.js';
import { refusal } from '../helpers/refusal.js';
import { alice, bob } from './participants.js';

describe('MeetingRegistry', () => {
  it('meeting - getOrCreate creates once per session and name, case-insensitively', () => {
    const registry = new MeetingRegistry();
    const m = registry.getOrCreate('s1', 'StandUp', 1000);
    expect(m.id).toMatch(/^m_[0-9a-f-]{36}$/);
    expect([m.name, m.sessionId, m.createdAt]).toEqual(['standup', 's1', 1000]);
    expect(registry.getOrCreate('s1', 'standup', 2000)).toBe(m);
    expect(registry.getOrCreate('s1', 'STANDUP', 3000).createdAt).toBe(1000);
    expect(registry.get('s1', 'Standup')).toBe(m);
    const other = registry.getOrCreate('s1', 'design-review_2', 4000);
    expect(other.id).not.toBe(m.id);
    expect(registry.list('s1')).toEqual([m, other]);
  });

  it('meeting - defaults come from DEFAULT_MEETING_* and options override them', () => {
    const defaults = new MeetingRegistry().getOrCreate('s1', 'a', 0);
    expect([defaults.ring.capacity, defaults.maxParticipants, defaults.maxMessageChars]).toEqual([100, 32, 1024]);
    const custom = new MeetingRegistry({ ringSize: 5, maxParticipants: 2, maxMessageChars: 64 }).getOrCreate('s1', 'a', 0);
    expect([custom.ring.capacity, custom.maxParticipants, custom.maxMessageChars]).toEqual([5, 2, 64]);
    const partial = new MeetingRegistry({ ringSize: 7 });
    expect(partial.limits).toEqual({ ringSize: 7, maxParticipants: 32, maxMessageChars: 1024 });
  });

  it('meeting - sessions are isolated: the same name in two sessions is two meetings', () => {
    const registry = new MeetingRegistry();
    const one = registry.getOrCreate('s1', 'standup', 1);
    const two = registry.getOrCreate('s2', 'standup', 2);
    expect(one).not.toBe(two);
    expect(one.id).not.toBe(two.id);
    one.join(alice, 1);
    one.say(alice, 'secret plan for s1', 2);
    expect(two.who()).toEqual([]);
    expect(two.hear(0, bob.id).messages).toEqual([]);
    expect(two.status(0, bob.id)).toEqual({ active: 0, oldest: 0, latest: 0, unread: 0 });
    expect(registry.get('s2', 'standup')).toBe(two);
    expect(registry.list('s1')).toEqual([one]);
    expect(registry.list('s2')).toEqual([two]);

    registry.getOrCreate('s1', 'only-in-s1', 3);
    const error = refusal(() => registry.get('s2', 'only-in-s1'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.field).toBe('meeting');
    expect(registry.list('s2').map((m) => m.name)).toEqual(['standup']);
    expect(registry.list('s3')).toEqual([]);
  });

  it('meeting - get of an unknown meeting is NOT_FOUND and says how to start one', () => {
    const registry = new MeetingRegistry();
    const error = refusal(() => registry.get('s1', 'Nope'));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain("'nope'");
    expect(error.message).toMatch(/join/i);
    expect(registry.list('s1')).toEqual([]);
  });

  it('meeting - invalid names are refused with INVALID_INPUT on the field meeting', () => {
    const registry = new MeetingRegistry();
    const bad: unknown[] = [
      '',
      'a'.repeat(65),
      'has space',
      'dot.name',
      '../etc',
      'ümlaut',
      '\u212A', // Kelvin sign: lowercases to 'k', must still be refused
      'tab\t',
      ' lead',
      42,
      null,
      undefined,
    ];
    for (const name of bad) {
      const error = refusal(() => normalizeMeetingName(name));
      expect([error.code, error.field]).toEqual(['INVALID_INPUT', 'meeting']);
      expect(refusal(() => registry.getOrCreate('s1', name as string, 0)).code).toBe('INVALID_INPUT');
      expect(refusal(() => registry.get('s1', name as string)).code).toBe('INVALID_INPUT');
    }
    expect(registry.list('s1')).toEqual([]);
    expect(normalizeMeetingName('a'.repeat(64))).toBe('a'.repeat(64));
    expect(normalizeMeetingName('A-b_9')).toBe('a-b_9');
  });
});
