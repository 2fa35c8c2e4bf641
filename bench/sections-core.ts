import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { rawSqlite } from './baseline.js';
import { deliveryLatency, inboxCost, medianRun, postLatencyDuringPrune, postThroughput, readNewLatency, tempDir, type ThroughputResult } from './core.js';
import { READ_NEW_SIZES, READ_NEW_SIZES_QUICK } from './figures.js';
import { middlewareBench } from './middleware.js';
import type { Section, SectionResult } from './section.js';
import { startupBench } from './startup.js';

/** The sections measured in this process: start-up, middleware, posts, retention, delivery, readNew. */

const startup: Section = {
  name: 'startup',
  // First, while nothing else of the benchmark has warmed or loaded the machine.
  run: async ({ quick, log }) => {
    log('CLI start-up: node -e 0, parley --version, parley say and parley hook against a running hub');
    const result = await startupBench({ runs: quick ? 5 : 30 });
    const { node, version, say, hook, hookHome } = result.medianMs;
    return {
      values: { 'startup.node': node, 'startup.version': version, 'startup.say': say, 'startup.hook': hook, 'startup.hookHome': hookHome },
      notes: { 'startup.node': `median of ${result.runs}` },
      details: result,
    };
  },
};

const middleware: Section = {
  name: 'middleware',
  run: async ({ quick, log }) => {
    log('LLM middleware: a generateText call on an instant model, bare and through parleyMiddleware');
    const result = await middlewareBench({ calls: quick ? 20 : 300 });
    const { bare, nothingNew, oneNew } = result.medianMs;
    return {
      values: { 'middleware.bare': bare, 'middleware.nothingNew': nothingNew - bare, 'middleware.oneNew': oneNew - bare },
      notes: { 'middleware.bare': `median of ${result.calls}` },
      details: result,
    };
  },
};

const post: Section = {
  name: 'post',
  run: async ({ quick, log }) => {
    log('raw better-sqlite3 anchor');
    const raw = rawSqlite('NORMAL');
    const rawFull = rawSqlite('FULL');
    log('post throughput, signed and unsigned alternating, 3 rounds');
    const total = quick ? 2_000 : 40_000;
    const sequentialTotal = quick ? 500 : 5_000;
    // Signed against unsigned, alternating, three rounds: the ratio of the medians, so that one noisy run does not decide it.
    const rounds = { sequential: [] as ThroughputResult[], concurrent: [] as ThroughputResult[], unsignedSequential: [] as ThroughputResult[], unsignedConcurrent: [] as ThroughputResult[] };
    for (let round = 0; round < 3; round++) {
      rounds.unsignedSequential.push(await postThroughput(sequentialTotal, 1, 0, {}, { signEvents: false }));
      rounds.sequential.push(await postThroughput(sequentialTotal, 1));
      rounds.unsignedConcurrent.push(await postThroughput(total, 100, 0, {}, { signEvents: false }));
      rounds.concurrent.push(await postThroughput(total, 100));
    }
    const sequential = medianRun(rounds.sequential);
    const concurrent = medianRun(rounds.concurrent);
    const unsignedSequential = medianRun(rounds.unsignedSequential);
    const unsignedConcurrent = medianRun(rounds.unsignedConcurrent);
    const withSecrets = await postThroughput(total, 100, 10);
    const durable = await postThroughput(total, 100, 0, { store: { synchronous: 'full' } });
    const signedRatio = { sequential: sequential.perSecond / unsignedSequential.perSecond, concurrent: concurrent.perSecond / unsignedConcurrent.perSecond };
    return {
      values: {
        'raw.normal': raw.singleRowTxPerSecond,
        'raw.full': rawFull.singleRowTxPerSecond,
        'post.sequential': sequential.perSecond,
        'post.concurrent': concurrent.perSecond,
        'post.withSecrets': withSecrets.perSecond,
        'post.durable': durable.perSecond,
        'post.unsignedSequential': unsignedSequential.perSecond,
        'post.unsignedConcurrent': unsignedConcurrent.perSecond,
        'post.signedRatio.sequential': signedRatio.sequential,
        'post.signedRatio.concurrent': signedRatio.concurrent,
      },
      notes: { 'post.concurrent': `avg batch ${concurrent.avgBatch.toFixed(1)}`, 'post.durable': `avg batch ${durable.avgBatch.toFixed(1)}` },
      details: { rawSqlite: { normal: raw, full: rawFull }, postThroughput: { sequential, concurrent, withSecrets, durable, unsignedSequential, unsignedConcurrent, signedRatio, rounds } },
    };
  },
};

