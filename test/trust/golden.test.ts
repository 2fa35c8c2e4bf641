import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseChannelPolicy, policySigningBytes, signPolicy, verifyPolicy } from '../../src/trust/channel-policy.js';
import { decodeEventTuple, eventFieldsFromJson, eventFieldsToJson, eventSigningBytes, signEvent, verifyEvent } from '../../src/trust/envelope.js';
import { formatPublicKey, participantIdOf, privateKeyFromSeed, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { rosterFileText } from '../../src/trust/roster-file.js';
import { ExportSealer, headerSigningBytes, trailerSigningBytes } from '../../src/trust/export-seal.js';
import { pairOf } from '../../src/trust/key-ring.js';
import { ExportVerifier } from '../../src/trust/signed-export.js';
import { EXPORT_ROSTER_DOMAIN, acceptRoster, parseRoster, rosterSigningBytes, signRoster } from '../../src/trust/roster.js';

/**
 * The v1 trust formats, pinned: for each fixture, its JSON input, the exact
 * CBOR bytes signed (.cbor.hex) and the Ed25519 signature (.sig.hex) by a
 * fixed test key. Any change to a signed format shows here as a failing test
 * and, once intended, as a diff of these files. They are written only by the
 * explicit step
 *   PARLEY_UPDATE_GOLDEN=1 npx vitest run test/trust/golden.test.ts
 * (which rewrites the derived files and re-signs the rosters); a normal run
 * only reads them. A changed format also needs a new domain (…/v2) and a v2
 * folder, since peers and exports still carry v1.
 */
const DIR = path.resolve(import.meta.dirname, '../fixtures/golden/v1/trust');
const UPDATE = process.env.PARLEY_UPDATE_GOLDEN === '1';
const SEEDS = [
  { name: 'admin', fill: 0x01 },
  { name: 'member', fill: 0x02 },
  { name: 'operator', fill: 0x03 },
];

const keys = SEEDS.map(({ name, fill }) => {
  const seed = Buffer.alloc(32, fill);
  const privateKey = privateKeyFromSeed(seed);
  const raw = rawPublicKeyOf(privateKey);
  return { name, seed: seed.toString('hex'), pubkey: formatPublicKey(raw), raw: raw.toString('hex'), id: participantIdOf(raw), privateKey };
});

function keyOf(pubkey: string) {
  const key = keys.find((k) => k.pubkey === pubkey);
  if (!key) throw new Error(`no fixture key ${pubkey}`);
  return key;
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const readJson = (name: string) => JSON.parse(fs.readFileSync(path.join(DIR, name), 'utf8')) as unknown;

/** Compares with the fixture file, or (only when updating) writes it. */
function pinned(name: string, actual: string): string {
  const file = path.join(DIR, name);
  if (UPDATE) fs.writeFileSync(file, actual);
  const expected = fs.readFileSync(file, 'utf8');
  expect(actual, `${name} changed: a signed format changed (see the comment at the top of this test)`).toBe(expected);
  return expected;
}

describe('golden trust fixtures v1', () => {
  it('golden - keys.json: fixed seeds give these public keys and ids', () => {
    pinned('keys.json', `${JSON.stringify(keys.map(({ name, seed, pubkey, raw, id }) => ({ name, seed, pubkey, raw, id })), null, 2)}\n`);
  });

  it.each(['event-message', 'event-control', 'event-request'])('golden - %s: bytes, signature, verification and decoding', (name) => {
    const json = readJson(`${name}.json`);
    const fields = eventFieldsFromJson(json);
    const bytes = eventSigningBytes(fields);
    pinned(`${name}.cbor.hex`, `${hex(bytes)}\n`);
    const author = keyOf(formatPublicKey(fields.from));
    const sig = signEvent(author.privateKey, fields);
    const pinnedSig = Buffer.from(pinned(`${name}.sig.hex`, `${hex(sig)}\n`).trim(), 'hex');
    expect(verifyEvent(fields, pinnedSig)).toBe(true);
    const decoded = decodeEventTuple(bytes);
    expect(eventFieldsToJson(decoded)).toEqual(json);
    expect(eventSigningBytes(decoded)).toEqual(bytes);
  });

  it.each(['roster-v1', 'roster-v2'])('golden - %s: bytes, admin signature, verification and file form', (name) => {
    const file = `${name}.json`;
    const doc = parseRoster(readJson(file));
    const signer = keys[0]!;
    const signed = signRoster({ ...doc, signatures: [] }, signer.privateKey);
    pinned(file, rosterFileText(signed));
    const bytes = rosterSigningBytes(doc);
    pinned(`${name}.cbor.hex`, `${hex(bytes)}\n`);
    pinned(`${name}.sig.hex`, `${Buffer.from(signed.signatures[0]!.sig, 'base64url').toString('hex')}\n`);
    expect(doc.signatures).toEqual([{ pubkey: signer.pubkey, sig: signed.signatures[0]!.sig }]);
  });

  it('golden - export-roster: an export\'s local roster, signed by the hub key under its own domain; never accepted as a hub\'s roster', () => {
    const doc = parseRoster(readJson('export-roster.json'));
    const hub = keys[0]!;
    const signed = signRoster({ ...doc, signatures: [] }, hub.privateKey, EXPORT_ROSTER_DOMAIN);
    pinned('export-roster.json', rosterFileText(signed));
    const bytes = rosterSigningBytes(doc, EXPORT_ROSTER_DOMAIN);
    pinned('export-roster.cbor.hex', `${hex(bytes)}\n`);
    pinned('export-roster.sig.hex', `${Buffer.from(signed.signatures[0]!.sig, 'base64url').toString('hex')}\n`);
    expect(acceptRoster(undefined, doc, EXPORT_ROSTER_DOMAIN)).toEqual(doc);
    expect(() => acceptRoster(undefined, doc)).toThrow(/signed as the roster of a signed export \(parley\/export-roster\/v1\)/);
  });

  it('golden - roster-v2 is accepted after roster-v1, and v1 after nothing', () => {
    const v1 = acceptRoster(undefined, readJson('roster-v1.json'));
    const v2 = acceptRoster(v1, readJson('roster-v2.json'));
    expect(v2.version).toBe(2);
    expect(() => acceptRoster(v2, readJson('roster-v1.json'))).toThrow(/not newer/);
  });

  it('golden - export.jsonl: a signed export (header, local roster, one event, trailer) sealed by the admin key as hub, and the bytes its header and trailer signatures are over', () => {
    const event = readJson('event-message.json') as { thread: string; from: string };
    const sig = Buffer.from(fs.readFileSync(path.join(DIR, 'event-message.sig.hex'), 'utf8').trim(), 'hex').toString('base64url');
    const seal = new ExportSealer(pairOf(keys[0]!.privateKey), {
      mode: 'local',
      thread: { id: event.thread, name: 'general', kind: 'channel' },
      authors: [{ key: event.from, handle: 'coder-1' }],
      exported_at: '2026-11-24T12:00:00.000Z',
    });
    const lines = [
      seal.header(),
      seal.line({ type: 'roster', scope: 'local', roster: readJson('export-roster.json') }),
      seal.line({ type: 'event', seq: 2, author: 'coder-1', roster_version: null, event: event as never, sig }),
      seal.trailer(),
    ];
    const text = pinned('export.jsonl', `${lines.join('\n')}\n`);
    const [header, , , trailer] = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Parameters<typeof headerSigningBytes>[0] & Parameters<typeof trailerSigningBytes>[0]);
    pinned('export-header.cbor.hex', `${hex(headerSigningBytes(header!))}\n`);
    pinned('export-trailer.cbor.hex', `${hex(trailerSigningBytes(trailer!))}\n`);
    const verifier = new ExportVerifier();
    for (const line of text.trimEnd().split('\n')) verifier.line(line);
    expect(verifier.finish()).toMatchObject({ events: 1, handles: ['coder-1'], thread: { name: 'general' }, hub: keys[0]!.pubkey });
  });

  it('golden - channel-policy: bytes, signature by the admin, verification', () => {
    const policy = parseChannelPolicy(readJson('channel-policy.json'));
    const bytes = policySigningBytes(policy);
    pinned('channel-policy.cbor.hex', `${hex(bytes)}\n`);
    const signer = keys[0]!;
    const sig = Buffer.from(pinned('channel-policy.sig.hex', `${hex(signPolicy(policy, signer.privateKey))}\n`).trim(), 'hex');
    expect(verifyPolicy(policy, Buffer.from(signer.raw, 'hex'), sig)).toBe(true);
  });
});
