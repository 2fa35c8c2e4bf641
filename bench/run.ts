import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rawSqlite } from './baseline.js';
import { RETENTION_P99_SLACK_MS, deliveryLatency, medianRun, postLatencyDuringPrune, postThroughput, readNewLatency, tempDir, type ThroughputResult } from './core.js';
import { bareSseDelivery, restRoundTrips, sseDelivery } from './http.js';
import { mcpRoundTrips } from './mcp.js';
import { webBench } from './web.js';
import { soak } from './soak.js';
import { heavyReaderAttack } from './heavy-reader.js';
import { HOOK_TARGET_RATIO, startupBench } from './startup.js';
import { MIDDLEWARE_TARGET_MS, middlewareBench } from './middleware.js';
import { DEFAULT_MCP_MAX_BATCH_SIZE } from '../src/config/defaults.js';

/**
 * `npm run bench`: the hub core's figures against the targets, printed
 * as a table and written as JSON to bench-output/core.json. A benchmark, not a
 * test: it asserts nothing, it reports. Set BENCH_QUICK=1 for a short run.
 */
const quick = process.env.BENCH_QUICK === '1';
/** Signing may cost at most 30% of in-process post throughput (signed / unsigned >= 0.7). */
const SIGNED_RATIO_TARGET = 0.7;
const sizes = quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];

interface Row {
  metric: string;
  value: string;
  target: string;
  ok: boolean | null;
}

const rows: Row[] = [];
const fmt = (n: number, digits = 3): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
const log = (msg: string): void => void process.stderr.write(`bench: ${msg}\n`);