const inbox: Section = {
  name: 'inbox',
  run: async ({ quick, log }) => {
    log('inbox cost: 1 thread with nothing unread, then 1000 threads with 10,000 unread');
    const calls = quick ? 50 : 200;
    const small = await inboxCost(1, 0, calls);
    const large = await inboxCost(1000, 10_000, calls);
    return {
      values: {
        'inbox.small.oneNew': small.oneNew.p50,
        'inbox.upToDate': large.upToDate.p50,
        'inbox.oneNew': large.oneNew.p50,
        'inbox.backlog': large.backlog.p50,
        'inbox.peek': large.peek.p50,
      },
      details: { small, large },
    };
  },
};

const prune: Section = {
  name: 'prune',
  run: async ({ quick, log }) => {
    log('post latency while retention prunes');
    const result = await postLatencyDuringPrune(quick ? 10_000 : 100_000, 10, quick ? 1_000 : 5_000);
    return {
      values: {
        'prune.rate': result.prunedPerSecond,
        'prune.idle.p50': result.idle.p50,
        'prune.idle.p99': result.idle.p99,
        'prune.during.p50': result.duringPrune.p50,
        'prune.during.p99': result.duringPrune.p99,
      },
      notes: { 'prune.rate': `${result.pruned} events, ${result.chunks} chunks` },
      details: result,
    };
  },
};

const delivery: Section = {
  name: 'delivery',
  run: async ({ quick, log }) => {
    log('delivery latency to 100 participants');
    const result = await deliveryLatency(100, quick ? 50 : 200);
    return { values: { 'delivery.p50': result.p50, 'delivery.p99': result.p99 }, details: result };
  },
};

const readnew: Section = {
  name: 'readnew',
  run: async ({ quick, log }) => {
    const sizes: readonly number[] = quick ? READ_NEW_SIZES_QUICK : READ_NEW_SIZES;
    const out: SectionResult = { values: {}, notes: {}, details: {} };
    const details: Record<string, unknown> = {};
    let bigHome: string | undefined;
    for (const size of sizes) {
      log(`readNew with ${size} events stored`);
      const home = size === sizes[sizes.length - 1] ? tempDir('parley-bench-big-') : undefined;
      const result = await readNewLatency(size, quick ? 200 : 2000, home);
      details[String(size)] = result;
      out.values[`readnew.e${size}.p50`] = result.summary.p50;
      out.values[`readnew.e${size}.p99`] = result.summary.p99;
      if (home) bigHome = home;
    }
    if (bigHome) {
      try {
        log('RSS of a hub process on the largest store');
        const probe = path.join(path.dirname(new URL(import.meta.url).pathname), 'rss-probe.js');
        const printed = execFileSync(process.execPath, ['--expose-gc', probe, bigHome], { encoding: 'utf8' });
        const rss = JSON.parse(printed.trim()) as { events: number; rssMb: number };
        const storeSizeMb = fs.statSync(path.join(bigHome, 'parley.db')).size / 1024 / 1024;
        out.values['rss.largestStore'] = rss.rssMb;
        out.values['store.sizeMb'] = storeSizeMb;
        out.notes!['rss.largestStore'] = `${rss.events} events`;
        details.rss = rss;
        details.storeSizeMb = storeSizeMb;
      } finally {
        fs.rmSync(bigHome, { recursive: true, force: true });
      }
    }
    out.details = details;
    return out;
  },
};

export const CORE_SECTIONS: readonly Section[] = [startup, middleware, post, inbox, prune, delivery, readnew];
