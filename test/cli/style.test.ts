import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../src/cli/conversation.js';
import { colourWanted, styleFor } from '../../src/cli/style.js';
import type { ParleyEvent } from '../../src/schema/event.js';

const event = {
  id: '01JABCDEFGHJKMNPQRSTVWXYZ0',
  seq: 7,
  ts: '2026-11-22T10:04:05.000Z',
  thread: 't_1',
  type: 'message',
  from: 'p_1',
  author: 'coder',
  to: 'all',
  content: 'the cache is warm',
} as unknown as ParleyEvent;

describe('cli style', () => {
  it('style - colour only on a terminal, never with NO_COLOR or TERM=dumb, always with FORCE_COLOR', () => {
    expect(colourWanted({ isTTY: true }, {})).toBe(true);
    expect(colourWanted({ isTTY: false }, {})).toBe(false);
    expect(colourWanted({}, {})).toBe(false);
    expect(colourWanted({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourWanted({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colourWanted({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourWanted({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(true);
    expect(colourWanted({ isTTY: false }, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourWanted({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
  });

  it('style - an event line is time, author and text; plain off a terminal, coloured on one', () => {
    expect(formatEvent(event, styleFor({ isTTY: false }, {}))).toBe('10:04:05 @coder: the cache is warm');
    const coloured = formatEvent(event, styleFor({ isTTY: true }, {}));
    expect(coloured).not.toBe('10:04:05 @coder: the cache is warm');
    // Without the escape sequences it reads the same.
    expect(coloured).toContain('\x1b[');
    expect(stripVTControlCharacters(coloured)).toBe('10:04:05 @coder: the cache is warm');
  });
});
