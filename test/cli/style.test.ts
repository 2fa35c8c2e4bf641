import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../src/cli/event-lines.js';
import { colourWanted, styleFor } from '../../src/cli/style.js';
import type { ParleyEvent } from '../../src/schema/event.js';

const BUILT_STYLE = path.resolve(import.meta.dirname, '../../dist/src/cli/style.js');

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

  it('style - on a terminal, what others wrote is escaped before it is coloured: the only escape sequences are the colours\' own', () => {
    const hostile = { ...event, author: 'mallory', content: '\x1b[2J\x1b]0;pwned\x07 \u202Eevil' } as ParleyEvent;
    const coloured = formatEvent(hostile, styleFor({ isTTY: true }, {}));
    expect(stripVTControlCharacters(coloured)).toBe('10:04:05 @mallory: \\x1b[2J\\x1b]0;pwned\\x07 \\u202eevil');
    // Without the colours (SGR sequences) nothing is left that a terminal acts on.
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(coloured.replace(/\x1b\[\d+m/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('style - the choice made for a stream holds whatever process.stdout is: a piped stdout does not turn off the colours of a terminal stderr', () => {
    // A real process whose stdout is a pipe and whose environment says nothing about colour,
    // styling for a stream that is a terminal (stderr, when only stdout is redirected).
    const script = `import { styleFor } from ${JSON.stringify(pathToFileURL(BUILT_STYLE).href)};
      process.stdout.write(styleFor({ isTTY: true }, {}).error('parley:'));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH }, timeout: 20_000 });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('\x1b[31mparley:\x1b[39m');
  });
});
