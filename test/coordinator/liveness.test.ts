import { afterEach, describe, expect, it } from 'vitest';
import { RestParticipant } from '../../src/client/rest-participant.js';
import { messagesIn, openBench, stubRuns, type Bench } from '../helpers/coordinator.js';

let bench: Bench | undefined;
const clients: RestParticipant[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await bench?.close();
  bench = undefined;
});

describe('an agent left to its own live session', () => {
  it('is answered for as soon as that session ends, with no further event', async () => {
    bench = await openBench({ 'coder-1': { env: { STUB_REPLY: 'answered after you left' } } });
    const { human, t } = bench;
    // coder-1's own session: a live connection over HTTP, as `parley mcp` on stdio holds one.
    const own = new RestParticipant(bench.server.url, await t.hub.issueToken('coder-1'));
    clients.push(own);
    const connection = await own.connect();
    const skipped = bench.turn('coder-1', 'live');
    const dm = await human.dm({ to: 'coder-1', text: 'asked while your session is open' });
    await skipped;
    expect(stubRuns(bench.logs['coder-1']!)).toEqual([]);

    // The session ends and nothing else happens in the hub: the coordinator answers anyway.
    connection.close();
    const finished = await bench.notice((n) => n.kind === 'finished' && n.handle === 'coder-1');
    expect(finished.text).toContain(`in reply to ${dm.id}`);
    const answers = (await messagesIn(human, '@coder-1')).filter((e) => e.author === 'coder-1');
    expect(answers).toMatchObject([{ content: 'answered after you left', meta: { reply_to: dm.id } }]);
  });

  it('is answered for once its hooks report its session ended (a hook report kept it present)', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human, t } = bench;
    const coder = t.hub.actor('coder-1');
    await coder.agentHook({ event: 'tool' });
    const skipped = bench.turn('coder-1', 'live');
    const dm = await human.dm({ to: 'coder-1', text: 'asked between your tool calls' });
    await skipped;
    await coder.agentHook({ event: 'session-end' });
    const finished = await bench.notice((n) => n.kind === 'finished' && n.handle === 'coder-1');
    expect(finished.text).toContain(`in reply to ${dm.id}`);
  });

  it('is not left looking present after a coordinated run whose adapter reported tool runs through its hooks, so the next DM is answered', async () => {
    bench = await openBench({ 'coder-1': { env: { STUB_HOOK: '1' } } });
    const { human } = bench;
    const first = await human.dm({ to: 'coder-1', text: 'first' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(first.id));
    expect(stubRuns(bench.logs['coder-1']!).find((r) => r.at === 'hooked')).toMatchObject({ status: 200 });
    expect((await human.who()).find((p) => p.handle === 'coder-1')).toMatchObject({ connection: 'offline' });
    const second = await human.dm({ to: 'coder-1', text: 'second' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(second.id));
  });
});
