import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onStopWait, runToEnd, tempDirs, userEnv } from '../helpers/agent-cli.js';
import { lastTurnText, startMockAnthropic, type MockAnthropic, type ScriptedTurn, type MessagesRequest } from '../helpers/mock-anthropic.js';
import { BIN, joinOver, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';

/**
 * The real Claude Code (the `claude` binary of @anthropic-ai/claude-code, run
 * headless with `-p`) in a project where `parley install claude` ran, with
 * only its LLM provider replaced by a scripted stand-in on loopback. What the
 * agent's model is sent shows what Claude Code made of the installed files:
 * Parley's MCP tools offered, a DM put into its context between two tool
 * calls, and a stop held open for a message that came while it waited.
 */
const CLAUDE = path.resolve(import.meta.dirname, '../../node_modules/.bin/claude');

let hub: RunningHub;
let hubHome: string;
let alice: string;
const dirs = tempDirs();
const temp = dirs.make;
/** Claude Code's own settings may be in the test's environment: a user's terminal here has none. */
const CLIENT_VARIABLES = ['CLAUDE', 'ANTHROPIC', 'CURSOR_VERSION'];

/** `parley install claude --as HANDLE` in a fresh project, as its user would type it. */
async function installedProject(handle: string, userHome: string): Promise<string> {
  const project = temp('parley-claude-project-');
  const installed = await runToEnd(process.execPath, [BIN, 'install', 'claude', '--as', handle, '--dir', project, '--home', hubHome, '--url', hub.url], { cwd: project, env: userEnv(userHome, CLIENT_VARIABLES) });
  expect(installed.code, installed.stderr).toBe(0);
  return project;
}

/** Claude Code, headless, in the project, talking to the scripted model. */
function claude(project: string, userHome: string, model: MockAnthropic, prompt: string, allowedTools: string) {
  return runToEnd(CLAUDE, ['-p', prompt, '--output-format', 'json', '--allowedTools', allowedTools], {
    cwd: project,
    env: userEnv(userHome, CLIENT_VARIABLES, {
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
    }),
  });
}

beforeAll(async () => {
  hubHome = temp('parley-claude-hub-');
  // coder-2 stays available at stop, for at most 60 s, and is held at most once in a row.
  fs.writeFileSync(path.join(hubHome, 'config.json'), JSON.stringify({ agents: { stayAvailable: ['coder-2'], stayAvailableSeconds: 60, maxStopContinuations: 1 } }));
  hub = await startServe(hubHome);
  alice = await joinOver(hub, { handle: 'alice', profile: { kind: 'human' } });
}, 60_000);

afterAll(async () => {
  await stopHubs();
  dirs.cleanup();
});

describe('Claude Code with parley install claude', () => {
  it('claude code - offers Parley tools, posts through them, and gets a DM between two tool calls, once', async () => {
    const userHome = temp('parley-claude-user-');
    const project = await installedProject('coder-1', userHome);
    let dmId = '';
    const script = async (_request: MessagesRequest, index: number): Promise<ScriptedTurn> => {
      if (index === 0) {
        // The DM arrives while the agent is busy: after its prompt, before its first tool call.
        dmId = (await restCall(hub, alice, 'POST', '/dm', { to: 'coder-1', text: 'Please look at issue 42 before you go on' })).json.id as string;
        return { tool: { name: 'Bash', input: { command: 'echo building', description: 'build' } } };
      }
      if (index === 1) return { tool: { name: 'mcp__parley__chat_post', input: { thread: 'general', text: 'Looking at issue 42 now' } } };
      return { text: 'Done.' };
    };
    const model = await startMockAnthropic(script);
    try {
      const result = await claude(project, userHome, model, 'Build the project', 'Bash mcp__parley__chat_post');
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ type: 'result', is_error: false, result: 'Done.' });

      expect(model.requests).toHaveLength(3);
      const offered = model.requests[0]!.tools!.map((tool) => tool.name);
      expect(offered).toEqual(expect.arrayContaining(['mcp__parley__whoami', 'mcp__parley__inbox', 'mcp__parley__wait', 'mcp__parley__chat_post']));
      // The PostToolUse hook put the DM next to the Bash result; the next tool call does not bring it again.
      expect(lastTurnText(model.requests[1]!)).toContain('Please look at issue 42 before you go on');
      expect(lastTurnText(model.requests[2]!)).not.toContain('Please look at issue 42');

      const history = await restCall(hub, alice, 'GET', '/threads/general/history?limit=50');
      // Posted through Parley's chat_post tool, under coder-1's own identity.
      expect((history.json.events as Json[]).filter((event) => event.content === 'Looking at issue 42 now').map((event) => event.author)).toEqual(['coder-1']);
      const sent = await restCall(hub, alice, 'GET', '/deliveries/sent');
      expect((sent.json.deliveries as Json[]).find((delivery) => delivery.id === dmId)).toMatchObject({ to: 'coder-1', state: 'injected' });
    } finally {
      await model.close();
    }
  }, 120_000);

  it('claude code - a stop is held while coder-2 waits, and a DM that comes meanwhile continues the turn, once', async () => {
    const userHome = temp('parley-claude-user-');
    const project = await installedProject('coder-2', userHome);
    const model = await startMockAnthropic((_request, index) => ({ text: index === 0 ? 'Nothing to do right now.' : 'Rerunning the tests.' }));
    // Once the first turn has ended and the stop hook waits, alice writes.
    const writer = onStopWait(hub, alice, 'coder-2', () => model.requests.length >= 1, async () => {
      await restCall(hub, alice, 'POST', '/dm', { to: 'coder-2', text: 'Can you rerun the flaky tests?' });
    });
    try {
      const result = await claude(project, userHome, model, 'Anything to do?', 'Bash');
      expect(await writer.stop()).toBe(true);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ type: 'result', result: 'Rerunning the tests.' });
      // Two model calls: the first turn, then the continuation the stop hook asked for with alice's DM as its reason.
      expect(model.requests).toHaveLength(2);
      expect(lastTurnText(model.requests[1]!)).toContain('Can you rerun the flaky tests?');
    } finally {
      await writer.stop();
      await model.close();
    }
  }, 120_000);
});
