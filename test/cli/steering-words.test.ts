import { beforeAll, describe, expect, it } from 'vitest';
import { servedCli } from './served-cli.js';

/**
 * Steering from the command line says what was done: `parley resume` prints
 * "resumed", `parley unpin` "unpinned", never the kind of control sent (a
 * resume is the pause control switched off), and history, the inbox and tail
 * name each control event the same way (a pin reaches history and tail only).
 */
const served = servedCli({ join: [['human', 'human'], ['coder', 'agent'], ['reviewer', 'agent']] });
const cli = served.cli;

beforeAll(async () => {
  expect((await cli('thread', 'create', 'plan', '--member', 'coder', '--as', 'human')).status).toBe(0);
});

/** Every steering command, with the line it confirms with and the sentence history shows for its event. */
const STEPS: Array<{ args: string[]; said: string }> = [
  { args: ['pause', 'plan'], said: 'paused the thread' },
  { args: ['resume', 'plan'], said: 'resumed the thread' },
  { args: ['pin', 'plan'], said: 'pinned the thread' },
  { args: ['unpin', 'plan'], said: 'unpinned the thread' },
  { args: ['mute', 'plan', 'coder'], said: 'muted @coder' },
  { args: ['unmute', 'plan', 'coder'], said: 'unmuted @coder' },
  { args: ['prod', 'plan', 'coder'], said: 'prodded @coder' },
  { args: ['invite', 'plan', 'reviewer'], said: 'invited @reviewer' },
  { args: ['done', 'plan'], said: 'marked the thread done' },
];

describe('steering words', () => {
  it('steering - each command confirms with the action taken, and history says each event the same way', async () => {
    const seqs: number[] = [];
    for (const { args, said } of STEPS) {
      const run = await cli(...args, '--as', 'human');
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.status, args.join(' ')).toBe(0);
      const line = new RegExp(`^${said}: seq (\\d+)\\n$`).exec(run.stdout);
      expect(line, `${args.join(' ')} printed ${run.stdout}`).not.toBeNull();
      seqs.push(Number(line![1]));
    }
    expect(new Set(seqs).size).toBe(STEPS.length);

    const side = JSON.parse((await cli('thread', 'side', 'plan', 'naming', '--as', 'human', '--json')).stdout) as { id: string };
    const closed = await cli('thread', 'close', side.id, 'call it cache', '--as', 'human');
    expect(closed.stdout).toMatch(/^closed; summary posted in the parent: seq \d+\n$/);

    const history = (await cli('history', 'plan', '--limit', '50', '--as', 'human')).stdout;
    for (const { said } of STEPS) expect(history).toContain(`@human ${said}`);
    expect(history).toContain('@human: Side channel "naming" closed. Summary: call it cache');
    expect(history).not.toMatch(/ set pin| recorded/);
  });

  it('steering - the inbox and tail of a member say "unpinned" and "resumed", not the control kind', async () => {
    const inbox = await cli('inbox', '--peek', '--limit', '50', '--as', 'coder');
    expect(inbox.status).toBe(0);
    // A pin changes nothing an agent may or should do: it stays in history, out of the inbox.
    expect(inbox.stdout).not.toContain('pinned the thread');
    expect(inbox.stdout).toContain('@human resumed the thread');
    expect(inbox.stdout).toContain('@human prodded @coder');
    expect(inbox.stdout).not.toContain('set pin');

    // tail prints the thread's last events, then follows: read until the first of them shows, then stop it.
    const tail = served.follow('tail', 'plan', '--last', '50', '--as', 'human');
    await tail.until('marked the thread done');
    tail.child.kill('SIGTERM');
    const out = tail.output();
    expect(out).toContain('@human unpinned the thread');
    expect(out).toContain('@human resumed the thread');
    expect(out).not.toContain('set pin');
  });
});
