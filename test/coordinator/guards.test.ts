import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processAlive } from '../../src/client/live-hub.js';
import { RestParticipant } from '../../src/client/rest-participant.js';
import { holdingNoOne, messagesIn, openBench, stubRuns, type Bench } from '../helpers/coordinator.js';

let bench: Bench | undefined;
const clients: RestParticipant[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await bench?.close();
  bench = undefined;
});

describe('the coordinator keeps runs bounded', () => {
  it('kills a run that outlasts its timeout, with every process it started, and reports the timeout', async () => {
    bench = await openBench({ 'coder-1': { timeoutSeconds: 1, env: { STUB_SLEEP_MS: '600000', STUB_CHILD: '1' } } });
    const { human } = bench;
    await human.dm({ to: 'coder-1', text: 'take your time' });
    const timeout = await bench.notice((n) => n.kind === 'timeout' && n.handle === 'coder-1');
    expect(timeout.text).toMatch(/timed out after 1\.\d s; its process group was killed and nothing was posted/);
    const [start] = stubRuns(bench.logs['coder-1']!);
    expect(processAlive(start!.pid)).toBe(false);
    // Its child went with it (the whole group is killed; the signal may take a moment to land).
    await expect.poll(() => processAlive(start!.child!)).toBe(false);
    expect((await messagesIn(human, '@coder-1')).filter((e) => e.author === 'coder-1')).toEqual([]);
  });

  it('stops a ping-pong between two coordinated agents at maxDepth: exactly maxDepth answers, then a refusal said in the thread', async () => {
    bench = await openBench({ 'agent-a': { env: { STUB_REPLY: '@agent-b ping' } }, 'agent-b': { env: { STUB_REPLY: '@agent-a pong' } } }, { maxDepth: 2 });
    const { human, t } = bench;
    await human.createChannel({ name: 'pp' });
    await human.post({ thread: 'pp', text: '@agent-a start' });
    const refused = await bench.notice((n) => n.kind === 'refused');
    expect(refused.handle).toBe('agent-a');
    expect(refused.text).toContain('the loop guard stops at depth 2 (coordinator.maxDepth), and this is depth 2. Told agent-b there.');
    const [, ping, pong, told] = await messagesIn(human, 'pp');
    expect([ping, pong].map((e) => [e!.author, e!.content, e!.meta?.tags])).toEqual([
      ['agent-a', '@agent-b ping', ['parley:depth=1']],
      ['agent-b', '@agent-a pong', ['parley:depth=2']],
    ]);
    // agent-b learns, where it asked, that agent-a will not answer; the notice asks nothing of it in turn.
    expect(told).toMatchObject({ author: 'agent-a', to: t.hub.participant('agent-b')!.id, meta: { reply_to: pong!.id, tags: ['coordinator:refused', 'agent:agent-a'] } });
    expect(told!.content).toBe(
      "agent-a will not answer this: it would be depth 2 of an exchange between agents, and the coordinator's loop guard stops at 2 (coordinator.maxDepth). A human's message in the thread starts a new exchange.",
    );
    const looked = bench.turn('agent-b', 'nothing');
    await human.post({ thread: 'general', text: 'something else happens' });
    await looked;
    expect(stubRuns(bench.logs['agent-b']!).filter((r) => r.at === 'start')).toHaveLength(1);
    expect(bench.notices.filter((n) => n.kind === 'finished')).toHaveLength(2);
    expect(bench.notices.filter((n) => n.kind === 'refused')).toHaveLength(1);
  });

  it('stops a ping-pong with a live agent (whose answers carry no depth tag) at maxDepth, counting the agents\' turns in the thread, and tells it once', async () => {
    bench = await openBench({ 'agent-a': { env: { STUB_REPLY: '@agent-b ping' } } }, { maxDepth: 3 });
    const { human, t } = bench;
    // agent-b has a session of its own (the test drives it over REST): its answers are untagged.
    await t.hub.join({ handle: 'agent-b', profile: { kind: 'agent' } });
    const b = new RestParticipant(bench.server.url, await t.hub.issueToken('agent-b'));
    await human.createChannel({ name: 'pp' });
    await human.post({ thread: 'pp', text: '@agent-a start' });
    clients.push(b);
    // agent-b answers each of agent-a's answers, for as long as agent-a keeps answering (bounded, so a failure ends).
    for (let round = 1; round <= 6; round++) {
      await bench.notice((n) => n.kind === 'refused' || bench!.notices.filter((x) => x.kind === 'finished').length >= round);
      if (bench.notices.some((n) => n.kind === 'refused')) break;
      await b.post({ thread: 'pp', text: '@agent-a pong' });
    }
    const refused = bench.notices.find((n) => n.kind === 'refused');
    expect(refused?.text).toContain('the loop guard stops at depth 3 (coordinator.maxDepth), and this is depth 4. Told agent-b there.');
    const said = (await messagesIn(human, 'pp')).map((e) => [e.author, e.meta?.tags?.[0] ?? null]);
    expect(said).toEqual([
      ['human', null],
      ['agent-a', 'parley:depth=1'],
      ['agent-b', null],
      ['agent-a', 'parley:depth=3'],
      ['agent-b', null],
      ['agent-a', 'coordinator:refused'],
    ]);
    expect(bench.notices.filter((n) => n.kind === 'finished')).toHaveLength(2);

    // Told, agent-b answers the notice: refused again, but not told again (it would be kept talking).
    const again = await b.post({ thread: 'pp', text: '@agent-a ok, then I stop' });
    await bench.notice((n) => n.kind === 'refused' && n.text.includes(again.id));
    const notices = (await messagesIn(human, 'pp')).filter((e) => e.meta?.tags?.includes('coordinator:refused'));
    expect(notices).toHaveLength(1);
  });

  it('never overlaps two runs of one participant: what comes in during a run is taken by the next run', async () => {
    // The participant does not show as present during its run, so the DMs that come in meanwhile are not left to a
    // session of its own: only the one-run-at-a-time guard keeps a second run from starting beside the first.
    bench = await openBench({ 'coder-1': { env: { STUB_GATE: '$DIR/gate' } } }, {}, { hubAccess: holdingNoOne });
    const { human } = bench;
    const log = bench.logs['coder-1']!;
    const first = await human.dm({ to: 'coder-1', text: 'first' });
    await expect.poll(() => stubRuns(log).length, { timeout: 10_000, interval: 20 }).toBe(1);
    expect((await human.who()).find((p) => p.handle === 'coder-1')).toMatchObject({ connection: 'offline' });
    const second = await human.dm({ to: 'coder-1', text: 'second' });
    const third = await human.dm({ to: 'coder-1', text: 'third' });
    // Both were looked at while the first run held the gate: put off until it ends, or (were runs to overlap) run.
    const deferred = (): number => bench!.turns.filter((x) => x.handle === 'coder-1' && x.result === 'deferred').length;
    await expect.poll(() => deferred() >= 2 || stubRuns(log).filter((r) => r.at === 'start').length >= 2, { timeout: 10_000, interval: 20 }).toBe(true);
    fs.writeFileSync(path.join(bench.dir, 'gate'), '');
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(`in reply to ${third.id}`));

    const runs = stubRuns(bench.logs['coder-1']!);
    expect(runs.map((r) => r.at)).toEqual(['start', 'end', 'start', 'end']);
    expect(runs[2]!.time).toBeGreaterThanOrEqual(runs[1]!.time);
    expect(runs[0]!.stdin).toContain(`* [${first.ts}]`);
    expect(runs[2]!.stdin).not.toContain(`* [${first.ts}]`);
    expect(runs[2]!.stdin).toContain(`* [${second.ts}]`);
    expect(runs[2]!.stdin).toContain(`* [${third.ts}]`);
    const answers = (await messagesIn(human, '@coder-1')).filter((e) => e.author === 'coder-1');
    expect(answers.map((e) => e.meta?.reply_to)).toEqual([first.id, third.id]);
  });

  it('answers a message once across a restart, and answers what came in while it was stopped', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human } = bench;
    const before = await human.dm({ to: 'coder-1', text: 'before the restart' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(before.id));
    await bench.stopCoordinator();
    const during = await human.dm({ to: 'coder-1', text: 'while it was stopped' });
    await bench.restart();
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(during.id));

    const answers = (await messagesIn(human, '@coder-1')).filter((e) => e.author === 'coder-1');
    expect(answers.map((e) => e.meta?.reply_to)).toEqual([before.id, during.id]);
    const starts = stubRuns(bench.logs['coder-1']!).filter((r) => r.at === 'start');
    expect(starts).toHaveLength(2);
    expect(starts[1]!.stdin).not.toContain(before.id);
  });
});

