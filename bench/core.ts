import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Hub, HubOptions } from '../src/hub/hub.js';
import { openBenchHub } from './open-hub.js';
import type { Actor } from '../src/hub/actor.js';
import { DEFAULT_INBOX_LIMIT, DEFAULT_RETENTION_CHUNK_BUDGET_MS } from '../src/config/defaults.js';
import { createSilentLogger } from '../src/util/logger.js';
import { summarize, type Summary } from './stats.js';

/**
 * Benchmarks of the hub core, in process, on real SQLite files in a temporary
 * directory (synchronous=FULL, as shipped): post throughput, post-to-inbox
 * delivery latency, readNew latency as history grows.
 */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * The bench measures the hub flat out, as fast as its callers can write: the
 * per-participant write limit is off (a deployment keeps its default).
 */
export const UNLIMITED_WRITES = { chat: { limits: { writesPerMinute: 0 } } };

const WORDS = 'the cache layer needs an eviction policy so we measure hit rates under load before we change the default size of each shard and then review the plan'.split(' ');

/** About `bytes` of ordinary chat text. */
export function chatText(bytes: number, seed: number): string {
  const out: string[] = [];
  let length = 0;
  let i = seed;
  while (length < bytes) {
    const word = WORDS[i % WORDS.length] ?? 'word';
    out.push(word);
    length += word.length + 1;
    i = (i * 7 + 3) % 9973;
  }
  return out.join(' ').slice(0, bytes);
}

function fakeGithubToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return 'gh' + 'p_' + Array.from(crypto.randomBytes(36), (b) => alphabet[b % alphabet.length]).join('');
}

