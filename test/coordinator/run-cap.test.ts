import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { messagesIn, openBench, stubRuns, type Bench } from '../helpers/coordinator.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const starts = (log: string): number => stubRuns(log).filter((r) => r.at === 'start').length;

/** The notice that ends the handling of `id`, whichever way: its run finished, or it was refused. */
const settled = (id: string) => (n: { kind: string; text: string }) => (n.kind === 'refused' || n.kind === 'finished') && n.text.includes(id);

/** The coordinator's refusal notices in `thread`, as their author (the agent not run) posted them there. */
async function refusalsIn(b: Bench, thread: string) {
  return (await messagesIn(b.human, thread)).filter((e) => e.meta?.tags?.includes('coordinator:refused'));
}

describe('the coordinator caps runs per hour (coordinator.maxRunsPerHour)', () => {
  it('run cap - one member mentioning an agent in new channels gets maxRunsPerHour runs; the rest are refused, and the member is told once, in the thread', async () => {
    bench = await openBench({ 'coder-1': {} }, { maxRunsPerHour: 2 });
    const { human, t } = bench;
    const asks: Array<{ id: string }> = [];
    for (const name of ['c1', 'c2', 'c3', 'c4']) {
      await human.createChannel({ name });
      asks.push(await human.post({ thread: name, text: '@coder-1 what do you think?' }));
    }
    await bench.notice(settled(asks[3]!.id));
    expect(starts(bench.logs['coder-1']!)).toBe(2);
    const refused = bench.notices.filter((n) => n.kind === 'refused');
    expect(refused.map((n) => n.text)).toEqual([
      expect.stringMatching(new RegExp(`^coder-1 not run for 1 message in #c3 \\(${asks[2]!.id}\\): coder-1 has had 2 runs in the past hour \\(coordinator.maxRunsPerHour\\); the next may start at \\d{4}-`)),
      expect.stringContaining(`in #c4 (${asks[3]!.id}): coder-1 has had 2 runs in the past hour`),
    ]);
    expect(refused.map((n) => n.text.endsWith(' Told human there.'))).toEqual([true, false]);
    // Told where it asked, addressed to it, once for the window: in #c3, not again in #c4.
    const [told] = await refusalsIn(bench, 'c3');
    expect(told).toMatchObject({
      author: 'coder-1',
      to: t.hub.participant('human')!.id,
      meta: { reply_to: asks[2]!.id, tags: ['coordinator:refused', 'agent:coder-1'] },
    });
    expect(told!.content).toMatch(/^coder-1 will not answer this: the coordinator runs it at most 2 times an hour \(coordinator.maxRunsPerHour\), and it may run again from \d{4}-/);
    expect(await refusalsIn(bench, 'c4')).toEqual([]);
    expect((await messagesIn(human, 'c4')).map((e) => e.author)).toEqual(['human']);
  });

  it('run cap - counts the runs one author\'s messages start, whichever agent they ask', async () => {
    bench = await openBench({ 'coder-1': {}, 'coder-2': {} }, { maxRunsPerHour: 1 });
    const { human, t } = bench;
    const other = await t.hub.join({ handle: 'other', profile: { kind: 'human' } });
    const first = await human.dm({ to: 'coder-1', text: 'one' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(first.id));
    const second = await human.dm({ to: 'coder-2', text: 'two' });
    const refused = await bench.notice(settled(second.id));
    expect(refused.text).toContain(`coder-2 not run for 1 direct message in a direct message with human (${second.id}): messages of human have started 1 runs in the past hour`);
    const [told] = await refusalsIn(bench, '@coder-2');
    expect(told!.content).toContain('the coordinator starts at most 1 runs an hour for one author\'s messages (coordinator.maxRunsPerHour), and yours may start one again from');
    // Another author's message to coder-2 is answered: coder-2 itself has not run.
    const third = await other.dm({ to: 'coder-2', text: 'three' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(third.id));
    expect([starts(bench.logs['coder-1']!), starts(bench.logs['coder-2']!)]).toEqual([1, 1]);
  });

  it('run cap - counts the runs of one agent, whoever asks', async () => {
    bench = await openBench({ 'coder-1': {} }, { maxRunsPerHour: 1 });
    const { human, t } = bench;
    const other = await t.hub.join({ handle: 'other', profile: { kind: 'human' } });
    const first = await human.dm({ to: 'coder-1', text: 'one' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(first.id));
    const second = await other.dm({ to: 'coder-1', text: 'two' });
    const refused = await bench.notice(settled(second.id));
    expect(refused.text).toContain(`(${second.id}): coder-1 has had 1 runs in the past hour`);
    expect((await refusalsIn(bench, '@coder-1')).length).toBe(0);
    expect((await messagesIn(other, '@coder-1')).filter((e) => e.meta?.tags?.includes('coordinator:refused')).map((e) => e.to)).toEqual([other.participant.id]);
    expect(starts(bench.logs['coder-1']!)).toBe(1);
  });

  it('run cap - an hour after its oldest run, the agent runs again', async () => {
    let later = 0;
    bench = await openBench({ 'coder-1': {} }, { maxRunsPerHour: 1 }, { now: () => Date.now() + later });
    const { human } = bench;
    const first = await human.dm({ to: 'coder-1', text: 'one' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(first.id));
    const second = await human.dm({ to: 'coder-1', text: 'two' });
    expect((await bench.notice(settled(second.id))).kind).toBe('refused');
    later = 3_600_001;
    const third = await human.dm({ to: 'coder-1', text: 'three' });
    await bench.notice((n) => n.kind === 'finished' && n.text.includes(third.id));
    expect(starts(bench.logs['coder-1']!)).toBe(2);
  });
});

describe('coordinator.maxRunsPerHour', () => {
  it('run cap - a value that is not a whole number of runs from 1 is refused, naming the key', () => {
    for (const maxRunsPerHour of [0, -1, 2.5, '12', null]) {
      expect(() => parseConfig({ coordinator: { maxRunsPerHour } }), String(maxRunsPerHour)).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID', field: 'coordinator.maxRunsPerHour', message: expect.stringContaining('"coordinator.maxRunsPerHour"') }),
      );
    }
    expect(parseConfig({}).coordinator.maxRunsPerHour).toBe(12);
  });
});
