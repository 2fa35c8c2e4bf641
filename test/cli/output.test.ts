import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParleyEvent } from '../../src/schema/event.js';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, cliAt, startServe, stopHubs, track, type RunningHub } from '../helpers/serve.js';

/**
 * What the CLI prints, against a real `parley serve`: requests with their
 * text, intent and a short id that `parley respond` takes; system events as
 * sentences; reads that consume saying so; history; tail's seam.
 */
let hub: RunningHub;
let cli: ReturnType<typeof cliAt>;
let home: string;
let cleanup: () => void = () => undefined;

beforeAll(async () => {
  ({ home, cleanup } = tempHome());
  hub = await startServe(home);
  cli = cliAt(home, hub.url);
  for (const [handle, kind] of [['human', 'human'], ['coder', 'agent'], ['reviewer', 'agent']]) expect(cli('join', handle!, '--kind', kind!).status).toBe(0);
}, 30_000);

afterAll(async () => {
  await stopHubs();
  cleanup();
});

const ok = (...args: string[]): string => {
  const run = cli(...args);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
};

/** Lines of output without the leading time. */
const lines = (out: string): string[] =>
  out
    .trim()
    .split('\n')
    .map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''));

describe('cli output', () => {
  it('cli inbox - a request shows its intent, text and a short id that parley respond takes; the answer reads as a sentence', () => {
    const sent = JSON.parse(ok('request', 'human', 'approve-deploy', '--text', 'ship v2 to prod?', '--params', '{"env":"prod"}', '--as', 'coder', '--json')) as {
      request_id: string;
    };
    const short = sent.request_id.slice(-6);
    const inbox = ok('inbox', '--as', 'human');
    expect(inbox).toContain(`@coder asks @human: approve-deploy [${short}] — ship v2 to prod? {"env":"prod"}`);
    expect(inbox).toContain(`parley respond ${short} Accepted|Rejected|Completed|Failed`);
    expect(inbox).not.toContain('{}');

    // The short id, as shown (and in lower case, as people type it), answers the request.
    expect(ok('respond', short.toLowerCase(), 'Completed', '--text', 'deployed', '--as', 'human').trim()).toBe(`responded Completed to ${short}`);
    const answer = ok('inbox', '--as', 'coder');
    expect(answer).toContain(`@human answered ${short}: Completed — deployed`);
    expect(answer).not.toMatch(/\[response/);
  }, 120_000);

  it('cli inbox - a DM is shown by the handle of the other participant, not by its internal name', () => {
    ok('dm', 'reviewer', 'can you look at the cache change?', '--as', 'coder');
    const inbox = lines(ok('inbox', '--peek', '--as', 'reviewer')).find((l) => l.includes('can you look at the cache change?'));
    expect(inbox).toMatch(/^high +dm +@coder +\d\d:\d\d:\d\d @coder: can you look at the cache change\?/);
    expect(inbox).not.toContain('dm:');
  }, 120_000);

  it('cli read, history, tail and export - thread changes and controls read as sentences, never raw JSON', async () => {
    ok('thread', 'create', 'ops', '--member', 'coder', '--as', 'human');
    ok('say', 'ops', 'standing by', '--as', 'coder');
    ok('mute', 'ops', 'coder', '--as', 'human');
    ok('unmute', 'ops', 'coder', '--as', 'human');
    ok('pause', 'ops', '--as', 'human');
    ok('resume', 'ops', '--as', 'human');
    ok('prod', 'ops', 'coder', '--as', 'human');
    ok('invite', 'ops', 'reviewer', '--as', 'human');
    ok('thread', 'rename', 'ops', 'operations', '--as', 'human');
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
    expect(lines(ok('history', 'operations', '--as', 'human'))).toEqual(expected);
    // An invitee reads from its invitation on.
    expect(lines(ok('read', 'operations', '--as', 'reviewer'))).toEqual(expected.slice(-2));

    const tailer = track(
      spawn(process.execPath, [BIN, 'tail', 'operations', '--last', String(expected.length), '--as', 'human'], {
        env: childEnv(home, { PARLEY_URL: hub.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let seen = '';
    tailer.stdout!.setEncoding('utf8');
    const shown = new Promise<void>((resolve) =>
      tailer.stdout!.on('data', (chunk: string) => {
        seen += chunk;
        if (seen.includes('renamed')) resolve();
      }),
    );
    await shown;
    tailer.kill('SIGTERM');
    expect(lines(seen)).toEqual(expected);

    const transcript = ok('export', 'operations', '--as', 'human');
    expect(transcript).toMatch(/\*\*@human\*\* created #ops · \d{4}-/);
    expect(transcript).toMatch(/\*\*@human\*\* muted @coder · /);
    expect(transcript).toMatch(/\*\*@human\*\* renamed "ops" to "operations" · /);
    expect(transcript).not.toContain('`{');
  }, 120_000);

  it('cli inbox and wait - a read that consumes says so; --peek says it did not; the help says it too', () => {
    ok('inbox', '--as', 'reviewer'); // what came before (an invitation) is out of the way
    ok('dm', 'reviewer', 'third', '--as', 'coder');
    ok('dm', 'reviewer', 'fourth', '--as', 'coder');
    const peeked = ok('inbox', '--peek', '--as', 'reviewer');
    expect(peeked.trim().split('\n').at(-1)).toBe('2 items, not marked read (peek)');
    const read = ok('inbox', '--as', 'reviewer');
    expect(read).toContain('@coder: third');
    expect(read.trim().split('\n').at(-1)).toBe('2 items, marked read; --peek to look without marking');
    expect(ok('inbox', '--as', 'reviewer').trim()).toBe('(inbox empty)');

    ok('dm', 'reviewer', 'fifth', '--as', 'coder');
    const woke = ok('wait', '--timeout', '5000', '--as', 'reviewer');
    expect(woke).toContain('@coder: fifth');
    expect(woke.trim().split('\n').at(-1)).toBe('1 item, marked read; --peek to look without marking');

    expect(ok('inbox', '--help')).toContain('marks what it shows read (--peek looks without marking)');
    expect(ok('wait', '--help')).toContain('mark it read');
  }, 120_000);

  it('cli history - a thread\'s most recent events, oldest first, without marking them read', () => {
    ok('thread', 'create', 'log', '--member', 'reviewer', '--as', 'human');
    for (let i = 1; i <= 5; i++) ok('say', 'log', `entry ${i}`, '--as', 'human');
    const history = ok('history', 'log', '--limit', '3', '--as', 'reviewer');
    expect(lines(history)).toEqual(['(earlier events not shown: raise --limit)', '@human: entry 3', '@human: entry 4', '@human: entry 5']);
    // Nothing was marked read: all of it is still new.
    expect(lines(ok('read', 'log', '--as', 'reviewer'))).toEqual(['@human created #log', ...[1, 2, 3, 4, 5].map((i) => `@human: entry ${i}`)]);
    const bad = cli('history', 'log', '--limit', 'many', '--as', 'reviewer');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('limit');
  }, 120_000);

  it('cli tail - prints the last N events, then follows live from the next one: nothing doubled or lost at the seam', async () => {
    ok('thread', 'create', 'seam', '--as', 'human');
    for (let i = 1; i <= 6; i++) ok('say', 'seam', `before ${i}`, '--as', 'human');
    const tailer = track(
      spawn(process.execPath, [BIN, 'tail', 'seam', '--last', '3', '--json', '--as', 'human'], {
        env: childEnv(home, { PARLEY_URL: hub.url }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const printed: ParleyEvent[] = [];
    let buffer = '';
    const waiters: Array<() => void> = [];
    tailer.stdout!.setEncoding('utf8');
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
      ok('say', 'seam', `during ${i}`, '--as', 'human');
      await Promise.race([until(`during ${i}`), new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    expect(tailer.exitCode).toBeNull();
    ok('say', 'seam', 'after', '--as', 'human');
    await until('after');
    tailer.kill('SIGTERM');

    const all = (JSON.parse(ok('history', 'seam', '--limit', '1000', '--json', '--as', 'human')) as { events: ParleyEvent[] }).events;
    const from = all.findIndex((e) => e.seq === printed[0]!.seq);
    // It began with the thread's last three events when it started (posts made meanwhile may be among them),
    expect(all.findIndex((e) => e.content === 'before 4')).toBeLessThanOrEqual(from);
    expect(printed.map((e) => e.content)).not.toContain('before 3');
    // then printed every later event, once, in order, across the seam.
    expect(printed.map((e) => e.seq)).toEqual(all.slice(from).map((e) => e.seq));
    expect(printed.length).toBeGreaterThan(3);
  }, 120_000);

  it('cli tail - --last 0 prints no history; --last needs a thread and a whole number', async () => {
    ok('thread', 'create', 'quiet', '--as', 'human');
    ok('say', 'quiet', 'old news', '--as', 'human');
    const tailer = track(
      spawn(process.execPath, [BIN, 'tail', 'quiet', '--last', '0', '--as', 'human'], { env: childEnv(home, { PARLEY_URL: hub.url }), stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    let seen = '';
    tailer.stdout!.setEncoding('utf8');
    const waiters: Array<() => void> = [];
    tailer.stdout!.on('data', (chunk: string) => {
      seen += chunk;
      for (const wake of waiters.splice(0)) wake();
    });
    for (let i = 1; !seen.includes('fresh') && tailer.exitCode === null; i++) {
      ok('say', 'quiet', `fresh ${i}`, '--as', 'human');
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    expect(tailer.exitCode).toBeNull();
    tailer.kill('SIGTERM');
    expect(seen).not.toContain('old news');
    expect(seen).not.toContain('created');

    for (const args of [['tail', '--last', '3'], ['tail', 'quiet', '--last', 'some'], ['tail', 'quiet', '--last', '2', '--since', '1']]) {
      const bad = cli(...args, '--as', 'human');
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/^parley: Invalid --last: /);
    }
  }, 120_000);
});
