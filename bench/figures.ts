/**
 * Every figure `npm run bench` reports, in one table: its name, unit, which
 * way is better, its anchor (another figure measured in the same run, such as
 * raw SQLite or bare node:http) and its goal. The printed table, the JSON
 * report and the comparison with an earlier report all read this table.
 */
import { RETENTION_P99_SLACK_MS } from './core.js';
import { MIDDLEWARE_TARGET_MS } from './middleware.js';
import { HOOK_TARGET_RATIO } from './startup.js';

export const SECTION_NAMES = ['startup', 'middleware', 'post', 'inbox', 'prune', 'delivery', 'rest', 'sse', 'mcp', 'web', 'soak', 'heavy', 'readnew', 'peer', 'history'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export type Better = 'higher' | 'lower';

/**
 * What a figure must reach: its value against a number (`value`), its ratio to
 * its anchor (`ratio`), or at most its anchor plus a slack (`plus`).
 */
export type Goal =
  | { kind: 'value'; op: '>=' | '<=' | '<'; target: number }
  | { kind: 'ratio'; op: '>=' | '<='; target: number }
  | { kind: 'plus'; target: number };

export interface Figure {
  id: string;
  section: SectionName;
  label: string;
  unit: string;
  better: Better;
  /** Decimals printed. */
  digits: number;
  /** The id of the figure this one is measured beside, in the same run. */
  anchor?: string;
  goal?: Goal;
  /** An anchor: what the machine does bare. Compared, never marked: its change says how the machine differed. */
  isAnchor?: boolean;
  /** Short name of an anchor, used in the goals of the figures beside it. */
  short?: string;
  /** Measured in full runs only (a quick run leaves out what takes longest to set up). */
  fullOnly?: boolean;
}

const ms = (id: string, section: SectionName, label: string, more: Partial<Figure> = {}): Figure => ({ id, section, label, unit: 'ms', better: 'lower', digits: 3, ...more });
const rate = (id: string, section: SectionName, label: string, unit: string, more: Partial<Figure> = {}): Figure => ({ id, section, label, unit, better: 'higher', digits: 0, ...more });

/** The load levels measured, the same in quick and full runs (a quick run makes fewer calls). */
export const REST_LEVELS = [1, 10, 100] as const;
export const MCP_HTTP_LEVELS = [1, 10, 100] as const;
export const MCP_STDIO_LEVELS = [1, 10] as const;
export const MCP_TOOLS = ['chat_post', 'inbox'] as const;
export const READ_NEW_SIZES = [10_000, 100_000, 1_000_000] as const;
/** A quick run leaves out the largest store. */
export const READ_NEW_SIZES_QUICK = [10_000, 100_000] as const;


function restFigures(): Figure[] {
  return REST_LEVELS.flatMap((clients) => {
    const who = `${clients} client${clients === 1 ? '' : 's'}`;
    const bare = `rest.bare.c${clients}`;
    return [
      ms(`${bare}.p50`, 'rest', `REST post anchor: bare node:http, ${who}, p50`, { isAnchor: true, short: 'bare', digits: 3 }),
      rate(`${bare}.rate`, 'rest', `REST post anchor: bare node:http, ${who}, throughput`, 'req/s', { isAnchor: true, short: 'bare' }),
      ms(`rest.c${clients}.p50`, 'rest', `REST post, ${who}, p50`, { anchor: `${bare}.p50`, goal: clients === 1 ? { kind: 'ratio', op: '<=', target: 1.5 } : undefined }),
      ms(`rest.c${clients}.p99`, 'rest', `REST post, ${who}, p99`),
      rate(`rest.c${clients}.rate`, 'rest', `REST post, ${who}, throughput`, 'req/s', { anchor: `${bare}.rate`, goal: clients === 100 ? { kind: 'ratio', op: '>=', target: 0.8 } : undefined }),
    ];
  });
}

function mcpGoal(transport: 'http' | 'stdio', tool: string, agents: number, what: 'p50' | 'rate'): Goal | undefined {
  if (what === 'p50' && transport === 'stdio') return { kind: 'ratio', op: '<=', target: 1.5 };
  if (what === 'p50' && tool === 'chat_post' && agents === 1) return { kind: 'ratio', op: '<=', target: 1.2 };
  if (what === 'rate' && transport === 'http' && agents === 100) return { kind: 'ratio', op: '>=', target: 1.0 };
  return undefined;
}

/** The id stem of one MCP measurement, e.g. mcp.http.inbox.a100; the SDK echo floor is tool `echo`. */
export const mcpId = (transport: 'http' | 'stdio', tool: string, agents: number): string => `mcp.${transport}.${tool}.a${agents}`;

function mcpFigures(): Figure[] {
  const levels = [...MCP_HTTP_LEVELS.map((n) => ['http', n] as const), ...MCP_STDIO_LEVELS.map((n) => ['stdio', n] as const)];
  return levels.flatMap(([transport, agents]) => {
    const who = `${agents} agent${agents === 1 ? '' : 's'}`;
    const echo = mcpId(transport, 'echo', agents);
    const floor = [
      ms(`${echo}.p50`, 'mcp', `MCP anchor: SDK echo over ${transport}, ${who}, p50`, { isAnchor: true, short: 'echo' }),
      ms(`${echo}.p99`, 'mcp', `MCP anchor: SDK echo over ${transport}, ${who}, p99`, { isAnchor: true, short: 'echo' }),
      rate(`${echo}.rate`, 'mcp', `MCP anchor: SDK echo over ${transport}, ${who}, calls/s`, 'calls/s', { isAnchor: true, short: 'echo' }),
    ];
    const tools = MCP_TOOLS.flatMap((tool) => {
      const id = mcpId(transport, tool, agents);
      const label = `MCP ${tool} over ${transport}, ${who}`;
      return [
        ms(`${id}.p50`, 'mcp', `${label}, p50`, { anchor: `${echo}.p50`, goal: mcpGoal(transport, tool, agents, 'p50') }),
        ms(`${id}.p99`, 'mcp', `${label}, p99`, { anchor: `${echo}.p99`, digits: 2 }),
        rate(`${id}.rate`, 'mcp', `${label}, calls/s`, 'calls/s', { anchor: `${echo}.rate`, goal: mcpGoal(transport, tool, agents, 'rate') }),
      ];
    });
    return [...floor, ...tools];
  });
}

function readNewFigures(): Figure[] {
  return READ_NEW_SIZES.flatMap((size) => {
    const fullOnly = !(READ_NEW_SIZES_QUICK as readonly number[]).includes(size);
    return [
      ms(`readnew.e${size}.p50`, 'readnew', `readNew 50 events, ${size} stored, p50`, { fullOnly }),
      ms(`readnew.e${size}.p99`, 'readnew', `readNew 50 events, ${size} stored, p99`, { fullOnly, goal: { kind: 'value', op: '<=', target: 1 } }),
    ];
  });
}

export const FIGURES: readonly Figure[] = [
  // CLI start-up, interleaved with bare Node.
  ms('startup.node', 'startup', 'start-up anchor: node -e 0', { isAnchor: true, short: 'node', digits: 1 }),
  ms('startup.version', 'startup', 'start-up: parley --version', { anchor: 'startup.node', digits: 1, goal: { kind: 'ratio', op: '<=', target: 2.5 } }),
  ms('startup.say', 'startup', 'start-up: parley say, running hub', { anchor: 'startup.node', digits: 1, goal: { kind: 'ratio', op: '<=', target: 4 } }),
  ms('startup.hook', 'startup', 'start-up: parley hook claude post-tool-use, nothing new', { anchor: 'startup.node', digits: 1, goal: { kind: 'ratio', op: '<=', target: HOOK_TARGET_RATIO } }),
  ms('startup.hookHome', 'startup', 'start-up: the same hook finding its hub through the home (proof first)', { anchor: 'startup.node', digits: 1, goal: { kind: 'ratio', op: '<=', target: HOOK_TARGET_RATIO } }),

  // The LLM middleware around an instant model.
  ms('middleware.bare', 'middleware', 'middleware anchor: bare generateText, median', { isAnchor: true, short: 'bare', digits: 2 }),
  ms('middleware.nothingNew', 'middleware', 'middleware: overhead per call, nothing new', { digits: 2 }),
  ms('middleware.oneNew', 'middleware', 'middleware: overhead per call, one new DM injected and taken', { digits: 2, goal: { kind: 'value', op: '<=', target: MIDDLEWARE_TARGET_MS } }),

  // In-process posts beside raw SQLite one-row transactions.
  rate('raw.normal', 'post', 'post anchor: raw SQLite one-row transactions (WAL, NORMAL)', 'tx/s', { isAnchor: true, short: 'raw SQLite' }),
  rate('raw.full', 'post', 'post anchor: raw SQLite one-row transactions (WAL, FULL)', 'tx/s', { isAnchor: true, short: 'raw SQLite FULL' }),
  rate('post.sequential', 'post', 'post 1 KB, 1 poster, signed', 'msg/s', { anchor: 'raw.normal' }),
  rate('post.concurrent', 'post', 'post 1 KB, 100 posters, signed', 'msg/s', { anchor: 'raw.normal', goal: { kind: 'ratio', op: '>=', target: 1.0 } }),
  rate('post.withSecrets', 'post', 'post 1 KB, 100 posters, 1 in 10 carrying a token', 'msg/s', { anchor: 'raw.normal', goal: { kind: 'value', op: '>=', target: 20_000 } }),
  rate('post.durable', 'post', 'post 1 KB, 100 posters, store.synchronous=full', 'msg/s', { anchor: 'raw.full' }),
  rate('post.unsignedSequential', 'post', 'post 1 KB, 1 poster, unsigned', 'msg/s', { anchor: 'raw.normal' }),
  rate('post.unsignedConcurrent', 'post', 'post 1 KB, 100 posters, unsigned', 'msg/s', { anchor: 'raw.normal' }),
  rate('post.signedRatio.sequential', 'post', 'signed / unsigned posts, 1 poster (medians of 3)', 'x', { digits: 2, goal: { kind: 'value', op: '>=', target: 0.7 } }),
  rate('post.signedRatio.concurrent', 'post', 'signed / unsigned posts, 100 posters (medians of 3)', 'x', { digits: 2, goal: { kind: 'value', op: '>=', target: 0.9 } }),

  // The inbox's cost in what is new, not in threads or unread rows: 1000 threads / 10,000 unread beside 1 thread / none.
  ms('inbox.small.oneNew', 'inbox', 'inbox anchor: 1 thread, nothing unread, one new message, p50', { isAnchor: true, short: '1 thread' }),
  ms('inbox.upToDate', 'inbox', 'inbox, 1000 threads / 10,000 unread read, nothing new, p50', { anchor: 'inbox.small.oneNew' }),
  ms('inbox.oneNew', 'inbox', 'inbox, 1000 threads / 10,000 unread read, one new message, p50', { anchor: 'inbox.small.oneNew', goal: { kind: 'ratio', op: '<=', target: 2 } }),
  ms('inbox.backlog', 'inbox', 'inbox, 1000 threads / 10,000 unread waiting, one page taken, p50', { digits: 2 }),
  ms('inbox.peek', 'inbox', 'inbox peek, 1000 threads / 10,000 unread waiting, p50', { digits: 2 }),

  // Posts while retention prunes.
  rate('prune.rate', 'prune', 'retention: prune of old events', 'events/s'),
  ms('prune.idle.p50', 'prune', 'post anchor: 10 posters, no prune, p50', { isAnchor: true, short: 'idle', digits: 2 }),
  ms('prune.idle.p99', 'prune', 'post anchor: 10 posters, no prune, p99', { isAnchor: true, short: 'idle', digits: 2 }),
  ms('prune.during.p50', 'prune', 'post, 10 posters, during the prune, p50', { anchor: 'prune.idle.p50', digits: 2 }),
  ms('prune.during.p99', 'prune', 'post, 10 posters, during the prune, p99', { anchor: 'prune.idle.p99', digits: 2, goal: { kind: 'plus', target: RETENTION_P99_SLACK_MS } }),

  ms('delivery.p50', 'delivery', 'post-to-inbox delivery, 100 participants, p50'),
  ms('delivery.p99', 'delivery', 'post-to-inbox delivery, 100 participants, p99', { goal: { kind: 'value', op: '<=', target: 5 } }),

  ...restFigures(),

  ms('sse.bare.p50', 'sse', 'SSE anchor: bare node:http post + fan-out, 100 subscribers, p50', { isAnchor: true, short: 'bare' }),
  ms('sse.bare.p99', 'sse', 'SSE anchor: bare node:http post + fan-out, 100 subscribers, p99', { isAnchor: true, short: 'bare' }),
  ms('sse.p50', 'sse', 'REST post to SSE delivery, 100 subscribers, p50', { anchor: 'sse.bare.p50' }),
  ms('sse.p99', 'sse', 'REST post to SSE delivery, 100 subscribers, p99', { anchor: 'sse.bare.p99', goal: { kind: 'ratio', op: '<=', target: 1.2 } }),

  ...mcpFigures(),
  { id: 'mcp.tools.default.bytes', section: 'mcp', label: 'MCP tools/list, default rooms, bytes', unit: 'B', better: 'lower', digits: 0 },
  { id: 'mcp.tools.default.tokens', section: 'mcp', label: 'MCP tools/list, default rooms, ~tokens (bytes/4)', unit: 'tokens', better: 'lower', digits: 0, goal: { kind: 'value', op: '<', target: 2500 } },
  { id: 'mcp.tools.all.bytes', section: 'mcp', label: 'MCP tools/list, all rooms, bytes', unit: 'B', better: 'lower', digits: 0 },
  { id: 'mcp.tools.all.tokens', section: 'mcp', label: 'MCP tools/list, all rooms, ~tokens (bytes/4)', unit: 'tokens', better: 'lower', digits: 0 },

  ms('web.postToPage.p50', 'web', 'agent post to page, p50', { digits: 1 }),
  ms('web.postToPage.p99', 'web', 'agent post to page, p99', { digits: 1, goal: { kind: 'value', op: '<=', target: 250 } }),
  ms('web.load', 'web', 'page load to interactive, 10,000 messages, median', { digits: 0, goal: { kind: 'value', op: '<=', target: 1500 } }),

  rate('soak.posts', 'soak', 'soak, 100 agents over MCP HTTP, posts', 'posts/s'),
  { id: 'soak.errors', section: 'soak', label: 'soak, errors', unit: 'errors', better: 'lower', digits: 0, goal: { kind: 'value', op: '<=', target: 0 } },
  ms('soak.post.p50', 'soak', 'soak, post p50', { digits: 1 }),
  ms('soak.post.p99', 'soak', 'soak, post p99', { digits: 1 }),
  { id: 'soak.rss.start', section: 'soak', label: 'soak, hub RSS at start', unit: 'MB', better: 'lower', digits: 0 },
  { id: 'soak.rss.peak', section: 'soak', label: 'soak, hub RSS peak', unit: 'MB', better: 'lower', digits: 0, goal: { kind: 'value', op: '<=', target: 250 } },
  { id: 'soak.rss.end', section: 'soak', label: 'soak, hub RSS at end', unit: 'MB', better: 'lower', digits: 0 },

  { id: 'heavy.rss.rest', section: 'heavy', label: 'heavy reader anchor: hub RSS at rest', unit: 'MB', better: 'lower', digits: 0, isAnchor: true, short: 'rest' },
  { id: 'heavy.rss.peak', section: 'heavy', label: 'heavy reader: hub RSS peak', unit: 'MB', better: 'lower', digits: 0, anchor: 'heavy.rss.rest', goal: { kind: 'plus', target: 100 } },
  ms('heavy.victim.p50', 'heavy', "heavy reader: another participant's post, p50", { digits: 1 }),
  ms('heavy.victim.p99', 'heavy', "heavy reader: another participant's post, p99", { digits: 1, goal: { kind: 'value', op: '<=', target: 50 } }),
  ms('peer.latency.p50', 'peer', 'two linked hubs: post on A to the inbox on B, p50', { digits: 2, goal: { kind: 'value', op: '<=', target: 3 } }),
  ms('peer.latency.p99', 'peer', 'two linked hubs: post on A to the inbox on B, p99', { digits: 2, goal: { kind: 'value', op: '<=', target: 15 } }),
  rate('peer.local', 'peer', "two linked hubs anchor: A's own signed post rate, 100 posters", 'msg/s', { isAnchor: true, short: "A's own rate" }),
  rate('peer.throughput', 'peer', 'two linked hubs: signed events A to B, sustained', 'msg/s', { anchor: 'peer.local', goal: { kind: 'value', op: '>=', target: 5000 } }),
  rate('peer.throughputRatio', 'peer', "two linked hubs: A to B rate / A's own rate", 'x', { digits: 2, goal: { kind: 'value', op: '>=', target: 0.5 } }),
  ms('peer.catchUp', 'peer', 'two linked hubs: 1,000 missed events on B after its restart', { digits: 0, goal: { kind: 'value', op: '<=', target: 1000 } }),
  ms('peer.linkSetup', 'peer', 'two linked hubs: peer add to the first event stored', { digits: 0, goal: { kind: 'value', op: '<=', target: 300 } }),
  rate('history.local', 'history', "three hubs anchor: C's own signed post rate, 100 in flight", 'msg/s', { isAnchor: true, short: "C's own rate" }),
  ms('history.e10000.converged', 'history', 'three hubs: 10,000 events C posted while B was down, from B\'s link to A up to the last stored on B', { digits: 0, anchor: 'history.local', goal: { kind: 'value', op: '<=', target: 2000 } }),
  ms('history.e100000.converged', 'history', 'three hubs: 100,000 missed events, from B\'s link to A up to the last stored on B', { digits: 0, anchor: 'history.local', fullOnly: true, goal: { kind: 'value', op: '<=', target: 20_000 } }),
  ms('history.first', 'history', 'three hubs: B\'s link to A up to the first missed event stored on B (the larger of the rounds)', { digits: 0, goal: { kind: 'value', op: '<=', target: 100 } }),
  { id: 'peer.rss.growth', section: 'peer', label: 'two linked hubs: RSS growth of each at 1,000 events/s', unit: 'MB', better: 'lower', digits: 0, goal: { kind: 'value', op: '<=', target: 50 } },

  ...readNewFigures(),
  { id: 'rss.largestStore', section: 'readnew', label: 'hub RSS on the largest readNew store', unit: 'MB', better: 'lower', digits: 1, goal: { kind: 'value', op: '<=', target: 200 } },
  { id: 'store.sizeMb', section: 'readnew', label: 'size of the largest readNew store', unit: 'MB', better: 'lower', digits: 1 },
];

const byId = new Map(FIGURES.map((figure) => [figure.id, figure]));

export function figure(id: string): Figure | undefined {
  return byId.get(id);
}

/** The goal in words, e.g. ">= 1.0x raw SQLite" or "<= idle + 8". */
export function describeGoal(f: Figure): string {
  const goal = f.goal;
  if (!goal) return '';
  const anchor = f.anchor ? (byId.get(f.anchor)?.short ?? f.anchor) : 'anchor';
  if (goal.kind === 'value') return `${goal.op} ${goal.target}`;
  if (goal.kind === 'ratio') return `${goal.op} ${goal.target.toFixed(1)}x ${anchor}`;
  return `<= ${anchor} + ${goal.target}`;
}

/** Whether `value` (beside `anchor`) meets the figure's goal; null when it has none or cannot be judged. */
export function meetsGoal(f: Figure, value: number, anchor: number | undefined): boolean | null {
  const goal = f.goal;
  if (!goal || !Number.isFinite(value)) return null;
  if (goal.kind === 'value') return goal.op === '>=' ? value >= goal.target : goal.op === '<=' ? value <= goal.target : value < goal.target;
  if (anchor === undefined || !Number.isFinite(anchor)) return null;
  if (goal.kind === 'ratio') return goal.op === '>=' ? value / anchor >= goal.target : value / anchor <= goal.target;
  return value <= anchor + goal.target;
}
