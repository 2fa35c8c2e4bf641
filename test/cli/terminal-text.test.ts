import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalJson, terminalText } from '../../src/cli/terminal-text.js';

/** Every character a terminal acts on instead of showing (what the CLI must never print raw). */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const ACTED_ON = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const PRINTED_AS_IS_IN_LINES = /[^\n\t\r]/;

/** Characters a terminal acts on, mixed into ordinary text. */
const hostileText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\x1b', '\x00', '\x07', '\x7f', '\u0085', '\u009b', '\r', '\n', '\t', '\u2028', '\u2029', '\u202a', '\u202e', '\u2066', '\u2069'),
    fc.constantFrom('a', ' ', '[', '2', 'J', 'é', '\u{1F600}', '\u200d', '\\'),
  ),
  maxLength: 60,
});

describe('cli terminal text', () => {
  it('terminal text - ESC sequences, NUL, BEL, DEL, C1 controls, line separators and bidi controls are printed as visible escapes', () => {
    expect(terminalText('\x1b[2J\x1b[31mred\x00\x07', 'lines')).toBe('\\x1b[2J\\x1b[31mred\\x00\\x07');
    expect(terminalText('a\u0085b\u009b31m\x7f', 'lines')).toBe('a\\x85b\\x9b31m\\x7f');
    expect(terminalText('\u202Eevil\u202C \u2066iso\u2069 \u2028\u2029', 'lines')).toBe('\\u202eevil\\u202c \\u2066iso\\u2069 \\u2028\\u2029');
    // Text is left as it is, astral characters and joiners included.
    expect(terminalText('café \u{1F600} a\u200db', 'lines')).toBe('café \u{1F600} a\u200db');
  });

  it('terminal text - line feeds, tabs and CRLF stay where output has lines; one line escapes them, and a lone CR always', () => {
    expect(terminalText('one\ttwo\r\nthree\nfour', 'lines')).toBe('one\ttwo\r\nthree\nfour');
    expect(terminalText('over\rwritten', 'lines')).toBe('over\\x0dwritten');
    expect(terminalText('one\ttwo\r\nthree', 'one line')).toBe('one\\x09two\\x0d\\x0athree');
  });

  it('terminal text - whatever the input, one line holds nothing a terminal acts on, and lines only line feeds, tabs and CRs before a line feed', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        expect(terminalText(text, 'one line')).not.toMatch(ACTED_ON);
        const lines = terminalText(text, 'lines');
        // By UTF-16 unit: every character acted on is one unit.
        for (let index = 0; index < lines.length; index++) {
          const char = lines[index]!;
          if (!ACTED_ON.test(char)) continue;
          expect(char).not.toMatch(PRINTED_AS_IS_IN_LINES);
          if (char === '\r') expect(lines[index + 1]).toBe('\n');
        }
      }),
      { numRuns: 300 },
    );
  });

  it('terminal json - the same JSON to a program, with nothing a terminal acts on', () => {
    fc.assert(
      fc.property(hostileText, hostileText, (key, value) => {
        const printed = terminalJson({ [key]: [value] });
        expect(printed).not.toMatch(ACTED_ON);
        expect(JSON.parse(printed)).toEqual({ [key]: [value] });
      }),
      { numRuns: 300 },
    );
    expect(terminalJson({ note: '\u202Eevil\u0085' }, 2)).toBe('{\n  "note": "\\u202eevil\\u0085"\n}');
  });
});
