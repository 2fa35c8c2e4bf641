import { DEFAULT_MCP_MAX_BATCH_SIZE } from '../src/config/defaults.js';
import { MCP_HTTP_LEVELS, MCP_STDIO_LEVELS, REST_LEVELS, mcpId } from './figures.js';
import { heavyReaderAttack } from './heavy-reader.js';
import { bareSseDelivery, restRoundTrips, sseDelivery } from './http.js';
import { mcpRoundTrips } from './mcp.js';
import { peerBench, type HubMemory } from './peer.js';
import { historyBench } from './history.js';
import type { Section, SectionResult } from './section.js';
import { soak as soakRun } from './soak.js';
import { webBench } from './web.js';

/** The sections that go through a socket: REST, SSE, MCP, the web page, the soak and the heavy reader. */

const rest: Section = {
  name: 'rest',
  run: async ({ quick, log }) => {
    log('REST post round trips (keep-alive) against bare node:http');
    const levels = await restRoundTrips([...REST_LEVELS], quick ? 500 : 5000);
    const values: Record<string, number> = {};
    for (const level of levels) {
      const c = `c${level.clients}`;
      values[`rest.bare.${c}.p50`] = level.bare.latency.p50;
      values[`rest.bare.${c}.rate`] = level.bare.perSecond;
      values[`rest.${c}.p50`] = level.hub.latency.p50;
      values[`rest.${c}.p99`] = level.hub.latency.p99;
      values[`rest.${c}.rate`] = level.hub.perSecond;
    }
    return { values, details: levels };
  },
};

const sse: Section = {
  name: 'sse',
  run: async ({ quick, log }) => {
    log('post-to-SSE delivery to 100 subscribers, then the bare node:http fan-out');
    const hub = await sseDelivery(100, quick ? 50 : 200);
    const bare = await bareSseDelivery(100, quick ? 50 : 200);
    return { values: { 'sse.p50': hub.p50, 'sse.p99': hub.p99, 'sse.bare.p50': bare.p50, 'sse.bare.p99': bare.p99 }, details: { hub, bare } };
  },
};

const mcp: Section = {
  name: 'mcp',
  run: async ({ quick, log }) => {
    log('MCP tool calls against the SDK echo floor');
    const result = await mcpRoundTrips({ httpLevels: [...MCP_HTTP_LEVELS], stdioLevels: [...MCP_STDIO_LEVELS], calls: quick ? 200 : 2000 });
    const values: Record<string, number> = {};
    const notes: Record<string, string> = {};
    for (const run of result.runs) {
      const echo = mcpId(run.transport, 'echo', run.agents);
      values[`${echo}.p50`] = run.floor.latency.p50;
      values[`${echo}.p99`] = run.floor.latency.p99;
      values[`${echo}.rate`] = run.floor.perSecond;
      const id = mcpId(run.transport, run.tool, run.agents);
      values[`${id}.p50`] = run.hub.latency.p50;
      values[`${id}.p99`] = run.hub.latency.p99;
      values[`${id}.rate`] = run.hub.perSecond;
      notes[`${id}.rate`] = `${run.hub.calls} calls`;
    }
    for (const [rooms, size] of Object.entries(result.toolList)) {
      values[`mcp.tools.${rooms}.bytes`] = size.bytes;
      values[`mcp.tools.${rooms}.tokens`] = size.tokens;
      notes[`mcp.tools.${rooms}.bytes`] = `${size.tools} tools`;
    }
    return { values, notes, details: result };
  },
};

const web: Section = {
  name: 'web',
  run: async ({ quick, log }): Promise<SectionResult> => {
    log('web page in chromium: post to page, and loading a thread of 10,000 messages');
    const result = await webBench({ posts: quick ? 50 : 200, messages: 10_000, loads: quick ? 3 : 5 });
    if (!result) {
      log('no chromium at /usr/bin/chromium: web figures skipped');
      return { values: {}, notes: { 'web.load': 'no chromium at /usr/bin/chromium' }, details: null };
    }
    return {
      values: { 'web.postToPage.p50': result.postToPage.p50, 'web.postToPage.p99': result.postToPage.p99, 'web.load': result.load.median },
      notes: { 'web.load': `median of ${result.load.runs.length}; ${result.load.renderedRows} rows in the DOM` },
      details: result,
    };
  },
};

