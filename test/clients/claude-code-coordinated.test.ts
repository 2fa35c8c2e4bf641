import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDirs } from '../helpers/agent-cli.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { joinOver, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';
import { testToolsInstalled, toolPath, TOOLS_WAIT_MS } from '../helpers/test-tools.js';

/**
 * The coordinator with the real Claude Code as its adapter (`claude -p`, its
 * LLM provider replaced by a scripted stand-in on loopback): a human's to-all
 * message in a thread with invited_auto on is answered by the invited agent,
 * which has no session open, under its own identity, in reply to the message.
 */
const CLAUDE = toolPath('.bin/claude');

let hub: RunningHub;
let model: MockAnthropic;
let alice: string;
const dirs = tempDirs();
const temp = dirs.make;

beforeAll(testToolsInstalled, TOOLS_WAIT_MS);
beforeAll(async () => {
  model = await startMockAnthropic(() => ({ text: 'I can take the release notes; draft by noon.' }));
  const hubHome = temp('parley-coordinated-hub-');
  const project = temp('parley-coordinated-project-');
  const claudeHome = temp('parley-coordinated-claude-');
  const adapterEnv = {
    HOME: claudeHome,
    // Claude Code's scratch files go with its home when the test removes it.
    TMPDIR: claudeHome,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  fs.writeFileSync(
    path.join(hubHome, 'config.json'),
    JSON.stringify({ coordinator: { enabled: true, timeoutSeconds: 60, agents: { 'coder-3': { command: [CLAUDE, '-p', '--output-format', 'text'], cwd: project, env: adapterEnv } } } }),
  );
  hub = await startServe(hubHome);
  alice = await joinOver(hub, { handle: 'alice', profile: { kind: 'human' } });
  await joinOver(hub, { handle: 'coder-3' });
}, 60_000);

afterAll(async () => {
  await stopHubs();
  await model?.close();
  dirs.cleanup();
});

describe('Claude Code run by the coordinator', () => {
  it("claude code - an idle invited agent answers a human's message through parley coordinate, as itself", async () => {
    expect((await restCall(hub, alice, 'POST', '/threads', { name: 'plan' })).status).toBe(201);
    expect((await restCall(hub, alice, 'POST', '/threads/plan/controls', { invite: { participant_id: 'coder-3' } })).status).toBe(201);
    expect((await restCall(hub, alice, 'POST', '/threads/plan/controls', { invited_auto: { on: true } })).status).toBe(201);
    const asked = await restCall(hub, alice, 'POST', '/threads/plan/messages', { text: 'Who can take the release notes this week?' });
    expect(asked.status).toBe(201);

    // The coordinator's answer is an event of the thread: follow the thread until it is there.
    // A run that failed or timed out says so in #coordinator: the test stops there, with the coordinator's words.
    let answer: Json | undefined;
    while (answer === undefined) {
      const history = await restCall(hub, alice, 'GET', '/threads/plan/history?limit=50');
      answer = (history.json.events as Json[]).find((event) => event.type === 'message' && event.author === 'coder-3');
      if (answer !== undefined) break;
      const notices = (await restCall(hub, alice, 'GET', '/threads/coordinator/history?limit=50')).json.events as Json[] | undefined;
      const failed = (notices ?? []).find((event) => ((event.meta as Json | undefined)?.tags as string[] | undefined)?.some((tag) => /^coordinator:(failed|timeout|refused)$/.test(tag)));
      if (failed) throw new Error(`the coordinator reported: ${String(failed.content)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answer).toMatchObject({ content: 'I can take the release notes; draft by noon.', meta: expect.objectContaining({ reply_to: asked.json.id }) });
    // Claude Code was given the human's message (on its stdin, by the coordinator) as its prompt.
    expect(model.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(model.requests[0]!.messages)).toContain('Who can take the release notes this week?');

    const notices = await restCall(hub, alice, 'GET', '/threads/coordinator/history?limit=50');
    const tags = (notices.json.events as Json[]).flatMap((event) => ((event.meta as Json | undefined)?.tags as string[] | undefined) ?? []);
    expect(tags).toEqual(expect.arrayContaining(['coordinator:started', 'coordinator:finished', 'agent:coder-3']));
  }, 90_000);
});