async function main(): Promise<void> {
  const results: Record<string, unknown> = {
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, platform: process.platform },
    date: new Date().toISOString(),
  };

  // First, while nothing else of the benchmark has warmed or loaded the machine.
  log('CLI start-up: node -e 0, parley --version, parley say and parley hook against a running hub');
  const startup = await startupBench({ runs: quick ? 10 : 30 });
  results.startup = startup;
  rows.push({ metric: `start-up, median of ${startup.runs}: node -e 0 (ms)`, value: fmt(startup.medianMs.node, 1), target: 'anchor', ok: null });
  rows.push({
    metric: `start-up: parley --version (ms; ${fmt(startup.ratio.version, 2)}x node)`,
    value: fmt(startup.medianMs.version, 1),
    target: '<= 2.5x node',
    ok: startup.ratio.version <= 2.5,
  });
  rows.push({
    metric: `start-up: parley say, running hub (ms; ${fmt(startup.ratio.say, 2)}x node)`,
    value: fmt(startup.medianMs.say, 1),
    target: '<= 4x node',
    ok: startup.ratio.say <= 4,
  });
  rows.push({
    metric: `start-up: parley hook claude post-tool-use, nothing new (ms; ${fmt(startup.ratio.hook, 2)}x node)`,
    value: fmt(startup.medianMs.hook, 1),
    target: `<= ${HOOK_TARGET_RATIO}x node`,
    ok: startup.ratio.hook <= HOOK_TARGET_RATIO,
  });
  rows.push({
    metric: `start-up: the same hook finding its hub through the home, which proves itself first (ms; ${fmt(startup.ratio.hookHome, 2)}x node)`,
    value: fmt(startup.medianMs.hookHome, 1),
    target: `<= ${HOOK_TARGET_RATIO}x node`,
    ok: startup.ratio.hookHome <= HOOK_TARGET_RATIO,
  });

  log('LLM middleware: a generateText call on an instant model, bare and through parleyMiddleware');
  const middleware = await middlewareBench({ calls: quick ? 50 : 300 });
  results.middleware = middleware;
  const overhead = { nothingNew: middleware.medianMs.nothingNew - middleware.medianMs.bare, oneNew: middleware.medianMs.oneNew - middleware.medianMs.bare };
  rows.push({ metric: `middleware, median of ${middleware.calls}: bare generateText (ms)`, value: fmt(middleware.medianMs.bare, 2), target: 'anchor', ok: null });
  rows.push({ metric: '  overhead per call, nothing new (ms)', value: fmt(overhead.nothingNew, 2), target: '', ok: null });
  rows.push({
    metric: '  overhead per call, one new DM injected and taken (ms)',
    value: fmt(overhead.oneNew, 2),
    target: `<= ${MIDDLEWARE_TARGET_MS}`,
    ok: overhead.oneNew <= MIDDLEWARE_TARGET_MS,
  });

  log('raw better-sqlite3 baseline');
  const raw = rawSqlite('NORMAL');
  const rawFull = rawSqlite('FULL');
  results.rawSqlite = { normal: raw, full: rawFull };
  rows.push({ metric: 'raw SQLite one-row transactions/s (WAL, NORMAL)', value: fmt(raw.singleRowTxPerSecond, 0), target: 'anchor', ok: null });
  rows.push({ metric: 'raw SQLite one-row transactions/s (WAL, FULL)', value: fmt(rawFull.singleRowTxPerSecond, 0), target: 'anchor', ok: null });

  log('post throughput');
  const total = quick ? 5_000 : 40_000;
  const sequentialTotal = quick ? 1_000 : 5_000;
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
  results.postThroughput = { sequential, concurrent, withSecrets, durable, unsignedSequential, unsignedConcurrent, signedRatio, rounds };
  rows.push({ metric: 'post 1 KB, 1 poster (msg/s)', value: fmt(sequential.perSecond, 0), target: 'n/a', ok: null });
  rows.push({
    metric: `post 1 KB, 100 posters (msg/s; avg batch ${fmt(concurrent.avgBatch, 1)})`,
    value: fmt(concurrent.perSecond, 0),
    target: '>= 20000',
    ok: concurrent.perSecond >= 20_000,
  });
  rows.push({
    metric: '  same, 1 in 10 carrying a token (msg/s)',
    value: fmt(withSecrets.perSecond, 0),
    target: '>= 20000',
    ok: withSecrets.perSecond >= 20_000,
  });
  rows.push({
    metric: '  same, store.synchronous=full (msg/s)',
    value: fmt(durable.perSecond, 0),
    target: '',
    ok: null,
  });
  rows.push({
    metric: `signed / unsigned post throughput, 1 poster (medians of 3: ${fmt(sequential.perSecond, 0)} / ${fmt(unsignedSequential.perSecond, 0)} msg/s)`,
    value: fmt(signedRatio.sequential, 2),
    target: `>= ${SIGNED_RATIO_TARGET}`,
    ok: signedRatio.sequential >= SIGNED_RATIO_TARGET,
  });
  rows.push({
    metric: `signed / unsigned post throughput, 100 posters (medians of 3: ${fmt(concurrent.perSecond, 0)} / ${fmt(unsignedConcurrent.perSecond, 0)} msg/s)`,
    value: fmt(signedRatio.concurrent, 2),
    target: `>= ${SIGNED_RATIO_TARGET}`,
    ok: signedRatio.concurrent >= SIGNED_RATIO_TARGET,
  });
  rows.push({
    metric: '  ratio, 100 posters / raw one-row transactions (NORMAL)',
    value: fmt(concurrent.perSecond / raw.singleRowTxPerSecond, 2),
    target: '',
    ok: null,
  });

  log('post latency while retention prunes');
  const prune = await postLatencyDuringPrune(quick ? 20_000 : 100_000, 10, quick ? 2_000 : 5_000);
  results.retention = prune;
  rows.push({
    metric: `retention: prune ${prune.pruned} old events (${prune.chunks} chunks; events/s)`,
    value: fmt(prune.prunedPerSecond, 0),
    target: '',
    ok: null,
  });
  rows.push({ metric: '  post latency p99, 10 posters, no prune (ms)', value: fmt(prune.idle.p99, 2), target: 'anchor', ok: null });
  rows.push({
    metric: `  post latency p99, 10 posters, during the prune (ms; p50 ${fmt(prune.duringPrune.p50, 2)} vs ${fmt(prune.idle.p50, 2)})`,
    value: fmt(prune.duringPrune.p99, 2),
    target: `<= idle p99 + ${RETENTION_P99_SLACK_MS}`,
    ok: prune.duringPrune.p99 <= prune.idle.p99 + RETENTION_P99_SLACK_MS,
  });

  log('delivery latency to 100 participants');
  const delivery = await deliveryLatency(100, quick ? 50 : 200);
  results.delivery = delivery;
  rows.push({ metric: 'post-to-inbox delivery p50, 100 participants (ms)', value: fmt(delivery.p50), target: '', ok: null });
  rows.push({ metric: 'post-to-inbox delivery p99, 100 participants (ms)', value: fmt(delivery.p99), target: '<= 5', ok: delivery.p99 <= 5 });

  log('REST post round trips (keep-alive) against bare node:http');
  const rest = await restRoundTrips([1, 10, 100], quick ? 1000 : 5000);
  results.rest = rest;
  for (const level of rest) {
    rows.push({
      metric: `REST post, ${level.clients} client(s): p50 / p99 (ms)`,
      value: `${fmt(level.hub.latency.p50)} / ${fmt(level.hub.latency.p99)}`,
      target: level.clients === 1 ? 'p50 <= 1' : '',
      ok: level.clients === 1 ? level.hub.latency.p50 <= 1 : null,
    });
    rows.push({
      metric: `REST post, ${level.clients} client(s): throughput (req/s)`,
      value: fmt(level.hub.perSecond, 0),
      target: level.clients === 100 ? '>= 8000' : '',
      ok: level.clients === 100 ? level.hub.perSecond >= 8000 : null,
    });
    rows.push({
      metric: `  vs bare node:http (p50 ${fmt(level.bare.latency.p50)} ms, ${fmt(level.bare.perSecond, 0)} req/s): p50 x, throughput x`,
      value: `${fmt(level.hub.latency.p50 / level.bare.latency.p50, 1)}, ${fmt(level.hub.perSecond / level.bare.perSecond, 2)}`,
      target: '',
      ok: null,
    });
  }
  log('post-to-SSE delivery to 100 subscribers');
  const sse = await sseDelivery(100, quick ? 50 : 200);
  const bareSse = await bareSseDelivery(100, quick ? 50 : 200);
  results.sse = { hub: sse, bare: bareSse };
  rows.push({ metric: 'REST post to SSE delivery, 100 subscribers: p50 (ms)', value: fmt(sse.p50), target: '', ok: null });
  rows.push({ metric: 'REST post to SSE delivery, 100 subscribers: p99 (ms)', value: fmt(sse.p99), target: '<= 5', ok: sse.p99 <= 5 });
  rows.push({
    metric: `  vs bare node:http post + SSE fan-out (p50 ${fmt(bareSse.p50)} ms, p99 ${fmt(bareSse.p99)} ms): p50 x, p99 x`,
    value: `${fmt(sse.p50 / bareSse.p50, 1)}, ${fmt(sse.p99 / bareSse.p99, 1)}`,
    target: '',
    ok: null,
  });

  log('MCP tool calls against the SDK echo floor');
  const mcp = await mcpRoundTrips({ httpLevels: quick ? [1, 10] : [1, 10, 100], stdioLevels: quick ? [1] : [1, 10], calls: quick ? 300 : 2000 });
  results.mcp = mcp;
  for (const run of mcp.runs) {
    const label = `MCP ${run.tool} over ${run.transport}, ${run.agents} agent(s)`;
    const p50Ratio = run.hub.latency.p50 / run.floor.latency.p50;
    const rateRatio = run.hub.perSecond / run.floor.perSecond;
    const p50Target = run.transport === 'stdio' && run.agents === 1 ? 'p50 <= 0.5' : run.tool === 'chat_post' && run.agents === 1 ? '<= 1.2x floor' : '';
    rows.push({
      metric: `${label}: p50 / p99 (ms)`,
      value: `${fmt(run.hub.latency.p50)} / ${fmt(run.hub.latency.p99, 1)}`,
      target: p50Target,
      ok: run.transport === 'stdio' && run.agents === 1 ? run.hub.latency.p50 <= 0.5 : run.tool === 'chat_post' && run.agents === 1 ? p50Ratio <= 1.2 : null,
    });
    rows.push({
      metric: `${label}: calls/s`,
      value: fmt(run.hub.perSecond, 0),
      target: run.transport === 'http' && run.agents === 100 ? '>= 1.0x floor' : '',
      ok: run.transport === 'http' && run.agents === 100 ? rateRatio >= 1 : null,
    });
    rows.push({
      metric: `  vs SDK echo floor (p50 ${fmt(run.floor.latency.p50)} ms, ${fmt(run.floor.perSecond, 0)} calls/s): p50 x, calls/s x`,
      value: `${fmt(p50Ratio, 2)}, ${fmt(rateRatio, 2)}`,
      target: '',
      ok: null,
    });
  }
  for (const [rooms, size] of Object.entries(mcp.toolList)) {
    rows.push({
      metric: `MCP tools/list, ${rooms} rooms: ${size.tools} tools, bytes, ~tokens (bytes/4)`,
      value: `${size.bytes}, ${size.tokens}`,
      target: rooms === 'default' ? '< 2500 tokens' : '',
      ok: rooms === 'default' ? size.tokens < 2500 : null,
    });
  }

  log('web page in chromium: post to page, and loading a thread of 10,000 messages');
  const web = await webBench({ posts: quick ? 50 : 200, messages: 10_000, loads: quick ? 3 : 5 });
  if (web) {
    results.web = web;
    rows.push({ metric: `agent post to page, ${web.postToPage.count} posts: p50 (ms)`, value: fmt(web.postToPage.p50, 1), target: '', ok: null });
    rows.push({ metric: `agent post to page, ${web.postToPage.count} posts: p99 (ms)`, value: fmt(web.postToPage.p99, 1), target: '<= 250', ok: web.postToPage.p99 <= 250 });
    rows.push({
      metric: `page load to interactive, ${web.load.messages} messages (median of ${web.load.runs.length}; ${web.load.renderedRows} rows in the DOM) (ms)`,
      value: fmt(web.load.median, 0),
      target: '<= 1500',
      ok: web.load.median <= 1500,
    });
  } else {
    log('no chromium at /usr/bin/chromium: web figures skipped');
  }

  const soakSeconds = quick ? 20 : 60;
  log(`soak: 100 agents posting and reading over MCP HTTP for ${soakSeconds} s (npm run soak runs the full 5 minutes)`);
  const soaked = await soak({ agents: 100, seconds: soakSeconds });
  results.soak = { ...soaked, rssMb: { start: soaked.rssMb.start, peak: soaked.rssMb.peak, end: soaked.rssMb.end } };
  rows.push({ metric: `soak, 100 agents x ${soakSeconds} s over MCP HTTP: posts/s, errors`, value: `${fmt(soaked.load.posts / soakSeconds, 0)}, ${soaked.load.errors}`, target: '0 errors', ok: soaked.load.errors === 0 });
  rows.push({ metric: '  post p50 / p99 (ms)', value: `${fmt(soaked.load.postLatency.p50, 1)} / ${fmt(soaked.load.postLatency.p99, 1)}`, target: '', ok: null });
  rows.push({
    metric: '  hub RSS start / peak / end (MB)',
    value: `${fmt(soaked.rssMb.start, 0)} / ${fmt(soaked.rssMb.peak, 0)} / ${fmt(soaked.rssMb.end, 0)}`,
    target: 'peak <= 250',
    ok: soaked.rssMb.peak <= 250,
  });

  const hoard = quick ? 10_000 : 30_000;
  log(`one heavy reader: 4 exports and MCP history batches over ${hoard} messages of 4 KB, another participant posting`);
  const heavy = await heavyReaderAttack({ messages: hoard, batchSize: DEFAULT_MCP_MAX_BATCH_SIZE });
  results.heavyReader = heavy;
  rows.push({
    metric: `heavy reader, ${hoard} x 4 KB: hub RSS rest / peak (MB)`,
    value: `${fmt(heavy.rssMb.rest, 0)} / ${fmt(heavy.rssMb.peak, 0)}`,
    target: 'peak - rest <= 100',
    ok: heavy.rssMb.peak - heavy.rssMb.rest <= 100,
  });
  rows.push({
    metric: `  another participant's post meanwhile, ${heavy.victim.count} posts: p50 / p99 (ms)`,
    value: `${fmt(heavy.victim.p50, 1)} / ${fmt(heavy.victim.p99, 1)}`,
    target: 'p99 <= 50',
    ok: heavy.victim.p99 <= 50,
  });

  const readNew: Record<string, unknown> = {};
  let bigHome: string | undefined;
  for (const size of sizes) {
    log(`readNew with ${size} events stored`);
    const home = size === sizes[sizes.length - 1] ? tempDir('parley-bench-big-') : undefined;
    const result = await readNewLatency(size, quick ? 500 : 2000, home);
    readNew[String(size)] = result;
    rows.push({ metric: `readNew 50 events, ${result.events} stored: p50 (ms)`, value: fmt(result.summary.p50), target: '', ok: null });
    rows.push({ metric: `readNew 50 events, ${result.events} stored: p99 (ms)`, value: fmt(result.summary.p99), target: '<= 1', ok: result.summary.p99 <= 1 });
    if (home) bigHome = home;
  }
  results.readNew = readNew;

  if (bigHome) {
    log('RSS of a hub process on the largest store');
    const probe = path.join(path.dirname(new URL(import.meta.url).pathname), 'rss-probe.js');
    const out = execFileSync(process.execPath, ['--expose-gc', probe, bigHome], { encoding: 'utf8' });
    const rss = JSON.parse(out.trim()) as { events: number; rssMb: number };
    results.rss = rss;
    rows.push({ metric: `hub RSS with ${rss.events} events (MB)`, value: fmt(rss.rssMb, 1), target: '<= 200', ok: rss.rssMb <= 200 });
    const dbSize = fs.statSync(path.join(bigHome, 'parley.db')).size / 1024 / 1024;
    results.storeSizeMb = dbSize;
    fs.rmSync(bigHome, { recursive: true, force: true });
  }

  const outDir = path.resolve('bench-output');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'core.json'), `${JSON.stringify(results, null, 2)}\n`);
  const width = Math.max(...rows.map((r) => r.metric.length));
  process.stdout.write(`\n${'metric'.padEnd(width)}  ${'value'.padStart(10)}  target\n`);
  for (const row of rows) {
    const mark = row.ok === null ? '' : row.ok ? '  ok' : '  MISSED';
    process.stdout.write(`${row.metric.padEnd(width)}  ${row.value.padStart(10)}  ${row.target}${mark}\n`);
  }
  process.stdout.write(`\nJSON: ${path.join(outDir, 'core.json')}\n`);
}

await main();
