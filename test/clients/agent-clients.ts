import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { presenceOf, runToEnd, tempDirs, userEnv } from '../helpers/agent-cli.js';
import * as anthropic from '../helpers/mock-anthropic.js';
import * as gemini from '../helpers/mock-gemini.js';
import { BIN, joinOver, startServe, stopHubs, type RunningHub } from '../helpers/serve.js';
import { testToolsInstalled, toolPath, TOOLS_WAIT_MS } from '../helpers/test-tools.js';

/**
 * The real agent CLIs Parley installs into, as one table: each run headless
 * in a project where `parley install` ran, with only its LLM provider
 * replaced by a scripted stand-in on loopback. The tests that check the same
 * behaviour of each client run over this table; what one client alone does
 * is tested in its own file, through its entry here.
 */

/** One scripted model turn, in words every stand-in takes: a tool call, or the turn's final text. */
export type Turn = { text: string } | { tool: string; input: Record<string, unknown> };

/** A stand-in for the client's LLM provider: what each main-loop call was offered and sent, as the client made it. */
export interface ModelStandIn {
  url: string;
  /** How many main-loop calls came. */
  calls(): number;
  /** The names of the tools call `n` offered the model. */
  offered(n: number): string[];
  /** The text of call `n`'s last turn (tool results and added context included). */
  lastTurnText(n: number): string;
  close(): Promise<void>;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AgentClient {
  /** How the tests name it ("claude code"). */
  title: string;
  /** The word `parley install` takes. */
  install: 'claude' | 'gemini';
  /** The start of its participants' handles in the tests (coder-1, gem-1). */
  handles: string;
  /** Its shell tool, and the name it gives one of Parley's MCP tools. */
  shellTool: string;
  parleyTool: (tool: string) => string;
  /** Whether a headless run ends its session and its MCP server at exit, so that its participant goes offline. */
  endsSession: boolean;
  /** How long one of its tests may take. */
  timeoutMs: number;
  /** The environment variables of its own that the test's environment may hold and a user's terminal does not. */
  variables: string[];
  /** A user's home set up for it as its first run would leave it. */
  userHome: (make: (prefix: string) => string) => string;
  startModel: (script: (n: number) => Turn | Promise<Turn>) => Promise<ModelStandIn>;
  /** The client, headless, in the project, talking to the stand-in at `modelUrl`, allowed `tools` without asking. */
  run: (project: string, userHome: string, modelUrl: string, prompt: string, tools: string[], started?: (child: ChildProcess) => void) => Promise<RunResult>;
  /** What its JSON output says: the answer's text, and whether it reported an error. */
  answerOf: (stdout: string) => { text: string; failed: boolean };
}

const CLAUDE_BIN = toolPath('.bin/claude');
const GEMINI_BIN = toolPath('.bin/gemini');

const CLAUDE_VARIABLES = ['CLAUDE', 'ANTHROPIC', 'CURSOR_VERSION'];
const GEMINI_VARIABLES = ['GEMINI', 'GOOGLE'];

export const CLAUDE_CODE: AgentClient = {
  title: 'claude code',
  install: 'claude',
  handles: 'coder',
  shellTool: 'Bash',
  parleyTool: (tool) => `mcp__parley__${tool}`,
  endsSession: false,
  timeoutMs: 120_000,
  variables: CLAUDE_VARIABLES,
  userHome: (make) => make('parley-claude-user-'),
  async startModel(script) {
    const model = await anthropic.startMockAnthropic(async (_request, n) => {
      const turn = await script(n);
      return 'text' in turn ? turn : { tool: { name: turn.tool, input: turn.input } };
    });
    return {
      url: model.url,
      calls: () => model.requests.length,
      offered: (n) => (model.requests[n]!.tools ?? []).map((tool) => tool.name),
      lastTurnText: (n) => anthropic.lastTurnText(model.requests[n]!),
      close: model.close,
    };
  },
  run: (project, userHome, modelUrl, prompt, tools, started) =>
    runToEnd(
      CLAUDE_BIN,
      ['-p', prompt, '--output-format', 'json', ...(tools.length > 0 ? ['--allowedTools', tools.join(' ')] : [])],
      {
        cwd: project,
        env: userEnv(userHome, CLAUDE_VARIABLES, {
          ANTHROPIC_BASE_URL: modelUrl,
          ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_TELEMETRY: '1',
          DISABLE_AUTOUPDATER: '1',
          // Headless, Claude Code no longer waits for its MCP servers before the first request: the tools it
          // offers then depend on how fast `parley mcp` starts. A user's headless run sets the same to be sure of them.
          MCP_CONNECTION_NONBLOCKING: '0',
          MCP_CONNECT_TIMEOUT_MS: '30000',
        }),
      },
      started,
    ),
  answerOf(stdout) {
    const answer = JSON.parse(stdout) as { type?: string; is_error?: boolean; result?: string };
    return { text: answer.result ?? '', failed: answer.type !== 'result' || answer.is_error !== false };
  },
};

export const GEMINI_CLI: AgentClient = {
  title: 'gemini cli',
  install: 'gemini',
  handles: 'gem',
  shellTool: 'run_shell_command',
  parleyTool: (tool) => `mcp_parley_${tool}`,
  endsSession: true,
  timeoutMs: 60_000,
  variables: GEMINI_VARIABLES,
  userHome(make) {
    // Set up for an API key (what its first-run dialog would write), with usage statistics and update checks off, so that it calls nothing but the stand-in.
    const home = make('parley-gemini-user-');
    fs.mkdirSync(path.join(home, '.gemini'));
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    };
    fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
    return home;
  },
  async startModel(script) {
    const model = await gemini.startMockGemini(async (_request, n) => {
      const turn = await script(n);
      return 'text' in turn ? turn : { call: { name: turn.tool, args: turn.input } };
    });
    return {
      url: model.url,
      calls: () => model.requests.length,
      offered: (n) => gemini.offeredNames(model.requests[n]!),
      lastTurnText: (n) => gemini.lastTurnText(model.requests[n]!),
      close: model.close,
    };
  },
  run(project, userHome, modelUrl, prompt, tools, started) {
    // The project is trusted, as its user would have it; one process, with no relaunch of itself with a larger heap.
    const env = userEnv(userHome, GEMINI_VARIABLES, {
      GEMINI_API_KEY: 'test-key-not-a-real-one',
      GOOGLE_GEMINI_BASE_URL: modelUrl,
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    });
    const allowed = tools.length > 0 ? ['--allowed-tools', tools.join(',')] : [];
    return runToEnd(GEMINI_BIN, ['-p', prompt, '--output-format', 'json', '--model', 'gemini-2.5-pro', ...allowed], { cwd: project, env }, started);
  },
  answerOf(stdout) {
    const answer = JSON.parse(stdout) as { response?: string; error?: unknown };
    return { text: answer.response ?? '', failed: answer.error !== undefined };
  },
};

