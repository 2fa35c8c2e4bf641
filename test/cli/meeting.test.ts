import { describe, expect, it } from 'vitest';
import { linesOf as lines, servedCli } from './served-cli.js';

/**
 * `parley meeting …` against a real `parley serve`, as a user types it: the
 * hub keeps where each participant stopped hearing, and every subcommand
 * prints sentences (JSON with --json).
 */
const served = servedCli({ join: [['human', 'human'], ['coder-1', 'agent'], ['reviewer', 'agent']] });
const { cli, ok } = served;

describe('cli meeting', () => {
  it('cli meeting hear - twice gives only the new lines; status counts 0 unread after a hear', async () => {
    await ok('meeting', 'join', 'standup', '--as', 'coder-1');
    await ok('meeting', 'say', 'standup', 'build is green', '--as', 'human');
    await ok('meeting', 'say', 'standup', 'deploying at noon', '--as', 'human');
    expect((await ok('meeting', 'status', 'standup', '--as', 'coder-1')).trim()).toBe('standup: 2 here, lines #1 to #2 kept, 2 unread');

    expect(lines(await ok('meeting', 'hear', 'standup', '--as', 'coder-1'))).toEqual(['#1 @human: build is green', '#2 @human: deploying at noon']);
    expect((await ok('meeting', 'status', 'standup', '--as', 'coder-1')).trim()).toBe('standup: 2 here, lines #1 to #2 kept, 0 unread after #2');
    expect((await ok('meeting', 'hear', 'standup', '--as', 'coder-1')).trim()).toBe('(nothing new in standup)');

    await ok('meeting', 'say', 'standup', 'done', '--as', 'human');
    expect((await ok('meeting', 'status', 'standup', '--as', 'coder-1')).trim()).toBe('standup: 2 here, lines #1 to #3 kept, 1 unread after #2');
    expect(lines(await ok('meeting', 'hear', 'standup', '--as', 'coder-1'))).toEqual(['#3 @human: done']);
    // Each participant has a place of their own: the reviewer has heard nothing yet.
    expect(lines(await ok('meeting', 'hear', 'standup', '--as', 'reviewer', '--limit', '1'))).toEqual(['#1 @human: build is green']);
    expect(lines(await ok('meeting', 'hear', 'standup', '--as', 'reviewer'))).toEqual(['#2 @human: deploying at noon', '#3 @human: done']);
  }, 120_000);

  it('cli meeting hear --last-heard N - hears after line N without moving your place back; a bad N names the flag', async () => {
    for (const text of ['one', 'two', 'three']) await ok('meeting', 'say', 'review', text, '--as', 'human');
    expect(lines(await ok('meeting', 'hear', 'review', '--as', 'coder-1'))).toHaveLength(3);
    expect(lines(await ok('meeting', 'hear', 'review', '--last-heard', '1', '--as', 'coder-1'))).toEqual(['#2 @human: two', '#3 @human: three']);
    expect((await ok('meeting', 'status', 'review', '--last-heard', '0', '--as', 'coder-1')).trim()).toBe('review: 1 here, lines #1 to #3 kept, 3 unread');
    expect((await ok('meeting', 'hear', 'review', '--as', 'coder-1')).trim()).toBe('(nothing new in review)');
    const json = JSON.parse(await ok('meeting', 'hear', 'review', '--last-heard', '2', '--json', '--as', 'coder-1')) as unknown;
    expect(json).toEqual({ messages: [{ number: 3, speaker: 'human', ts: expect.any(String), content: 'three' }], messages_lost: false, last_heard: 3 });

    for (const [flag, value] of [['--last-heard', 'x'], ['--last-heard', '-1'], ['--limit', '0']] as const) {
      const bad = await cli('meeting', 'hear', 'review', `${flag}=${value}`, '--as', 'coder-1');
      expect(bad.status, `${flag} ${value}`).toBe(2);
      expect(bad.stderr).toContain(`Invalid ${flag}: "${value}" is not a whole number`);
      expect(bad.stdout).toBe('');
    }
  }, 120_000);

  it('cli meeting join, who, say, status, leave - print sentences, not JSON; --json prints the JSON', async () => {
    expect((await ok('meeting', 'join', 'design', '--as', 'human')).trim()).toBe('joined design; 1 here: @human');
    expect((await ok('meeting', 'join', 'design', '--as', 'reviewer')).trim()).toBe('joined design; 2 here: @human, @reviewer');
    expect((await ok('meeting', 'who', 'design', '--as', 'human')).trim().split('\n')).toEqual([
      expect.stringMatching(/^@human {4} joined \d\d:\d\d:\d\d$/),
      expect.stringMatching(/^@reviewer {2}joined \d\d:\d\d:\d\d$/),
    ]);
    expect((await ok('meeting', 'status', 'design', '--as', 'human')).trim()).toBe('design: 2 here, nothing said yet');
    expect((await ok('meeting', 'say', 'design', 'cache first?', '--as', 'reviewer')).trim()).toBe('said #1 in design');
    expect((await ok('meeting', 'status', 'design', '--as', 'human')).trim()).toBe('design: 2 here, line #1 kept, 1 unread');
    expect((await ok('meeting', 'leave', 'design', '--as', 'reviewer')).trim()).toBe('left design');
    expect((await ok('meeting', 'leave', 'design', '--as', 'reviewer')).trim()).toBe('you were not in design; nothing to leave');

    expect(JSON.parse(await ok('meeting', 'who', 'design', '--as', 'human', '--json'))).toMatchObject({ name: 'design', who: [{ handle: 'human', role: null }] });
    expect(JSON.parse(await ok('meeting', 'hear', 'design', '--as', 'human', '--json'))).toMatchObject({ messages: [{ number: 1, speaker: 'reviewer' }], last_heard: 1 });
    expect(JSON.parse(await ok('meeting', 'status', 'design', '--as', 'human', '--json'))).toEqual({ active: 1, oldest: 1, latest: 1, unread: 0, last_heard: 1 });
    expect(JSON.parse(await ok('meeting', 'say', 'design', 'noted', '--as', 'human', '--json'))).toEqual({ number: 2, truncated: false, redacted: false });
    expect(JSON.parse(await ok('meeting', 'leave', 'design', '--as', 'human', '--json'))).toEqual({ left: true });
    for (const args of [['join', 'design'], ['who', 'design'], ['status', 'design'], ['hear', 'design'], ['list'], ['leave', 'design']]) {
      const out = await ok('meeting', ...args, '--as', 'human');
      expect(out, args[0]).not.toMatch(/^\s*[{[]/);
      const json = await ok('meeting', ...args, '--as', 'human', '--json');
      expect(() => JSON.parse(json) as unknown, args[0]).not.toThrow();
    }
  }, 120_000);

  it('cli meeting list - the meetings of the session, with who is in and the latest line', async () => {
    await ok('meeting', 'join', 'empty-room', '--as', 'reviewer');
    const listed = (await ok('meeting', 'list', '--as', 'reviewer')).trim().split('\n');
    expect(listed).toEqual(expect.arrayContaining([expect.stringMatching(/^standup +2 here, latest line #3$/), expect.stringMatching(/^empty-room +1 here, nothing said yet$/)]));
    const json = JSON.parse(await ok('meeting', 'list', '--json', '--as', 'reviewer')) as { meetings: Array<{ name: string; active: number; latest: number }> };
    expect(json.meetings.find((m) => m.name === 'standup')).toMatchObject({ active: 2, latest: 3 });
    expect(await ok('meeting', '--help')).toMatch(/meeting list +The meetings of the session/);
    // Another session has no meetings of this one.
    expect((await cli('join', 'outsider', '--session', 'other')).status).toBe(0);
    expect((await ok('meeting', 'list', '--as', 'outsider', '--session', 'other')).trim()).toBe('(no meetings in this session; "parley meeting join NAME" starts one)');
  }, 120_000);

  it('cli meeting hear - what others said is printed safe for a terminal', async () => {
    await ok('meeting', 'say', 'safety', 'looks \u202eevil\u202c fine', '--as', 'human');
    expect(lines(await ok('meeting', 'hear', 'safety', '--as', 'coder-1'))).toEqual(['#1 @human: looks \\u202eevil\\u202c fine']);
  }, 120_000);
});
