import { describe, expect, it } from 'vitest';
import type { ParleyEvent } from '../../src/schema/event.js';
import { linesOf as lines, servedCli } from './served-cli.js';

/**
 * What the CLI prints, against a real `parley serve`: requests with their
 * text, intent and a short id that `parley respond` takes; system events as
 * sentences; reads that consume saying so; history; tail's seam.
 */
const served = servedCli({ join: [['human', 'human'], ['coder', 'agent'], ['reviewer', 'agent']] });
const { cli, ok } = served;

describe('cli output', () => {
  it('cli inbox - a request shows its intent, text and a short id that parley respond takes; the answer reads as a sentence', async () => {
    const sent = JSON.parse(await ok('request', 'human', 'approve-deploy', '--text', 'ship v2 to prod?', '--params', '{"env":"prod"}', '--as', 'coder', '--json')) as {
      request_id: string;
    };
    const short = sent.request_id.slice(-6);
    const inbox = await ok('inbox', '--as', 'human');
    expect(inbox).toContain(`@coder asks @human: approve-deploy [${short}] — ship v2 to prod? {"env":"prod"}`);
    expect(inbox).toContain(`parley respond ${short} Accepted|Rejected|Completed|Failed`);
    expect(inbox).not.toContain('{}');

    // The short id, as shown (and in lower case, as people type it), answers the request.
    expect((await ok('respond', short.toLowerCase(), 'Completed', '--text', 'deployed', '--as', 'human')).trim()).toBe(`responded Completed to ${short}`);
    const answer = await ok('inbox', '--as', 'coder');
    expect(answer).toContain(`@human answered ${short}: Completed — deployed`);
    expect(answer).not.toMatch(/\[response/);
  }, 120_000);

  it('cli inbox - a DM is shown by the handle of the other participant, not by its internal name', async () => {
    await ok('dm', 'reviewer', 'can you look at the cache change?', '--as', 'coder');
    const inbox = lines(await ok('inbox', '--peek', '--as', 'reviewer')).find((l) => l.includes('can you look at the cache change?'));
    expect(inbox).toMatch(/^high +dm +@coder +\d\d:\d\d:\d\d @coder: can you look at the cache change\?/);
    expect(inbox).not.toContain('dm:');
  }, 120_000);

  it('cli read, history, tail and export - thread changes and controls read as sentences, never raw JSON', async () => {
    await ok('thread', 'create', 'ops', '--member', 'coder', '--as', 'human');
    await ok('say', 'ops', 'standing by', '--as', 'coder');
    await ok('mute', 'ops', 'coder', '--as', 'human');
    await ok('unmute', 'ops', 'coder', '--as', 'human');
    await ok('pause', 'ops', '--as', 'human');
    await ok('resume', 'ops', '--as', 'human');
    await ok('prod', 'ops', 'coder', '--as', 'human');
    await ok('invite', 'ops', 'reviewer', '--as', 'human');
    await ok('thread', 'rename', 'ops', 'operations', '--as', 'human');
    const expected = [
      '@human created #ops',
      '@coder: standing by',
      '@human muted @coder',
      '@human unmuted @coder',
      '@human paused the thread',
      '@human resumed the thread',
      '@human prodded @coder',
      '@human invited @reviewer',
      '@human renamed "ops" to "operations"',
    ];
    expect(lines(await ok('history', 'operations', '--as', 'human'))).toEqual(expected);
    // An invitee reads from its invitation on.
    expect(lines(await ok('read', 'operations', '--as', 'reviewer'))).toEqual(expected.slice(-2));

    const tail = served.follow('tail', 'operations', '--last', String(expected.length), '--as', 'human');
    await tail.until('renamed');
    tail.child.kill('SIGTERM');
    expect(lines(tail.output())).toEqual(expected);

    const transcript = await ok('export', 'operations', '--as', 'human');
    expect(transcript).toMatch(/\*\*@human\*\* created #ops · \d{4}-/);
    expect(transcript).toMatch(/\*\*@human\*\* muted @coder · /);
    expect(transcript).toMatch(/\*\*@human\*\* renamed "ops" to "operations" · /);
    expect(transcript).not.toContain('`{');
  }, 120_000);

  it('cli inbox and wait - a read that consumes says so; --peek says it did not; the help says it too', async () => {
    await ok('inbox', '--as', 'reviewer'); // what came before (an invitation) is out of the way
    await ok('dm', 'reviewer', 'third', '--as', 'coder');
    await ok('dm', 'reviewer', 'fourth', '--as', 'coder');
    const peeked = await ok('inbox', '--peek', '--as', 'reviewer');
    expect(peeked.trim().split('\n').at(-1)).toBe('2 items, not marked read (peek)');
    const read = await ok('inbox', '--as', 'reviewer');
    expect(read).toContain('@coder: third');
    expect(read.trim().split('\n').at(-1)).toBe('2 items, marked read; --peek to look without marking');
    expect((await ok('inbox', '--as', 'reviewer')).trim()).toBe('(inbox empty)');

    await ok('dm', 'reviewer', 'fifth', '--as', 'coder');
    const woke = await ok('wait', '--timeout', '5000', '--as', 'reviewer');
    expect(woke).toContain('@coder: fifth');
    expect(woke.trim().split('\n').at(-1)).toBe('1 item, marked read; --peek to look without marking');

    expect(await ok('inbox', '--help')).toContain('marks what it shows read (--peek looks without marking)');
    expect(await ok('wait', '--help')).toContain('mark it read');
  }, 120_000);

  it('cli history - a thread\'s most recent events, oldest first, without marking them read', async () => {
    await ok('thread', 'create', 'log', '--member', 'reviewer', '--as', 'human');
    for (let i = 1; i <= 5; i++) await ok('say', 'log', `entry ${i}`, '--as', 'human');
    const history = await ok('history', 'log', '--limit', '3', '--as', 'reviewer');
    expect(lines(history)).toEqual(['(earlier events not shown: raise --limit)', '@human: entry 3', '@human: entry 4', '@human: entry 5']);
    // Nothing was marked read: all of it is still new.
    expect(lines(await ok('read', 'log', '--as', 'reviewer'))).toEqual(['@human created #log', ...[1, 2, 3, 4, 5].map((i) => `@human: entry ${i}`)]);
    const bad = await cli('history', 'log', '--limit', 'many', '--as', 'reviewer');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('limit');
  }, 120_000);

  it('cli tail - prints the last N events, then follows live from the next one: nothing doubled or lost at the seam', async () => {
    await ok('thread', 'create', 'seam', '--as', 'human');
    for (let i = 1; i <= 6; i++) await ok('say', 'seam', `before ${i}`, '--as', 'human');
    const tailer = served.follow('tail', 'seam', '--last', '3', '--json', '--as', 'human').child;
    const printed: ParleyEvent[] = [];
    let buffer = '';
    const waiters: Array<() => void> = [];
    tailer.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        printed.push(JSON.parse(buffer.slice(0, end)) as ParleyEvent);
        buffer = buffer.slice(end + 1);
      }
      for (const wake of waiters.splice(0)) wake();
    });
    const until = async (text: string): Promise<void> => {
      while (!printed.some((e) => e.content === text)) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    // Post while the tail reads its history and connects, until a live post shows: some land in the seam.
    // (A tail that exits instead, refusing --last, ends the loop and fails below.)
    for (let i = 1; !printed.some((e) => String(e.content).startsWith('during')) && tailer.exitCode === null; i++) {
      await ok('say', 'seam', `during ${i}`, '--as', 'human');
      await Promise.race([until(`during ${i}`), new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    expect(tailer.exitCode).toBeNull();
    await ok('say', 'seam', 'after', '--as', 'human');
    await until('after');
    tailer.kill('SIGTERM');

    const all = (JSON.parse(await ok('history', 'seam', '--limit', '1000', '--json', '--as', 'human')) as { events: ParleyEvent[] }).events;
    const from = all.findIndex((e) => e.seq === printed[0]!.seq);
    // It began with the thread's last three events when it started (posts made meanwhile may be among them),
    expect(all.findIndex((e) => e.content === 'before 4')).toBeLessThanOrEqual(from);
    expect(printed.map((e) => e.content)).not.toContain('before 3');
    // then printed every later event, once, in order, across the seam.
    expect(printed.map((e) => e.seq)).toEqual(all.slice(from).map((e) => e.seq));
    expect(printed.length).toBeGreaterThan(3);
  }, 120_000);

  it('cli tail - --last 0 prints no history; --last needs a thread and a whole number', async () => {
    await ok('thread', 'create', 'quiet', '--as', 'human');
    await ok('say', 'quiet', 'old news', '--as', 'human');
    const tailer = served.follow('tail', 'quiet', '--last', '0', '--as', 'human').child;
    let seen = '';
    const waiters: Array<() => void> = [];
    tailer.stdout!.on('data', (chunk: string) => {
      seen += chunk;
      for (const wake of waiters.splice(0)) wake();
    });
    for (let i = 1; !seen.includes('fresh') && tailer.exitCode === null; i++) {
      await ok('say', 'quiet', `fresh ${i}`, '--as', 'human');
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    expect(tailer.exitCode).toBeNull();
    tailer.kill('SIGTERM');
    expect(seen).not.toContain('old news');
    expect(seen).not.toContain('created');

    for (const args of [['tail', '--last', '3'], ['tail', 'quiet', '--last', 'some'], ['tail', 'quiet', '--last', '2', '--since', '1']]) {
      const bad = await cli(...args, '--as', 'human');
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/^parley: Invalid --last: /);
    }
  }, 120_000);
});
