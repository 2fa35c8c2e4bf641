import { describe, expect, it } from 'vitest';
import { onStopWait } from '../helpers/agent-cli.js';
import { restCall, type Json } from '../helpers/serve.js';
import { AGENT_CLIENTS, clientsHub, connectionSettled, installedProject } from './agent-clients.js';

/**
 * What every agent CLI does in a project where `parley install` ran (the real
 * Claude Code and Gemini CLI, headless, their LLM provider a scripted
 * stand-in): what its model is sent shows what it made of the installed
 * files. Parley's MCP tools are offered, a DM is put into its context between
 * two tool calls, and a stop is held open for a message that comes while it waits.
 */
// Each client's second participant stays available at stop.
const served = clientsHub(AGENT_CLIENTS.map((client) => `${client.handles}-2`));
const temp = served.temp;

for (const client of AGENT_CLIENTS) {
  describe(`${client.title} with parley install ${client.install}`, () => {
    it(`${client.title} - offers Parley tools, posts through them, and gets a DM between two tool calls, once`, async () => {
      const handle = `${client.handles}-1`;
      const userHome = client.userHome(temp);
      const project = await installedProject(client, handle, userHome, served);
      let dmId = '';
      const model = await client.startModel(async (n) => {
        if (n === 0) {
          // The DM arrives while the agent is busy: after its prompt, before its first tool call.
          dmId = (await restCall(served.hub, served.alice, 'POST', '/dm', { to: handle, text: 'Please look at issue 42 before you go on' })).json.id as string;
          return { tool: client.shellTool, input: { command: 'echo building', description: 'build' } };
        }
        if (n === 1) return { tool: client.parleyTool('chat_post'), input: { thread: 'general', text: `Looking at issue 42 now (${handle})` } };
        return { text: 'Done.' };
      });
      try {
        const parleyTools = ['whoami', 'inbox', 'wait', 'chat_post'].map(client.parleyTool);
        const result = await client.run(project, userHome, model.url, 'Build the project', [client.shellTool, ...parleyTools]);
        expect(result.code, result.stderr).toBe(0);
        expect(client.answerOf(result.stdout)).toEqual({ text: 'Done.', failed: false });

        expect(model.calls()).toBe(3);
        expect(model.offered(0)).toEqual(expect.arrayContaining(parleyTools));
        // The hook after a tool put the DM next to the shell command's result; the next tool call does not bring it again.
        expect(model.lastTurnText(1)).toContain('Please look at issue 42 before you go on');
        expect(model.lastTurnText(2)).not.toContain('Please look at issue 42');

        const history = await restCall(served.hub, served.alice, 'GET', '/threads/general/history?limit=50');
        // Posted through Parley's chat_post tool, under the participant's own identity.
        expect((history.json.events as Json[]).filter((event) => event.content === `Looking at issue 42 now (${handle})`).map((event) => event.author)).toEqual([handle]);
        const sent = await restCall(served.hub, served.alice, 'GET', '/deliveries/sent');
        expect((sent.json.deliveries as Json[]).find((delivery) => delivery.id === dmId)).toMatchObject({ to: handle, state: 'injected' });
        // A client that ends its session and its MCP server as it exits leaves its participant offline.
        if (client.endsSession) expect(await connectionSettled(served.hub, served.alice, handle)).toBe('offline');
      } finally {
        await model.close();
      }
    }, client.timeoutMs);

    it(`${client.title} - a stop is held while ${client.handles}-2 waits, and a DM that comes meanwhile continues the turn, once`, async () => {
      const handle = `${client.handles}-2`;
      const userHome = client.userHome(temp);
      const project = await installedProject(client, handle, userHome, served);
      const model = await client.startModel((n) => ({ text: n === 0 ? 'Nothing to do right now.' : 'Rerunning the tests.' }));
      // Once the first turn has ended and the stop hook waits, alice writes.
      const writer = onStopWait(served.hub, served.alice, handle, () => model.calls() >= 1, async () => {
        await restCall(served.hub, served.alice, 'POST', '/dm', { to: handle, text: 'Can you rerun the flaky tests?' });
      });
      try {
        const result = await client.run(project, userHome, model.url, 'Anything to do?', []);
        expect(await writer.stop()).toBe(true);
        expect(result.code, result.stderr).toBe(0);
        // Two model calls: the first turn, then the continuation the stop hook asked for with alice's DM as its reason.
        expect(model.calls()).toBe(2);
        expect(model.lastTurnText(1)).toContain('Can you rerun the flaky tests?');
        expect(client.answerOf(result.stdout).text).toContain('Rerunning the tests.');
      } finally {
        await writer.stop();
        await model.close();
      }
    }, client.timeoutMs);
  });
}