export const AGENT_CLIENTS: readonly AgentClient[] = [CLAUDE_CODE, GEMINI_CLI];

/** The hub the clients of a test file are installed for, and alice, the human who writes to them. */
export interface ClientsHub {
  readonly hub: RunningHub;
  readonly hubHome: string;
  /** Alice's token. */
  readonly alice: string;
  /** A temporary folder, removed after the file's tests. */
  temp: (prefix: string) => string;
}

/**
 * A real hub for a file of client tests, from beforeAll to afterAll, where
 * the participants `stayAvailable` wait at a stop for at most 60 s and are
 * held at most once in a row.
 */
export function clientsHub(stayAvailable: string[]): ClientsHub {
  const dirs = tempDirs();
  let started: { hub: RunningHub; hubHome: string; alice: string } | undefined;
  const running = () => {
    if (!started) throw new Error('clientsHub: used before its beforeAll started the hub');
    return started;
  };
  beforeAll(testToolsInstalled, TOOLS_WAIT_MS);
  beforeAll(async () => {
    const hubHome = dirs.make('parley-clients-hub-');
    fs.writeFileSync(path.join(hubHome, 'config.json'), JSON.stringify({ agents: { stayAvailable, stayAvailableSeconds: 60, maxStopContinuations: 1 } }));
    const hub = await startServe(hubHome);
    started = { hub, hubHome, alice: await joinOver(hub, { handle: 'alice', profile: { kind: 'human' } }) };
  }, 60_000);
  afterAll(async () => {
    await stopHubs();
    dirs.cleanup();
  });
  return {
    get hub() {
      return running().hub;
    },
    get hubHome() {
      return running().hubHome;
    },
    get alice() {
      return running().alice;
    },
    temp: dirs.make,
  };
}

/** `parley install CLIENT --as HANDLE` in a fresh project, as its user would type it, for the hub of `served`. */
export async function installedProject(client: AgentClient, handle: string, userHome: string, served: ClientsHub): Promise<string> {
  const { hub, hubHome } = served;
  const project = served.temp(`parley-${client.install}-project-`);
  const installed = await runToEnd(process.execPath, [BIN, 'install', client.install, '--as', handle, '--dir', project, '--home', hubHome, '--url', hub.url], {
    cwd: project,
    env: userEnv(userHome, client.variables),
  });
  expect(installed.code, installed.stderr).toBe(0);
  return project;
}

/** The handle's connection once it is offline, or as it is after 15 s (a wait that outlives its client would last 60). */
export async function connectionSettled(hub: RunningHub, token: string, handle: string): Promise<unknown> {
  const deadline = Date.now() + 15_000;
  let connection = (await presenceOf(hub, token, handle))?.connection;
  while (connection !== 'offline' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    connection = (await presenceOf(hub, token, handle))?.connection;
  }
  return connection;
}
