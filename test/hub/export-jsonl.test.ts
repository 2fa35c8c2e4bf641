import { describe, expect, it } from 'vitest';
import { JsonLinesEncoder } from '../../src/hub/export-jsonl.js';
import { rowToEvent, type EventRow } from '../../src/store/event-log.js';

const base: EventRow = {
  seq: 7,
  id: 'ev_1',
  session_id: 'ses_1',
  thread_id: 'thr_1',
  ts: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  type: 'message',
  from_id: 'p_1',
  author: 'alice',
  to_id: 'all',
  content: 'plain text',
  meta: null,
  sig: null,
} as EventRow;

/** What the export wrote before the encoder: the event object, stringified, a line each. */
const asBefore = (rows: EventRow[]): string => rows.map((row) => `${JSON.stringify(rowToEvent(row))}\n`).join('');

describe('JSON Lines encoder', () => {
  it('export-jsonl - writes the same bytes as JSON.stringify of the event, for every kind of text', () => {
    const texts = [
      'plain text',
      '',
      'a "quoted" word and a back\\slash',
      'tab\there, newline\nthere, and \u0000 \u001f controls',
      'accents é, CJK 漢字, emoji 😀, line sep \u2028 and del \u007f',
      'a lone surrogate \ud800 and another \udfff',
      'x'.repeat(70_000),
      `${'é'.repeat(30_000)}😀`,
    ];
    const rows: EventRow[] = texts.map((content, i) => ({ ...base, seq: i + 1, content }));
    rows.push({ ...base, seq: 100, type: 'request', content: JSON.stringify({ intent: 'review "this"', n: 1.5, list: [1, 'é'] }), to_id: 'p_2' } as EventRow);
    rows.push({ ...base, seq: 101, content: 'with meta', meta: JSON.stringify({ reply_to: 'ev_0', mentions: ['bob'], note: 'line\nbreak' }) });
    rows.push({ ...base, seq: 102, type: 'control', content: JSON.stringify({ action: 'rename', name: 'new' }), meta: JSON.stringify({}) } as EventRow);
    const encoder = new JsonLinesEncoder();
    expect(encoder.page(rows).toString('utf8')).toBe(asBefore(rows));
    // The scratch is reused: a second, smaller page holds only its own rows.
    expect(encoder.page(rows.slice(0, 2)).toString('utf8')).toBe(asBefore(rows.slice(0, 2)));
    expect(encoder.page([]).length).toBe(0);
  });

  it('export-jsonl - each page is a buffer of its own, not a view of the reused scratch', () => {
    const encoder = new JsonLinesEncoder();
    const first = encoder.page([{ ...base, content: 'first page' }]);
    encoder.page([{ ...base, content: 'second page, longer than the first' }]);
    expect(first.toString('utf8')).toBe(asBefore([{ ...base, content: 'first page' }]));
  });
});
