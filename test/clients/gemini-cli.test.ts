import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { presenceOf } from '../helpers/agent-cli.js';
import { lastTurnText, startMockGemini } from '../helpers/mock-gemini.js';
import { restCall, type Json } from '../helpers/serve.js';
import { clientsHub, connectionSettled, GEMINI_CLI, installedProject } from './agent-clients.js';

/**
 * What the real Gemini CLI alone is tested for (what every client does is in
 * agent-clients.test.ts): its session start hook brings what waited for the
 * session, once; and a stop wait ends when the client is killed, leaving a
 * later message in the inbox.
 */
// gem-4 stays available at stop.
const served = clientsHub(['gem-4']);
const temp = served.temp;

describe('Gemini CLI with parley install gemini', () => {
  it('gemini cli - a DM that waited for the session comes with the prompt, once', async () => {
    const userHome = GEMINI_CLI.userHome(temp);
    const project = await installedProject(GEMINI_CLI, 'gem-3', userHome, served);
    await restCall(served.hub, served.alice, 'POST', '/dm', { to: 'gem-3', text: 'The release is on hold until Friday' });
    const model = await startMockGemini((_request, index) => (index === 0 ? { call: { name: 'run_shell_command', args: { command: 'echo checking', description: 'check' } } } : { text: 'Noted.' }));
    try {
      const result = await GEMINI_CLI.run(project, userHome, model.url, 'What is new?', ['run_shell_command']);
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

  it('gemini cli - a stop wait ends when Gemini CLI is killed, and a later DM stays in the inbox for the next session', async () => {
    const userHome = GEMINI_CLI.userHome(temp);
    const project = await installedProject(GEMINI_CLI, 'gem-4', userHome, served);
    const model = await GEMINI_CLI.startModel(() => ({ text: 'Nothing to do right now.' }));
    let agent: ChildProcess | undefined;
    try {
      const ran = GEMINI_CLI.run(project, userHome, model.url, 'Anything to do?', [], (child) => (agent = child));
      // The stop hook waits: gem-4 turns from thinking to listening, its wait holding it on.
      let sawThinking = false;
      for (;;) {
        const presence = await presenceOf(served.hub, served.alice, 'gem-4');
        if (presence?.state === 'thinking') sawThinking = true;
        if (sawThinking && model.calls() >= 1 && presence?.state === 'listening' && presence.connection === 'waiting') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The user's terminal goes away: Gemini CLI is killed, with no chance to end its hooks.
      agent!.kill('SIGKILL');
      await ran;
      // The orphaned stop hook gives up its wait (and the MCP server its connection): gem-4 is offline, well before its 60 s wait would end.
      expect(await connectionSettled(served.hub, served.alice, 'gem-4')).toBe('offline');
      const dm = await restCall(served.hub, served.alice, 'POST', '/dm', { to: 'gem-4', text: 'Are you still there?' });
      const sent = await restCall(served.hub, served.alice, 'GET', '/deliveries/sent');
      // Nothing took it for the killed agent: it waits in gem-4's inbox.
      expect((sent.json.deliveries as Json[]).find((delivery) => delivery.id === dm.json.id)).toMatchObject({ to: 'gem-4', state: 'pending' });
    } finally {
      await model.close();
    }
  }, 30_000);
});
