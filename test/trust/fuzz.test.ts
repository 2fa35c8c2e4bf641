import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from 'cborg';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ParleyError } from '../../src/errors/parley-error.js';
import type { ErrorCode } from '../../src/errors/codes.js';
import { canonicalEncode, decodeStrict, MAX_CBOR_DEPTH } from '../../src/trust/cbor.js';
import { parseChannelPolicy } from '../../src/trust/channel-policy.js';
import { decodeEventTuple, eventSigningBytes } from '../../src/trust/envelope.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { readRosterFile } from '../../src/trust/roster-file.js';
import { acceptRoster, parseRoster, signRoster, type Roster } from '../../src/trust/roster.js';
import { jsonValue, sampleFields, signedFields, testKey } from './arbitraries.js';

/**
 * Malformed input of every kind: the decoders and parsers answer with a
 * ParleyError of the expected code, or a value; never another exception.
 */
function outcome(fn: () => unknown, codes: ErrorCode[]): 'ok' | 'refused' {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (!(error instanceof ParleyError)) throw new Error(`not a ParleyError: ${String(error)}`, { cause: error });
    expect(codes).toContain(error.code);
    expect(error.message.length).toBeGreaterThan(10);
    return 'refused';
  }
}

const MAX = 4096;
const decodeBoth = (bytes: Uint8Array) => {
  outcome(() => decodeStrict(bytes, { maxBytes: MAX }), ['INVALID_INPUT']);
  return outcome(() => decodeEventTuple(bytes, { maxBytes: MAX }), ['INVALID_INPUT']);
};
const validTuple = signedFields.map((fields) => Buffer.from(eventSigningBytes(fields)));

describe('fuzz: CBOR and event decoders', () => {
  it('fuzz - arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => void decodeBoth(bytes)), { numRuns: 2000 });
  });

  it('fuzz - arbitrary CBOR values (cborg’s own encoding, canonical or not)', () => {
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: false, withBigInt: false, withDate: false, withTypedArray: false, withSparseArray: false, withMap: false, withSet: false }), (value) => {
        let bytes: Uint8Array;
        try {
          bytes = encode(value);
        } catch {
          return;
        }
        decodeBoth(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it('fuzz - every truncation of a valid event is refused', () => {
    fc.assert(
      fc.property(validTuple, fc.nat(), (bytes, cut) => {
        expect(decodeBoth(bytes.subarray(0, cut % bytes.length))).toBe('refused');
      }),
      { numRuns: 500 },
    );
  });

  it('fuzz - a changed or inserted byte in a valid event decodes or is refused cleanly', () => {
    fc.assert(
      fc.property(validTuple, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.boolean(), (bytes, at, value, insert) => {
        const i = at % bytes.length;
        const changed = insert ? Buffer.concat([bytes.subarray(0, i), Buffer.from([value]), bytes.subarray(i)]) : Buffer.from(bytes);
        if (!insert) changed[i] = (changed[i] ?? 0) ^ value;
        decodeBoth(changed);
      }),
      { numRuns: 1000 },
    );
  });

  it('fuzz - oversized input is refused by size, whatever it holds', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX + 1, max: MAX * 4 }), fc.integer({ min: 0, max: 255 }), (size, fill) => {
        const error = (() => {
          try {
            decodeEventTuple(Buffer.alloc(size, fill), { maxBytes: MAX });
          } catch (e) {
            return e as ParleyError;
          }
          throw new Error('accepted');
        })();
        expect(error.code).toBe('INVALID_INPUT');
        expect(error.message).toContain(`more than the ${MAX} allowed`);
      }),
      { numRuns: 50 },
    );
  });

  it('fuzz - a map with a repeated key (built by hand), anywhere, is refused', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), jsonValue, jsonValue, (key, a, b) => {
        const enc = (v: unknown) => Buffer.from(canonicalEncode(JSON.parse(JSON.stringify(v ?? null)) as unknown));
        const map = Buffer.concat([Buffer.from([0xa2]), enc(key), enc(a), enc(key), enc(b)]);
        expect(outcome(() => decodeStrict(map, { maxBytes: MAX }), ['INVALID_INPUT'])).toBe('refused');
        // The same map as the event's meta (position 7): rebuild the tuple around it.
        const fields = sampleFields({ meta: null });
        const tuple = Buffer.from(eventSigningBytes(fields));
        // meta (null here) is followed by ts, ttl_secs, sender_seq and sender_epoch.
        const after = [fields.ts, fields.ttl_secs, fields.sender_seq, fields.sender_epoch].reduce<number>((n, v) => n + canonicalEncode(v).length, 0);
        const nullAt = tuple.length - 1 - after;
        expect(tuple[nullAt]).toBe(0xf6);
        const withMeta = Buffer.concat([tuple.subarray(0, nullAt), map, tuple.subarray(nullAt + 1)]);
        const error = (() => {
          try {
            decodeEventTuple(withMeta);
          } catch (e) {
            return e as ParleyError;
          }
          throw new Error('accepted');
        })();
        expect(error.code).toBe('INVALID_INPUT');
        expect(error.message).toContain('repeat map key');
      }),
      { numRuns: 200 },
    );
  });

  it('fuzz - deep nesting inside an event, at any depth, is a clear refusal and never a stack overflow', () => {
    const base = Buffer.from(eventSigningBytes(sampleFields({ kind: 'control', content: 0 })));
    const at = base.indexOf(Buffer.from('67636f6e74726f6c00', 'hex')) + 8; // the text "control", then the content 0
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom(0x81, 0xa1), (depth, header) => {
        // Arrays of one item, or maps of one entry keyed "" (0x60), nested `depth` times around the content.
        const level = header === 0x81 ? Buffer.from([0x81]) : Buffer.from([0xa1, 0x60]);
        const bytes = Buffer.concat([base.subarray(0, at), Buffer.concat(Array.from({ length: Math.min(depth, 2000) }, () => level)), base.subarray(at)]);
        const deep = depth > 2000 ? Buffer.concat([base.subarray(0, at), Buffer.alloc(depth, 0x81), base.subarray(at)]) : bytes;
        const nested = depth > 2000 ? depth : Math.min(depth, 2000);
        const result = outcome(() => decodeEventTuple(deep), ['INVALID_INPUT']);
        expect(result).toBe(nested + 1 > MAX_CBOR_DEPTH ? 'refused' : 'ok');
      }),
      { numRuns: 60 },
    );
    for (const depth of [MAX_CBOR_DEPTH - 1, 3000]) {
      const bytes = Buffer.concat([base.subarray(0, at), Buffer.alloc(depth, 0x81), base.subarray(at)]);
      expect(outcome(() => decodeEventTuple(bytes), ['INVALID_INPUT'])).toBe(depth === 3000 ? 'refused' : 'ok');
    }
  });

  it('fuzz - indefinite lengths (the tuple itself, or any item) are refused', () => {
    fc.assert(
      fc.property(validTuple, (bytes) => {
        expect(bytes[0]).toBe(0x8c);
        const indefinite = Buffer.concat([Buffer.from([0x9f]), bytes.subarray(1), Buffer.from([0xff])]);
        expect(decodeBoth(indefinite)).toBe('refused');
      }),
      { numRuns: 100 },
    );
    const text = Buffer.from(eventSigningBytes(sampleFields({ kind: 'message', content: 'hi' })));
    const at = text.indexOf(Buffer.from('626869', 'hex'));
    const chunked = Buffer.concat([text.subarray(0, at), Buffer.from('7f626869ff', 'hex'), text.subarray(at + 3)]);
    expect(decodeBoth(chunked)).toBe('refused');
  });
});

