import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onStopWait, presenceOf as presenceAs, runToEnd, tempDirs, userEnv } from '../helpers/agent-cli.js';
import { lastTurnText, offeredNames, startMockGemini, type GenerateRequest, type MockGemini, type ScriptedTurn } from '../helpers/mock-gemini.js';
import { BIN, joinOver, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';

/**
 * The real Gemini CLI (the `gemini` binary of @google/gemini-cli, run
 * headless with `-p`) in a project where `parley install gemini` ran, with
 * only its LLM provider replaced by a scripted stand-in on loopback. What the
 * agent's model is sent shows what Gemini CLI made of the installed settings:
 * Parley's MCP tools offered, a DM put into its context between two tool
 * calls, and a stop held open for a message that came while it waited.
 */
const GEMINI = path.resolve(import.meta.dirname, '../../node_modules/.bin/gemini');

let hub: RunningHub;
let hubHome: string;
let alice: string;
const dirs = tempDirs();
const temp = dirs.make;
/** Gemini CLI's own settings may be in the test's environment: a user's terminal here has none. */
const CLIENT_VARIABLES = ['GEMINI', 'GOOGLE'];

/**
 * A user's home where Gemini CLI is set up for an API key (what its first-run
 * dialog would write), with usage statistics and update checks off so that it
 * calls nothing but the stand-in.
 */
function userHomeForGemini(): string {
  const home = temp('parley-gemini-user-');
  fs.mkdirSync(path.join(home, '.gemini'));
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
  return home;
}

/** `parley install gemini --as HANDLE` in a fresh project, as its user would type it. */
async function installedProject(handle: string, userHome: string): Promise<string> {
  const project = temp('parley-gemini-project-');
  const installed = await runToEnd(process.execPath, [BIN, 'install', 'gemini', '--as', handle, '--dir', project, '--home', hubHome, '--url', hub.url], { cwd: project, env: userEnv(userHome, CLIENT_VARIABLES) });
  expect(installed.code, installed.stderr).toBe(0);
  return project;
}

/** Gemini CLI, headless, in the project (trusted, as its user would have it), talking to the scripted model. */
function gemini(project: string, userHome: string, model: MockGemini, prompt: string, allowedTools: string[], started?: (child: ChildProcess) => void) {
  const allowed = allowedTools.length > 0 ? ['--allowed-tools', allowedTools.join(',')] : [];
  const env = userEnv(userHome, CLIENT_VARIABLES, {
    GEMINI_API_KEY: 'test-key-not-a-real-one',
    GOOGLE_GEMINI_BASE_URL: model.url,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    // One process: no relaunch of itself with a larger heap.
    GEMINI_CLI_NO_RELAUNCH: 'true',
  });
  return runToEnd(GEMINI, ['-p', prompt, '--output-format', 'json', '--model', 'gemini-2.5-pro', ...allowed], { cwd: project, env }, started);
}

/**
 * Parley's tools as Gemini CLI names them (mcp_<server>_<tool>). Headless, it
 * offers the model only tools that need no confirmation, so the run allows them.
 */
const PARLEY_TOOLS = ['mcp_parley_whoami', 'mcp_parley_inbox', 'mcp_parley_wait', 'mcp_parley_chat_post'];

const presenceOf = (handle: string): Promise<Json | undefined> => presenceAs(hub, alice, handle);

/** The handle's connection once it is offline, or as it is after 15 s (a wait that outlives its client would last 60). */
async function connectionSettled(handle: string): Promise<unknown> {
  const deadline = Date.now() + 15_000;
  let connection = (await presenceOf(handle))?.connection;
  while (connection !== 'offline' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    connection = (await presenceOf(handle))?.connection;
  }
  return connection;
}

beforeAll(async () => {
  hubHome = temp('parley-gemini-hub-');
  // gem-2 and gem-4 stay available at stop, for at most 60 s, and is held at most once in a row.
  fs.writeFileSync(path.join(hubHome, 'config.json'), JSON.stringify({ agents: { stayAvailable: ['gem-2', 'gem-4'], stayAvailableSeconds: 60, maxStopContinuations: 1 } }));
  hub = await startServe(hubHome);
  alice = await joinOver(hub, { handle: 'alice', profile: { kind: 'human' } });
}, 60_000);

afterAll(async () => {
  await stopHubs();
  dirs.cleanup();
});

describe('Gemini CLI with parley install gemini', () => {
  it('gemini cli - offers Parley tools, posts through them, and gets a DM between two tool calls, once', async () => {
    const userHome = userHomeForGemini();
    const project = await installedProject('gem-1', userHome);
    let dmId = '';
    const script = async (_request: GenerateRequest, index: number): Promise<ScriptedTurn> => {
      if (index === 0) {
        // The DM arrives while the agent is busy: after its prompt, before its first tool call.
        dmId = (await restCall(hub, alice, 'POST', '/dm', { to: 'gem-1', text: 'Please look at issue 42 before you go on' })).json.id as string;
        return { call: { name: 'run_shell_command', args: { command: 'echo building', description: 'build' } } };
      }
      if (index === 1) return { call: { name: 'mcp_parley_chat_post', args: { thread: 'general', text: 'Looking at issue 42 now' } } };
      return { text: 'Done.' };
    };
    const model = await startMockGemini(script);
    try {
      const result = await gemini(project, userHome, model, 'Build the project', ['run_shell_command', ...PARLEY_TOOLS]);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ response: 'Done.' });

      expect(model.requests).toHaveLength(3);
      expect(offeredNames(model.requests[0]!)).toEqual(expect.arrayContaining(PARLEY_TOOLS));
      // The AfterTool hook put the DM next to the shell command's result; the next tool call does not bring it again.
      expect(lastTurnText(model.requests[1]!)).toContain('Please look at issue 42 before you go on');
      expect(lastTurnText(model.requests[2]!)).not.toContain('Please look at issue 42');

      const history = await restCall(hub, alice, 'GET', '/threads/general/history?limit=50');
      // Posted through Parley's chat_post tool, under gem-1's own identity.
      expect((history.json.events as Json[]).filter((event) => event.content === 'Looking at issue 42 now').map((event) => event.author)).toEqual(['gem-1']);
      const sent = await restCall(hub, alice, 'GET', '/deliveries/sent');
      expect((sent.json.deliveries as Json[]).find((delivery) => delivery.id === dmId)).toMatchObject({ to: 'gem-1', state: 'injected' });
      // Gemini CLI ended its session (SessionEnd) and its MCP server: gem-1 is offline.
      expect(await connectionSettled('gem-1')).toBe('offline');
    } finally {
      await model.close();
    }
  }, 60_000);

  it('gemini cli - a DM that waited for the session comes with the prompt, once', async () => {
    const userHome = userHomeForGemini();
    const project = await installedProject('gem-3', userHome);
    await restCall(hub, alice, 'POST', '/dm', { to: 'gem-3', text: 'The release is on hold until Friday' });
    const model = await startMockGemini((_request, index) => (index === 0 ? { call: { name: 'run_shell_command', args: { command: 'echo checking', description: 'check' } } } : { text: 'Noted.' }));
    try {
      const result = await gemini(project, userHome, model, 'What is new?', ['run_shell_command']);
      expect(result.code, result.stderr).toBe(0);
      expect(model.requests).toHaveLength(2);
      // SessionStart and BeforeAgent both ask the hub; the first takes the DM, the prompt's turn holds it once, and the tool result does not bring it again.
      const firstTurns = JSON.stringify(model.requests[0]!.contents);
      expect(firstTurns.split('The release is on hold until Friday')).toHaveLength(2);
      expect(lastTurnText(model.requests[1]!)).not.toContain('The release is on hold');
    } finally {
      await model.close();
    }
  }, 60_000);

  it('gemini cli - a stop is held while gem-2 waits, and a DM that comes meanwhile continues the turn, once', async () => {
    const userHome = userHomeForGemini();
    const project = await installedProject('gem-2', userHome);
    const model = await startMockGemini((_request, index) => ({ text: index === 0 ? 'Nothing to do right now.' : 'Rerunning the tests.' }));
    // Once the first turn has ended and the stop hook waits, alice writes.
    const writer = onStopWait(hub, alice, 'gem-2', () => model.requests.length >= 1, async () => {
      await restCall(hub, alice, 'POST', '/dm', { to: 'gem-2', text: 'Can you rerun the flaky tests?' });
    });
    try {
      const result = await gemini(project, userHome, model, 'Anything to do?', []);
      expect(await writer.stop()).toBe(true);
      expect(result.code, result.stderr).toBe(0);
      // Two model calls: the first turn, then the continuation the AfterAgent hook asked for with alice's DM as its reason.
      expect(model.requests).toHaveLength(2);
      expect(lastTurnText(model.requests[1]!)).toContain('Can you rerun the flaky tests?');
      expect(JSON.parse(result.stdout).response).toContain('Rerunning the tests.');
    } finally {
      await writer.stop();
      await model.close();
    }
  }, 60_000);

  it('gemini cli - a stop wait ends when Gemini CLI is killed, and a later DM stays in the inbox for the next session', async () => {
    const userHome = userHomeForGemini();
    const project = await installedProject('gem-4', userHome);
    const model = await startMockGemini(() => ({ text: 'Nothing to do right now.' }));
    let agent: ChildProcess | undefined;
    try {
      const ran = gemini(project, userHome, model, 'Anything to do?', [], (child) => (agent = child));
      // The stop hook waits: gem-4 turns from thinking to listening, its wait holding it on.
      let sawThinking = false;
      for (;;) {
        const presence = await presenceOf('gem-4');
        if (presence?.state === 'thinking') sawThinking = true;
        if (sawThinking && model.requests.length >= 1 && presence?.state === 'listening' && presence.connection === 'waiting') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The user's terminal goes away: Gemini CLI is killed, with no chance to end its hooks.
      agent!.kill('SIGKILL');
      await ran;
      // The orphaned stop hook gives up its wait (and the MCP server its connection): gem-4 is offline, well before its 60 s wait would end.
      expect(await connectionSettled('gem-4')).toBe('offline');
      const dm = await restCall(hub, alice, 'POST', '/dm', { to: 'gem-4', text: 'Are you still there?' });
      const sent = await restCall(hub, alice, 'GET', '/deliveries/sent');
      // Nothing took it for the killed agent: it waits in gem-4's inbox.
      expect((sent.json.deliveries as Json[]).find((delivery) => delivery.id === dm.json.id)).toMatchObject({ to: 'gem-4', state: 'pending' });
    } finally {
      await model.close();
    }
  }, 30_000);
});
