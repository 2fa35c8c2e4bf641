// A page of stored rows as JSON Lines bytes, the same bytes as
// JSON.stringify(rowToEvent(row)) + "\n" per row, without the event object,
// the per-line strings and the joined page string in between: every string
// is written straight into one scratch buffer, and a message's text (the
// bulk of an export) is copied as it is when it needs no escaping. An export
// of a large thread allocates a few times less on the heap, so the hub
// collects garbage less often and for less long while it runs.

import type { EventRow } from '../store/event-log.js';

/** Characters JSON.stringify would escape (quote, backslash, controls) or check (surrogates). */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

export class JsonLinesEncoder {
  #scratch = Buffer.allocUnsafeSlow(64 * 1024);
  #at = 0;

  /** The rows' lines in one buffer of their own (the scratch is reused for the next page). */
  page(rows: readonly EventRow[]): Buffer {
    this.#at = 0;
    for (const row of rows) this.#row(row);
    const out = Buffer.allocUnsafeSlow(this.#at);
    this.#scratch.copy(out, 0, 0, this.#at);
    return out;
  }

  #row(row: EventRow): void {
    // Key order and values as rowToEvent (src/store/event-log.ts) builds the event.
    this.#text('{"seq":');
    this.#text(JSON.stringify(row.seq));
    this.#field(',"id":', row.id);
    this.#field(',"ts":', new Date(row.ts).toISOString());
    this.#field(',"session":', row.session_id);
    this.#field(',"thread":', row.thread_id);
    this.#field(',"type":', row.type);
    this.#field(',"from":', row.from_id);
    this.#field(',"author":', row.author);
    this.#field(',"to":', row.to_id);
    this.#text(',"content":');
    if (row.type === 'message') this.#quoted(row.content);
    else this.#text(JSON.stringify(JSON.parse(row.content)));
    if (row.meta !== null) {
      this.#text(',"meta":');
      this.#text(JSON.stringify(JSON.parse(row.meta)));
    }
    this.#text('}\n');
  }

  #field(key: string, value: string | undefined): void {
    // An absent value is left out, as JSON.stringify leaves out an undefined property.
    if (value === undefined) return;
    this.#text(key);
    this.#quoted(value);
  }

  #quoted(value: string | null): void {
    if (typeof value === 'string' && !NEEDS_ESCAPE.test(value)) {
      this.#text('"');
      this.#text(value);
      this.#text('"');
    } else this.#text(JSON.stringify(value));
  }

  #text(text: string): void {
    // At most 3 UTF-8 bytes per UTF-16 unit.
    const need = this.#at + text.length * 3;
    if (need > this.#scratch.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, this.#scratch.length * 2));
      this.#scratch.copy(grown, 0, 0, this.#at);
      this.#scratch = grown;
    }
    this.#at += this.#scratch.write(text, this.#at, 'utf8');
  }
}
