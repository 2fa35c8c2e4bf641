import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STORE_FILENAME } from '../../src/config/defaults.js';
import { openHub, type Hub } from '../../src/hub/hub.js';
import { rawKeyOf } from '../../src/hub/participant-key.js';
import type { EventRow } from '../../src/store/event-log.js';
import { signedFieldsOfRow } from '../../src/store/signed-fields.js';
import { verifyEvent } from '../../src/trust/envelope.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { spawnFixture, type FixtureChild } from '../fixtures/child-process.js';
import { tempHome } from '../helpers/hub.js';

const cleanups: Array<() => void | Promise<unknown>> = [];
const children: FixtureChild[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) await child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Ack {
  seq: number;
  id: string;
}

function parseAck(line: string): Ack | undefined {
  const match = /^ACK (\d+) (\S+)$/.exec(line);
  return match ? { seq: Number(match[1]), id: match[2] as string } : undefined;
}

describe('crash safety', () => {
  it('crash - a hub SIGKILLed mid-stream keeps every acknowledged post, and the store is intact', async () => {
    const { home, cleanup } = tempHome('parley-crash-');
    cleanups.push(cleanup);
    const total = 300;
    const wave = 20;

    const child = spawnFixture('post-storm.mjs', [home, String(total), String(wave)]);
    children.push(child);
    let acksAtKill = -1;
    let acks = 0;
    child.onLine((line) => {
      if (!line.startsWith('ACK ')) return;
      acks += 1;
      // Kill as soon as half the posts are acknowledged, while the rest are still being written.
      if (acks >= total / 2 && acksAtKill < 0) {
        acksAtKill = acks;
        child.proc.kill('SIGKILL');
      }
    });
    const exit = await child.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(acksAtKill).toBeGreaterThanOrEqual(total / 2);

    // Every ACK line the child printed before it died (the output is read to its end).
    const acked = child.lines.map(parseAck).filter((ack): ack is Ack => ack !== undefined);
    expect(acked.length).toBeGreaterThanOrEqual(total / 2);
    expect(acked.length).toBeLessThanOrEqual(total);
    expect(new Set(acked.map((a) => a.id)).size).toBe(acked.length);
    expect(new Set(acked.map((a) => a.seq)).size).toBe(acked.length);
    // The child never closed its hub: whatever it had committed is still in the WAL.
    expect(fs.existsSync(path.join(home, `${STORE_FILENAME}-wal`))).toBe(true);

    const hub: Hub = await openHub({ home, logger: createSilentLogger() });
    cleanups.push(() => hub.close());
    expect(hub.integrityCheck()).toBe('ok');

    const events = hub.internals.store.events;
    for (const ack of acked) {
      const row = events.byId(ack.id);
      expect(row, `acknowledged post ${ack.id} (seq ${ack.seq}) is missing`).toBeDefined();
      expect(row?.seq).toBe(ack.seq);
      expect(row?.type).toBe('message');
      expect(row?.content).toMatch(/^storm message \d+$/);
    }

    // Seqs are strictly increasing without gaps or duplicates, and ids follow seq order.
    const rows = hub.internals.store.db.prepare('SELECT seq, id FROM events ORDER BY seq').all() as Array<Pick<EventRow, 'seq' | 'id'>>;
    expect(rows.length).toBeGreaterThanOrEqual(acked.length);
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    for (let i = 1; i < rows.length; i++) expect((rows[i]?.id ?? '') > (rows[i - 1]?.id ?? '')).toBe(true);
    const messages = hub.internals.store.db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'message'").get() as { n: number };
    expect(messages.n).toBeGreaterThanOrEqual(acked.length);
    expect(messages.n).toBeLessThanOrEqual(total);
    // Every stored message was one the child posted, each once.
    const texts = hub.internals.store.db.prepare("SELECT content FROM events WHERE type = 'message'").all() as Array<{ content: string }>;
    expect(new Set(texts.map((t) => t.content)).size).toBe(texts.length);

    // Signatures still on their way when the child died are made at the start: every event verifies.
    const rawKeyOfId = (id: string): Buffer => rawKeyOf(hub.internals.ctx.state.participant(id));
    const stored = hub.internals.store.db.prepare('SELECT * FROM events ORDER BY seq').all() as EventRow[];
    const unverified = stored.filter((row) => {
      const sig = events.signatureOf(row);
      return sig === null || !verifyEvent(signedFieldsOfRow(row, rawKeyOfId), sig);
    });
    expect(unverified.map((row) => row.seq)).toEqual([]);

    // The recovered hub carries on from the last stored seq, and the history reads back in order.
    const lastSeq = rows[rows.length - 1]?.seq ?? 0;
    expect(hub.stats().lastSeq).toBe(lastSeq);
    const storm = hub.actor('storm');
    const next = await storm.post({ thread: 'general', text: 'after the crash' });
    expect(next.seq).toBe(lastSeq + 1);
    expect(hub.integrityCheck()).toBe('ok');
  });
});