describe('fuzz: roster and policy parsers', () => {
  const admin = testKey(1);
  const base: Roster = signRoster(
    { org_id: 'my-org', version: 1, timestamp: '2026-11-24T12:00:00Z', members: [{ pubkey: formatPublicKey(admin.raw), role: 'admin' }], signatures: [] },
    admin.privateKey,
  );
  const anyJson = fc.oneof(fc.jsonValue(), fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true }));
  /** A valid roster with one field replaced by anything. */
  const mutatedRoster = fc
    .tuple(fc.constantFrom('org_id', 'version', 'timestamp', 'members', 'signatures', 'extra'), anyJson, fc.nat(), anyJson)
    .map(([field, value, member, memberValue]) => {
      const doc: Record<string, unknown> = { ...base, [field]: value };
      if (field === 'extra') doc.members = base.members.map((m, i) => (i === member % base.members.length ? { ...m, role: memberValue } : m));
      return doc;
    });

  it('fuzz - parseRoster and acceptRoster on arbitrary and mutated documents', () => {
    fc.assert(
      fc.property(fc.oneof(anyJson, mutatedRoster), (doc) => {
        outcome(() => parseRoster(doc), ['ROSTER_INVALID']);
        outcome(() => acceptRoster(base, doc), ['ROSTER_INVALID', 'ROSTER_ROLLBACK', 'BAD_SIGNATURE']);
        outcome(() => acceptRoster(undefined, doc), ['ROSTER_INVALID', 'BAD_SIGNATURE']);
      }),
      { numRuns: 1000 },
    );
  });

  it('fuzz - parseChannelPolicy on arbitrary and mutated policies', () => {
    const policy = { thread: 't1', version: 1, readers: [{ access: 'member' }], writers: [], admins: [{ key: formatPublicKey(admin.raw) }] };
    const mutated = fc
      .tuple(fc.constantFrom('thread', 'version', 'readers', 'writers', 'admins', 'retention_hours', 'retention_messages', 'allow_history_fetch', 'name'), anyJson)
      .map(([field, value]) => ({ ...policy, [field]: value }));
    fc.assert(
      fc.property(fc.oneof(anyJson, mutated), (doc) => {
        outcome(() => parseChannelPolicy(doc), ['INVALID_INPUT']);
      }),
      { numRuns: 1000 },
    );
  });

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-roster-fuzz-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fuzz - readRosterFile on arbitrary file contents', () => {
    const file = path.join(dir, 'roster.json');
    const valid = JSON.stringify(base);
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.nat().map((n) => valid.slice(0, n % valid.length)), fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1'))), (text) => {
        fs.writeFileSync(file, text);
        expect(outcome(() => readRosterFile(file), ['ROSTER_INVALID'])).toBe('refused');
      }),
      { numRuns: 300 },
    );
  });
});