const soak: Section = {
  name: 'soak',
  run: async ({ quick, log }) => {
    const seconds = quick ? 10 : 60;
    log(`soak: 100 agents posting and reading over MCP HTTP for ${seconds} s (npm run soak runs the full 5 minutes)`);
    const result = await soakRun({ agents: 100, seconds });
    return {
      values: {
        'soak.posts': result.load.posts / seconds,
        'soak.errors': result.load.errors,
        'soak.post.p50': result.load.postLatency.p50,
        'soak.post.p99': result.load.postLatency.p99,
        'soak.rss.start': result.rssMb.start,
        'soak.rss.peak': result.rssMb.peak,
        'soak.rss.end': result.rssMb.end,
      },
      notes: { 'soak.posts': `${seconds} s` },
      details: { ...result, rssMb: { start: result.rssMb.start, peak: result.rssMb.peak, end: result.rssMb.end } },
    };
  },
};

const heavy: Section = {
  name: 'heavy',
  run: async ({ quick, log }) => {
    const messages = quick ? 5_000 : 30_000;
    log(`one heavy reader: 4 exports and MCP history batches over ${messages} messages of 4 KB, another participant posting`);
    const result = await heavyReaderAttack({ messages, batchSize: DEFAULT_MCP_MAX_BATCH_SIZE });
    return {
      values: { 'heavy.rss.rest': result.rssMb.rest, 'heavy.rss.peak': result.rssMb.peak, 'heavy.victim.p50': result.victim.p50, 'heavy.victim.p99': result.victim.p99 },
      notes: { 'heavy.victim.p99': `${messages} messages of 4 KB, ${result.victim.count} posts` },
      details: result,
    };
  },
};

/** "272 to 263 MB (heap 61 to 60)": a hub's RSS and JS heap at the start and the end of the memory watch. */
function memoryWords(m: HubMemory): string {
  return `${m.startMb.toFixed(0)} to ${m.endMb.toFixed(0)} MB (heap ${m.heapStartMb.toFixed(0)} to ${m.heapEndMb.toFixed(0)})`;
}

const peer: Section = {
  name: 'peer',
  run: async ({ quick, peerRssSeconds, log }) => {
    const options = { events: quick ? 5_000 : 20_000, latencySamples: quick ? 200 : 1000, rssSeconds: peerRssSeconds ?? (quick ? 10 : 60) };
    log(`two hubs linked on loopback: ${options.latencySamples} DMs one at a time, ${options.events} posts by 100 posters, 1,000 missed, ${options.rssSeconds} s at 1,000 events/s`);
    const result = await peerBench(options);
    return {
      values: {
        'peer.latency.p50': result.latency.p50,
        'peer.latency.p99': result.latency.p99,
        'peer.local': result.throughput.localPerSecond,
        'peer.throughput': result.throughput.linkedPerSecond,
        'peer.throughputRatio': result.throughput.linkedPerSecond / result.throughput.localPerSecond,
        'peer.catchUp': result.catchUpMs,
        'peer.linkSetup': result.linkSetupMs,
        'peer.rss.growth': Math.max(result.rss.a.endMb - result.rss.a.startMb, result.rss.b.endMb - result.rss.b.startMb),
      },
      notes: {
        'peer.throughput': `${result.throughput.events} events of 1 KB`,
        'peer.rss.growth': `the larger of the two, over ${result.rss.seconds} s (goal over 10 min): A ${memoryWords(result.rss.a)}, B ${memoryWords(result.rss.b)}`,
      },
      details: result,
    };
  },
};

/** The missed events of each round of the history benchmark; a quick run leaves out the largest. */
const HISTORY_SIZES = [10_000, 100_000];

const history: Section = {
  name: 'history',
  run: async ({ quick, log }) => {
    const sizes = quick ? HISTORY_SIZES.slice(0, 1) : HISTORY_SIZES;
    log(`three hubs on loopback: C posts ${sizes.join(', then ')} while B is down and goes away; B gets them from A`);
    const result = await historyBench(sizes);
    const values: Record<string, number> = {
      'history.local': Math.min(...result.rounds.map((round) => round.localPerSecond)),
      'history.first': Math.max(...result.rounds.map((round) => round.firstMs)),
    };
    for (const round of result.rounds) values[`history.e${round.events}.converged`] = round.convergedMs;
    return {
      values,
      notes: Object.fromEntries(result.rounds.map((round) => [`history.e${round.events}.converged`, `${Math.round(round.events / (round.convergedMs / 1000))} events/s; C posted them at ${Math.round(round.localPerSecond)}/s`])),
      details: result,
    };
  },
};

export const NET_SECTIONS: readonly Section[] = [rest, sse, mcp, web, soak, heavy, peer, history];
