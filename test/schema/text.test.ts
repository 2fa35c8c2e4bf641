import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../src/errors/parley-error.js';
import { JsonTextValueSchema, TextSchema, textFault } from '../../src/schema/text.js';

/**
 * Author text is well-formed Unicode without control characters; tab, line
 * feed and CRLF are text, format characters such as bidi overrides are too.
 */
describe('author text', () => {
  it('text - every C0 control but tab and line feed, DEL and every C1 control are refused, naming the character and where it is', () => {
    const allowed = new Set([0x09, 0x0a]);
    const controls = [...Array.from({ length: 0x20 }, (_, i) => i), 0x7f, ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i)];
    for (const code of controls.filter((c) => !allowed.has(c) && c !== 0x0d)) {
      const fault = textFault(`ok${String.fromCharCode(code)}`, 'lines');
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      expect(fault, `U+${hex}`).toBe(`contains the control character U+${hex} at character 3; remove it (only tab and line breaks are allowed)`);
    }
    expect(textFault('col1\tcol2\nline two', 'lines')).toBeUndefined();
  });

  it('text - a carriage return is text only as part of CRLF, and kept as sent', () => {
    expect(textFault('pasted on Windows\r\nsecond line\r\n', 'lines')).toBeUndefined();
    expect(parseInput(TextSchema, 'a\r\nb')).toBe('a\r\nb');
    expect(textFault('progress 10%\rprogress 99%', 'lines')).toMatch(/^contains a carriage return not followed by a line feed at character 13/);
    expect(textFault('ends with\r', 'lines')).toMatch(/carriage return/);
  });

  it('text - unpaired surrogates are refused; paired ones (astral characters) are text', () => {
    expect(textFault('emoji \u{1F600} and \u{10FFFF}', 'lines')).toBeUndefined();
    expect(textFault('high \ud800 alone', 'lines')).toBe('contains an unpaired surrogate U+D800 at character 6, which is not Unicode text; send well-formed UTF-8');
    expect(textFault('ends high \udbff', 'lines')).toMatch(/U\+DBFF at character 11/);
    expect(textFault('low \udc00 first', 'lines')).toMatch(/U\+DC00 at character 5/);
    expect(textFault('reversed \udc00\ud800', 'lines')).toMatch(/U\+DC00/);
  });

  it('text - one-line text refuses line breaks; format characters such as a bidi override are not refused', () => {
    expect(textFault('a\nb', 'one line')).toBe('must be one line: it has a line break at character 2');
    expect(textFault('a\r\nb', 'one line')).toMatch(/one line/);
    expect(textFault('tab\tseparated', 'one line')).toBeUndefined();
    expect(textFault('NUL\0', 'one line')).toBe('contains the control character U+0000 at character 4; remove it (only tab is allowed)');
    expect(textFault('\u202Eevil\u202C \u200B\u2066isolated\u2069', 'lines')).toBeUndefined();
  });

  it('text - a JSON value is walked string by string and key by key, naming the path of the fault', () => {
    const ok = { list: ['a', 1, null, true, { 'nested key': 'line\nline' }], empty: {} };
    expect(parseInput(JsonTextValueSchema, ok, 'params')).toEqual(ok);
    const refused = (value: unknown) => {
      try {
        parseInput(JsonTextValueSchema, value, 'params');
      } catch (error) {
        return { field: (error as { field: string }).field, message: (error as Error).message };
      }
      throw new Error('accepted');
    };
    expect(refused('top\0')).toMatchObject({ field: 'params', message: expect.stringContaining('U+0000') });
    expect(refused({ a: { b: ['fine', 'bad\u001b[31m'] } })).toMatchObject({ field: 'params.a.b.1', message: expect.stringContaining('U+001B') });
    expect(refused({ a: { 'key\ud800': 1 } })).toMatchObject({ field: 'params.a', message: expect.stringMatching(/has a key that contains an unpaired surrogate U\+D800/) });
    // A "__proto__" key (JSON.parse keeps it as an own key) cannot be kept as data: signing refuses it, so input does.
    expect(refused(JSON.parse('{"a":{"__proto__":{"approved":true}}}'))).toMatchObject({ field: 'params.a', message: expect.stringContaining('has a key that is "__proto__"') });
    // Deeply nested values are walked without recursion, in linear time.
    let deep: unknown = 'bottom\u0085';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(refused(deep).message).toContain('U+0085');
    // A cycle is left for serialisation to refuse (it is not JSON), not walked forever.
    const cycle: Record<string, unknown> = { fine: 'yes' };
    cycle.self = cycle;
    expect(JsonTextValueSchema.safeParse(cycle).success).toBe(true);
  });

  it('text - the quick scan for clean text decides as the walk over every character does', () => {
    // The walk alone, as it ran before the scan that skips clean text.
    const walked = (text: string, lines: 'lines' | 'one line'): string | undefined => {
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code >= 0xd800 && code <= 0xdbff && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff) {
          i++;
          continue;
        }
        if (code >= 0xd800 && code <= 0xdfff) return `surrogate ${i}`;
        if (code === 0x0a && lines === 'lines') continue;
        if (code === 0x0d && lines === 'lines' && text.charCodeAt(i + 1) === 0x0a) continue;
        if (code === 0x0a || code === 0x0d || ((code <= 0x1f || (code >= 0x7f && code <= 0x9f)) && code !== 0x09)) return `control ${i}`;
      }
      return undefined;
    };
    const char = fc.oneof(fc.integer({ min: 0, max: 0xa0 }), fc.integer({ min: 0xd7f0, max: 0xe010 }), fc.integer({ min: 0x20, max: 0xffff })).map((c) => String.fromCharCode(c));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), fc.constantFrom('lines' as const, 'one line' as const), (chars, lines) => {
        const text = chars.join('');
        const fault = textFault(text, lines);
        const expected = walked(text, lines);
        expect(fault === undefined).toBe(expected === undefined);
        if (expected !== undefined) expect(fault).toContain(`at character ${Number(expected.split(' ')[1]) + 1}`);
      }),
      { numRuns: 3000 },
    );
  });
});