describe('the coordinator makes progress on what its inbox holds', () => {
  it('answers a DM still waiting in the inbox behind the thread\'s read cursor (an inbox read with a small limit leaves it so), once', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human, t } = bench;
    const coder = t.hub.actor('coder-1');
    const release = coder.holdPresence('mcp');
    const skipped = bench.turn('coder-1', 'live');
    await human.dm({ to: 'coder-1', text: 'one' });
    await human.dm({ to: 'coder-1', text: 'two' });
    await skipped;
    // Its session reads one item; the DM thread's cursor moves past both.
    expect((await coder.inbox({ limit: 1 })).items).toHaveLength(1);
    const [left] = (await coder.peek()).items.filter((i) => i.reason === 'dm');
    expect((await coder.readNew({ thread: left!.thread.id })).events).toEqual([]);
    release();

    await human.post({ thread: 'general', text: 'something else happens' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(`in reply to ${left!.event.id}`));
    await bench.turn('coder-1', 'nothing');
    expect(stubRuns(bench.logs['coder-1']!).filter((r) => r.at === 'start')).toHaveLength(1);
    expect((await coder.peek()).items.filter((i) => i.reason === 'dm')).toEqual([]);
  });
});

describe('the coordinator honours steering, and says when it does not run someone', () => {
  it('does not run a hard-muted participant', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human } = bench;
    await human.createChannel({ name: 'quiet', members: ['coder-1'] });
    await human.hardMute('quiet', ['coder-1']);
    const asked = await human.post({ thread: 'quiet', text: '@coder-1 are you there?' });
    const refused = await bench.notice((n) => n.kind === 'refused');
    expect(refused.text).toBe(`coder-1 not run for 1 message in #quiet (${asked.id}): coder-1 is hard-muted there (by human).`);
    expect(stubRuns(bench.logs['coder-1']!)).toEqual([]);
  });

  it('does not run an agent in a paused thread', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human } = bench;
    await human.createChannel({ name: 'held' });
    await human.pause('held');
    await human.post({ thread: 'held', text: '@coder-1 wait for it' });
    const refused = await bench.notice((n) => n.kind === 'refused');
    expect(refused.text).toContain('the thread is paused (by human)');
    expect(stubRuns(bench.logs['coder-1']!)).toEqual([]);
  });

  it('does not run anyone in a thread that is done', async () => {
    bench = await openBench({ 'coder-1': {} });
    const { human } = bench;
    await human.createChannel({ name: 'finished' });
    await human.done('finished');
    await human.post({ thread: 'finished', text: '@coder-1 one last thing' });
    const refused = await bench.notice((n) => n.kind === 'refused');
    expect(refused.text).toContain('the thread is done (by human)');
    expect(stubRuns(bench.logs['coder-1']!)).toEqual([]);
  });

  it("does not run anyone in a thread whose ttl has run out", async () => {
    // The coordinator's clock is an hour ahead of the hub's: the thread's 60 s are over for it, not for the hub (which takes the post).
    bench = await openBench({ 'coder-1': {} }, {}, { now: () => Date.now() + 3_600_000 });
    const { human } = bench;
    await human.createChannel({ name: 'brief' });
    await human.control('brief', { ttl_seconds: 60 });
    await human.post({ thread: 'brief', text: '@coder-1 quick question' });
    const refused = await bench.notice((n) => n.kind === 'refused');
    expect(refused.text).toMatch(/the thread's ttl ran out at \d{4}-/);
    expect(stubRuns(bench.logs['coder-1']!)).toEqual([]);
  });
});