async function withHub<T>(fn: (hub: Hub) => Promise<T>, config = {}, options: Pick<HubOptions, 'signEvents'> = {}): Promise<T> {
  const home = tempDir('parley-bench-');
  const hub = await openBenchHub({ home, logger: createSilentLogger(), config: { ...UNLIMITED_WRITES, ...config }, ...options });
  try {
    return await fn(hub);
  } finally {
    await hub.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

export interface ThroughputResult {
  messages: number;
  concurrency: number;
  seconds: number;
  perSecond: number;
  avgBatch: number;
  secretEvery: number;
}

/** The run of median throughput among several of the same. */
export function medianRun(runs: ThroughputResult[]): ThroughputResult {
  const sorted = [...runs].sort((a, b) => a.perSecond - b.perSecond);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (!middle) throw new Error('medianRun needs at least one run');
  return middle;
}

/** `concurrency` posters, each posting its share of `total` 1 KB messages back to back. */
/** Posts per second through the in-process hub; `options.signEvents: false` measures the same without signing. */
export async function postThroughput(total: number, concurrency: number, secretEvery = 0, config = {}, options: Pick<HubOptions, 'signEvents'> = {}): Promise<ThroughputResult> {
  return withHub(async (hub) => {
    const posters: Actor[] = [];
    for (let i = 0; i < concurrency; i++) posters.push(await hub.join({ handle: `agent-${i}`, session: 'bench' }));
    const texts = Array.from({ length: 64 }, (_, i) => chatText(1024, i));
    const before = hub.stats();
    let next = 0;
    const start = performance.now();
    await Promise.all(
      posters.map(async (poster) => {
        for (;;) {
          const n = next++;
          if (n >= total) return;
          let text = texts[n % texts.length] ?? '';
          if (secretEvery > 0 && n % secretEvery === 0) text = `${text.slice(0, 900)} token ${fakeGithubToken()}`;
          await poster.post({ thread: 'general', text });
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const after = hub.stats();
    const batches = after.batches - before.batches;
    return {
      messages: total,
      concurrency,
      seconds,
      perSecond: total / seconds,
      avgBatch: (after.writes - before.writes) / Math.max(1, batches),
      secretEvery,
    };
  }, config, options);
}

/** Time from a post call until each of `receivers` subscribed participants has it in a live inbox stream. */
export async function deliveryLatency(receivers: number, posts: number, config = {}): Promise<Summary> {
  return withHub(async (hub) => {
    const sender = await hub.join({ handle: 'sender', session: 'bench' });
    const actors: Actor[] = [];
    for (let i = 0; i < receivers; i++) actors.push(await hub.join({ handle: `agent-${i}`, session: 'bench' }));
    const sentAt = new Map<string, number>();
    const samples: number[] = [];
    let pending = 0;
    let notifyDone: (() => void) | undefined;
    const consumers = actors.map(async (actor) => {
      const live = actor.live({ inbox: true, ephemeral: false });
      for await (const item of live) {
        if (item.kind !== 'event' || item.event.type !== 'message') continue;
        const start = sentAt.get(item.event.content as string);
        if (start !== undefined) samples.push(performance.now() - start);
        pending -= 1;
        if (pending === 0) notifyDone?.();
        if (item.event.content === `m${posts - 1}`) break;
      }
    });
    for (let i = 0; i < posts; i++) {
      const text = `m${i}`;
      const done = new Promise<void>((resolve) => (notifyDone = resolve));
      pending = receivers;
      sentAt.set(text, performance.now());
      await sender.post({ thread: 'general', text });
      await done;
    }
    await Promise.all(consumers);
    return summarize(samples);
  }, config);
}

export interface ReadNewResult {
  events: number;
  summary: Summary;
  buildSeconds: number;
}

/**
 * Fills a store with `events` short messages (bulk-inserted: this builds the
 * fixture, it is not what is measured), then measures readNew of the 50 newest.
 */
export async function readNewLatency(eventsWanted: number, iterations: number, home?: string): Promise<ReadNewResult> {
  const dir = home ?? tempDir('parley-bench-read-');
  const hub = await openBenchHub({ home: dir, logger: createSilentLogger(), config: UNLIMITED_WRITES });
  try {
    const writer = await hub.join({ handle: 'writer', session: 'bench' });
    const reader = await hub.join({ handle: 'reader', session: 'bench' });
    const buildStart = performance.now();
    await bulkFill(hub, writer, eventsWanted);
    const buildSeconds = (performance.now() - buildStart) / 1000;
    const { store } = hub.internals;
    const threadId = (await reader.threads()).find((t) => t.name === 'general')?.id ?? '';
    const last = hub.stats().lastSeq;
    const reset = store.db.prepare('INSERT OR REPLACE INTO cursors (participant_id, thread_id, seq) VALUES (?, ?, ?)');
    const samples: number[] = [];
    for (let i = 0; i < iterations + 50; i++) {
      reset.run(reader.participant.id, threadId, last - 50);
      await yieldToLoop();
      const start = performance.now();
      const result = await reader.readNew({ thread: 'general' });
      const elapsed = performance.now() - start;
      if (result.events.length !== 50) throw new Error(`readNew returned ${result.events.length} events, expected 50`);
      if (i >= 50) samples.push(elapsed); // the first 50 warm the caches
    }
    return { events: hub.stats().events, summary: summarize(samples), buildSeconds };
  } finally {
    await hub.close();
    if (!home) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Appends short messages in large transactions straight through the event log. */
export async function bulkFill(hub: Hub, writer: Actor, total: number): Promise<void> {
  const { store, ctx } = hub.internals;
  const thread = [...ctx.state.threads.values()].find((t) => t.name === 'general' && t.sessionId === writer.session.id);
  if (!thread) throw new Error('no general thread');
  const already = hub.stats().events;
  const insertMany = store.db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const seq = ctx.state.nextSeq++;
      const text = chatText(120, i);
      store.events.append(
        {
          seq,
          id: ctx.newId(),
          session_id: thread.sessionId,
          thread_id: thread.id,
          ts: Date.now(),
          type: 'message',
          from_id: writer.participant.id,
          author: 'writer',
          to_id: 'all',
          content: text,
          meta: null,
          // Unsigned: reads never look at signatures, and signing a million rows would dwarf the fixture's build.
          sig: null,
          ttl_secs: null,
          sender_seq: null,
          sender_epoch: null,
          roster_version: null,
          signed_ts: null,
          signed_meta: null,
          signed_thread: null,
          prev_seq: null,
        },
      );
    }
  });
  const chunk = 20_000;
  await yieldToLoop(); // let any open group commit finish first
  for (let done = already; done < total; done += chunk) {
    insertMany(done, Math.min(total, done + chunk));
  }
  store.events.markCommitted(ctx.state.nextSeq - 1);
  // Index the new events as the hub would at its next start.
  await ctx.search.catchUp();
}

/** A prune may add at most this to the writers' p99: each chunk holds the writer for about one budget (retention.chunkBudgetMs). */
export const RETENTION_P99_SLACK_MS = 2 * DEFAULT_RETENTION_CHUNK_BUDGET_MS;

export interface PruneLatencyResult {
  /** Events in the thread retention empties. */
  history: number;
  pruned: number;
  pruneSeconds: number;
  prunedPerSecond: number;
  chunks: number;
  /** Post latency of `posters` posting back to back, with no prune running. */
  idle: Summary;
  /** The same while the prune runs. */
  duringPrune: Summary;
}

/**
 * Post latency (p50/p99) of `posters` posting back to back, first with nothing
 * else running, then while retention prunes a thread of `history` old events:
 * what the chunked, time-budgeted prune costs the writers.
 */
export async function postLatencyDuringPrune(history: number, posters: number, idlePosts: number, config = {}): Promise<PruneLatencyResult> {
  const home = tempDir('parley-bench-');
  let now = Date.now();
  const hub = await openBenchHub({ home, logger: createSilentLogger(), now: () => now, config: { ...UNLIMITED_WRITES, retention: { intervalMs: 86_400_000 }, ...config } });
  try {
    const old = await hub.join({ handle: 'archivist', session: 'bench' });
    await old.createChannel({ name: 'old' });
    const texts = Array.from({ length: 64 }, (_, i) => chatText(1024, i));
    for (let i = 0; i < history; i += 200) {
      await Promise.all(Array.from({ length: Math.min(200, history - i) }, (_, j) => old.post({ thread: 'old', text: texts[(i + j) % texts.length] ?? '' })));
    }
    // Everything so far is past the 72 h default.
    now += 100 * 3_600_000;
    const actors: Actor[] = [];
    for (let i = 0; i < posters; i++) actors.push(await hub.join({ handle: `agent-${i}`, session: 'bench' }));
    const post = async (actor: Actor, n: number, samples: number[]): Promise<void> => {
      const start = performance.now();
      await actor.post({ thread: 'general', text: texts[n % texts.length] ?? '' });
      samples.push(performance.now() - start);
    };
    const idleSamples: number[] = [];
    let n = 0;
    await Promise.all(actors.map(async (actor) => {
      while (n < idlePosts) await post(actor, n++, idleSamples);
    }));
    const pruneSamples: number[] = [];
    let pruning = true;
    const start = performance.now();
    const pass = hub.prune().finally(() => (pruning = false));
    await Promise.all(actors.map(async (actor) => {
      while (pruning) await post(actor, n++, pruneSamples);
    }));
    const report = await pass;
    const pruneSeconds = (performance.now() - start) / 1000;
    return {
      history,
      pruned: report.events,
      pruneSeconds,
      prunedPerSecond: report.events / pruneSeconds,
      chunks: report.chunks,
      idle: summarize(idleSamples),
      duringPrune: summarize(pruneSamples),
    };
  } finally {
    await hub.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

export interface InboxCostResult {
  threads: number;
  unread: number;
  /** `peek` (what a hook or a wait pays per check) while `unread` rows wait past the cursors. */
  peek: Summary;
  /** A consuming `inbox` while the backlog is still there (each call takes the limit from it). */
  backlog: Summary;
  /** A consuming `inbox` with nothing new since the last call. */
  upToDate: Summary;
  /** A consuming `inbox` after one new message in one of the threads. */
  oneNew: Summary;
}

/**
 * What one reader's inbox call costs with `threads` channels subscribed and
 * `unread` messages from another participant spread over them: the cost
 * should follow what is new since the last call, not what is subscribed or unread.
 */
export async function inboxCost(threads: number, unread: number, calls = 200): Promise<InboxCostResult> {
  return withHub(async (hub) => {
    const writer = await hub.join({ handle: 'writer', session: 'bench' });
    const reader = await hub.join({ handle: 'reader', session: 'bench' });
    const names = Array.from({ length: threads }, (_, i) => `c${i}`);
    // Set up 100 channels at a time: each batch shares a commit.
    for (let i = 0; i < names.length; i += 100) {
      const batch = names.slice(i, i + 100);
      await Promise.all(batch.map((name) => writer.createChannel({ name })));
      await Promise.all(batch.map((name) => reader.subscribe(name)));
    }
    for (let i = 0; i < unread; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, unread - i) }, (_, j) => writer.post({ thread: names[(i + j) % threads]!, text: chatText(120, i + j) })));
    }
    const timed = async (fn: () => Promise<unknown>, samples: number[]): Promise<void> => {
      await yieldToLoop();
      const start = performance.now();
      await fn();
      samples.push(performance.now() - start);
    };
    const peek: number[] = [];
    // A peek over a large backlog is slow by nature (it reads every thread holding something): fewer samples of it.
    const backlogCalls = Math.min(calls, 20);
    for (let i = 0; i < backlogCalls; i++) await timed(() => reader.peek(), peek);
    const backlog: number[] = [];
    for (let i = 0; i < Math.min(backlogCalls, Math.floor(unread / 2 / DEFAULT_INBOX_LIMIT)); i++) await timed(() => reader.inbox(), backlog);
    // Catch up thread by thread (readNew moves the same cursors): cheaper than draining through the inbox.
    for (const name of names) while ((await reader.readNew({ thread: name })).events.length > 0);
    while ((await reader.inbox()).more);
    const upToDate: number[] = [];
    for (let i = 0; i < calls; i++) await timed(() => reader.inbox(), upToDate);
    const oneNew: number[] = [];
    for (let i = 0; i < calls; i++) {
      await writer.post({ thread: names[i % threads]!, text: chatText(120, i) });
      await timed(async () => {
        const { items } = await reader.inbox();
        if (items.length !== 1) throw new Error(`inbox returned ${items.length} items after one new message`);
      }, oneNew);
    }
    return { threads, unread, peek: summarize(peek), backlog: summarize(backlog), upToDate: summarize(upToDate), oneNew: summarize(oneNew) };
  });
}
