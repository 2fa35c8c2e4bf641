/**
 * History sync across three hubs on loopback: hub C's participant posts
 * while hub B is cut off (its links blocked), C goes away, B's link to A
 * comes back and B gets C's events from A, which holds them. A and C run
 * here, B in a child process (bench/peer-child.ts), as on another machine.
 * Measured on B: from its link to A coming back to the first missed event
 * stored, and to the last; beside C's own post rate in the same run.
 */

import fs from 'node:fs';
import type { Actor, Hub } from '../src/hub/index.js';
import { PeerLinks } from '../src/peer/index.js';
import { formatPublicKey } from '../src/trust/node-id.js';
import { signRoster } from '../src/trust/roster.js';
import { createSilentLogger, createStderrLogger } from '../src/util/logger.js';
import { chatText, tempDir, UNLIMITED_WRITES } from './core.js';
import { openBenchHub } from './open-hub.js';
import { HubB } from './peer.js';

export interface HistoryRound {
  /** Events C posted while B was down. */
  events: number;
  /** C's own post rate while it posted them (100 in flight, 1 KB each). */
  localPerSecond: number;
  /** From B's link to A up to the first missed event stored on B, and to the last. */
  firstMs: number;
  convergedMs: number;
}

export interface HistoryBenchResult {
  rounds: HistoryRound[];
}

/** Posts C has in flight at a time. */
const IN_FLIGHT = 100;
/** Every event kept: retention is not what this measures. */
const CONFIG = { ...UNLIMITED_WRITES, retention: { messages: 1_000_000 } };
const link = { listen: ['/ip4/127.0.0.1/tcp/0'], logger: process.env.BENCH_CHILD_LOG ? createStderrLogger() : createSilentLogger(), redialMs: 20, maxRedialMs: 200 };

export async function historyBench(sizes: readonly number[]): Promise<HistoryBenchResult> {
  const homes = [tempDir('parley-bench-history-a-'), tempDir('parley-bench-history-b-'), tempDir('parley-bench-history-c-')];
  const a: Hub = await openBenchHub({ home: homes[0]!, logger: createSilentLogger(), config: CONFIG });
  const c: Hub = await openBenchHub({ home: homes[2]!, logger: createSilentLogger(), config: CONFIG });
  const stopping: Array<() => Promise<unknown>> = [];
  const b = new HubB(homes[1]!);
  try {
    await a.join({ handle: 'ann' });
    const cal: Actor = await c.join({ handle: 'cal' });
    const { opened } = await b.next('opened');
    const member = (hub: Hub, role: 'admin' | 'member') => ({ pubkey: formatPublicKey(hub.internals.ctx.keys.hub().raw), role, kind: 'hub' as const });
    const members = [
      member(a, 'admin'),
      { pubkey: opened.key, role: 'member' as const, kind: 'hub' as const },
      member(c, 'member'),
      ...[a, c].flatMap((hub) => hub.participantsWithAccess().map((p) => ({ pubkey: p.pubkey, role: 'operator' as const }))),
      { pubkey: opened.bea, role: 'operator' as const },
    ];
    const roster = signRoster({ org_id: 'bench', version: 1, timestamp: '2026-11-28T00:00:00Z', members, signatures: [] }, a.internals.ctx.keys.hub().privateKey);
    await a.acceptRoster(roster);
    await c.acceptRoster(roster);
    const linksA = await PeerLinks.start({ hub: a, home: homes[0]!, ...link });
    stopping.push(() => linksA.stop());
    let linksC: PeerLinks | undefined = await PeerLinks.start({ hub: c, home: homes[2]!, ...link });
    stopping.push(async () => linksC?.stop());
    await linksC.add(linksA.addrs()[0]!);
    b.send({ roster });
    await b.next('listening');
    b.send({ add: linksA.addrs()[0]! });
    // B and C registered on A (their hellos); then B cuts its links to A and C, as a partition would.
    while (!a.participant('bea') || !a.participant('cal')) await new Promise((resolve) => setTimeout(resolve, 5));
    const keyOf = (hub: Hub): string => formatPublicKey(hub.internals.ctx.keys.hub().raw);
    b.send({ block: [keyOf(a), keyOf(c)] });
    await b.next('blocked');

    let onA = 0;
    a.onEvents('default', (event) => {
      if (event.type === 'message') onA += 1;
    });
    const texts = Array.from({ length: 64 }, (_, i) => chatText(1024, i));
    const rounds: HistoryRound[] = [];
    for (const events of sizes) {
      // C posts while B is cut off; A has them all; C goes away.
      linksC ??= await PeerLinks.start({ hub: c, home: homes[2]!, ...link });
      const goalOnA = onA + events;
      const start = performance.now();
      // 100 posts in flight at a time (the hub writes them in order): one at a time, each would wait for its own commit.
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          for (let n = next++; n < events; n = next++) await cal.post({ thread: 'general', text: texts[n % texts.length]! });
        }),
      );
      const localPerSecond = events / ((performance.now() - start) / 1000);
      while (onA < goalOnA) await new Promise((resolve) => setTimeout(resolve, 5));
      await linksC.stop();
      linksC = undefined;
      // B's link to A comes back: it gets C's events from A.
      b.send({ unblock: keyOf(a), expect: events });
      const reached = await b.next('reached');
      rounds.push({ events, localPerSecond, firstMs: reached.firstMs - reached.linkedMs, convergedMs: reached.ms - reached.linkedMs });
      b.send({ block: [keyOf(a)] });
      await b.next('blocked');
    }
    return { rounds };
  } finally {
    await b.stop().catch(() => b.kill());
    for (const stop of stopping) await stop();
    await a.close();
    await c.close();
    for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
  }
}
