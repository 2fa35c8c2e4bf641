import { describe, expect, it } from 'vitest';
import { TRUNCATION_MARKER } from '../../src/config/defaults.js';
import { truncateText } from '../../src/redaction/truncate.js';

describe('truncate', () => {
  it('truncate - short text is unchanged', () => {
    expect(truncateText('hello there', 20)).toEqual({ text: 'hello there', truncated: false });
    expect(truncateText('x'.repeat(20), 20)).toEqual({ text: 'x'.repeat(20), truncated: false });
  });

  it('truncate - long text is cut to exactly maxChars and ends with the marker', () => {
    const result = truncateText('abcdefghij'.repeat(10), 40);
    expect(result.truncated).toBe(true);
    expect(result.text).toHaveLength(40);
    expect(result.text.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(result.text).toBe('abcdefghij'.repeat(10).slice(0, 40 - TRUNCATION_MARKER.length) + TRUNCATION_MARKER);
  });

  it('truncate - a surrogate pair at the cut is dropped whole, never split', () => {
    const keep = 30 - TRUNCATION_MARKER.length;
    // The emoji's high surrogate sits exactly at the last kept position.
    const text = 'a'.repeat(keep - 1) + '😀' + 'b'.repeat(20);
    const result = truncateText(text, 30);
    expect(result.text).toBe('a'.repeat(keep - 1) + TRUNCATION_MARKER);
    expect(result.text.length).toBeLessThanOrEqual(30);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])/.test(result.text)).toBe(false);
  });

  it('truncate - a surrogate pair before the cut is kept whole', () => {
    const keep = 30 - TRUNCATION_MARKER.length;
    const text = 'a'.repeat(keep - 2) + '😀' + 'b'.repeat(20);
    expect(truncateText(text, 30).text).toBe('a'.repeat(keep - 2) + '😀' + TRUNCATION_MARKER);
  });
});
