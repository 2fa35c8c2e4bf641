import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFieldsToJson, signEvent, type SignedEventFields } from '../../src/trust/envelope.js';
import { formatPublicKey, privateKeyFromSeed, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { openTestHub, type TestHub } from '../helpers/hub.js';
import { exportLines, headerFieldsOf, sealedBy, verifyLines, type Line } from './export-lines.js';

/**
 * The exporting hub's signed header and trailer: a signed export cannot be
 * cut down, relabelled or renamed and still verify. Each attack is made on a
 * real export of a real hub.
 */
describe('signed export: the hub-signed header and trailer', () => {
  let t: TestHub;
  let lines: string[];
  /** Index of the trailer (the last line). */
  let end: number;

  beforeAll(async () => {
    t = await openTestHub();
    const human = await t.hub.join({ handle: 'human', profile: { kind: 'human' } });
    const coder = await t.hub.join({ handle: 'coder1' });
    await human.post({ thread: 'general', text: 'who approves the key rotation?' });
    await coder.post({ thread: 'general', text: 'I can' });
    await human.post({ thread: 'general', text: 'approved' });
    lines = await exportLines(human, 'general');
    end = lines.length - 1;
  });
  afterAll(async () => {
    await t.close();
  });

  const parsed = (i: number): Line => JSON.parse(lines[i]!) as Line;
  const changed = (i: number, change: (line: Line) => void): string[] => {
    const copy = [...lines];
    const line = parsed(i);
    change(line);
    copy[i] = JSON.stringify(line);
    return copy;
  };

  it('seal - the untouched export verifies: the rest of these tests each change one thing', () => {
    expect(lines.map((l) => (JSON.parse(l) as Line).type)).toEqual(['parley-export', 'roster', 'event', 'event', 'event', 'event', 'parley-export-end']);
    expect(verifyLines(lines)).toBeUndefined();
  });

  it('seal - dropping an author\'s first event fails at the trailer: events were taken out of the start (no gap between events shows it)', () => {
    const cut = lines.filter((_, i) => i !== 2);
    expect(verifyLines(cut, { noGaps: true })).toMatchObject({ line: cut.length, reason: expect.stringMatching(/^the first event here has seq \d+, but the hub exported from seq \d+: events were taken out of the start$/) });
  });

  it('seal - dropping the last event fails at the trailer: events were taken out of the end', () => {
    const cut = lines.filter((_, i) => i !== end - 1);
    expect(verifyLines(cut, { noGaps: true })).toMatchObject({ line: cut.length, reason: expect.stringMatching(/^the last event here has seq \d+, but the hub exported up to seq \d+: events were taken out of the end$/) });
  });

  it('seal - dropping every event fails: there is nothing to verify', () => {
    const none = [lines[0]!, lines[1]!, lines[end]!];
    expect(verifyLines(none)).toMatchObject({ line: 3, reason: 'the export holds no events (the hub exported 4); there is nothing to verify' });
  });

  it('seal - an event taken out of the middle changes the count and the chain', () => {
    const cut = lines.filter((_, i) => i !== 3);
    expect(verifyLines(cut)).toMatchObject({ line: cut.length, reason: 'the export holds 3 events, but the hub exported 4: events were taken out or added' });
  });

  it('seal - renaming the thread, or changing the mode or an author\'s handle, in the header fails at line 1', () => {
    const renamed = changed(0, (h) => (h.thread.name = 'security-approvals'));
    expect(verifyLines(renamed)).toMatchObject({ line: 1, reason: expect.stringMatching(/^the header's signature by the hub key ed25519:\S+ does not verify/) });
    expect(verifyLines(changed(0, (h) => (h.mode = 'roster')))).toMatchObject({ line: 1 });
    expect(verifyLines(changed(0, (h) => (h.authors[0].handle = 'admin')))).toMatchObject({ line: 1 });
  });

  it('seal - changing an event\'s unsigned "author" fails at its line, naming the handle the hub signed', () => {
    const k = lines.findIndex((l) => l.includes('I can'));
    const relabelled = changed(k, (e) => (e.author = 'human'));
    expect(verifyLines(relabelled)).toMatchObject({ line: k + 1, reason: expect.stringMatching(/by @coder1 ed25519:\S+: the line names its author @human, but the hub signed this key as @coder1/) });
  });

  it('seal - a line rewritten with the same values (its spacing, its key order) still breaks the chain the trailer signed', () => {
    const broken = 'the lines do not match the hash chain the hub signed: a line between the header and the trailer was changed, added, removed or moved';
    const spaced = [...lines];
    spaced[3] = spaced[3]!.replace('"type":"event"', '"type": "event"');
    expect(verifyLines(spaced)).toMatchObject({ line: lines.length, reason: broken });
    const { type, ...rest } = parsed(1);
    const reordered = [...lines];
    reordered[1] = JSON.stringify({ ...rest, type });
    expect(verifyLines(reordered)).toMatchObject({ line: lines.length, reason: broken });
  });

  it('seal - a missing header or trailer, a changed trailer, or a line after it fails', () => {
    expect(verifyLines(lines.slice(1))).toMatchObject({ line: 1, reason: expect.stringMatching(/^not a Parley signed export header/) });
    expect(verifyLines(lines.slice(0, -1))).toMatchObject({ line: end, reason: expect.stringMatching(/^the export ends without the trailer the hub signs/) });
    const counted = changed(end, (tr) => (tr.events += 1));
    expect(verifyLines(counted)).toMatchObject({ line: end + 1, reason: expect.stringMatching(/^the trailer's signature .* does not verify/) });
    expect(verifyLines([...lines, lines[2]!])).toMatchObject({ line: lines.length + 1, reason: expect.stringMatching(/^a line after the trailer/) });
  });

  it('seal - an export in the old format (v1, no signed header or trailer) fails, saying to export again', () => {
    const old = changed(0, (h) => {
      h.v = 1;
      delete h.authors;
      delete h.sig;
    }).slice(0, -1);
    expect(verifyLines(old)).toMatchObject({ line: 1, reason: expect.stringMatching(/^an export in format v1, made by an older Parley: it has no signed header and trailer.*Export the thread again with this version/) });
  });

  it('seal - an event signed by a key outside the roster fails at its line, even spliced in under a header and trailer the hub key signed', () => {
    // The outsider signs its own event correctly; the hub key vouches for the file, listing the outsider as an author.
    const outsider = privateKeyFromSeed(Buffer.alloc(32, 9));
    const header = headerFieldsOf(lines);
    const last = parsed(end - 1);
    const fields: SignedEventFields = {
      id: '01KAPM5S0000000000000000X1',
      from: rawPublicKeyOf(outsider),
      thread: header.thread.id,
      to: null,
      kind: 'message',
      content: 'approved, says the outsider',
      meta: null,
      ts: last.event.ts + 1,
      ttl_secs: 300,
      sender_seq: 1,
      sender_epoch: Buffer.alloc(16, 9),
    };
    const spliced = JSON.stringify({ type: 'event', seq: last.seq + 1, author: 'outsider', roster_version: null, event: eventFieldsToJson(fields), sig: signEvent(outsider, fields).toString('base64url') });
    const authors = [...header.authors, { key: formatPublicKey(rawPublicKeyOf(outsider)), handle: 'outsider' }];
    const resealed = sealedBy(t.hub.internals.ctx.keys.hub(), { ...header, authors }, [...lines.slice(1, end), spliced]);
    expect(verifyLines(resealed)).toMatchObject({ line: end + 1, reason: expect.stringMatching(/by @outsider ed25519:\S+: the author is not in roster local:h_\w+ version 1$/) });
  });
});
