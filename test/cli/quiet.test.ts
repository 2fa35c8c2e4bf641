import { beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/serve.js';
import { servedCli } from './served-cli.js';

/**
 * Quieting a thread for oneself from the command line: `parley quiet`
 * (chat_mute), `parley unsubscribe` and `parley subscribe` change only the
 * caller's own subscription, unlike `parley mute`, the steering control that
 * silences someone else, whose help points to `quiet`.
 */
const served = servedCli({ join: [['human', 'human'], ['coder', 'agent']] });
const cli = served.cli;

beforeAll(async () => {
  expect((await cli('thread', 'create', 'plan', '--member', 'coder', '--as', 'human')).status).toBe(0);
});

async function subscriptionOf(handle: string): Promise<string> {
  const threads = JSON.parse((await cli('threads', '--json', '--as', handle)).stdout) as { threads: Array<{ name: string; subscription?: string }> };
  return threads.threads.find((t) => t.name === 'plan')?.subscription ?? 'absent';
}

/** The coder's inbox item for the message with `text`, looked at without marking. */
async function inboxItem(text: string): Promise<Json | undefined> {
  const inbox = JSON.parse((await cli('inbox', '--peek', '--json', '--as', 'coder')).stdout) as { items: Json[] };
  return inbox.items.find((item) => item.event.content === text);
}

describe('quiet, subscribe, unsubscribe', () => {
  it('quiet - quiets a thread for the caller only: low priority, never waking, and no hard mute', async () => {
    const quiet = await cli('quiet', 'plan', '--as', 'coder');
    expect(quiet.stderr).toBe('');
    expect(quiet.status).toBe(0);
    expect(quiet.stdout).toBe('quieted #plan for you: its messages stay in your inbox at low priority and never wake you ("parley subscribe plan" undoes it).\n');
    expect(await subscriptionOf('coder')).toBe('muted');

    expect((await cli('say', 'plan', 'while you were quiet', '--as', 'human')).status).toBe(0);
    expect(await inboxItem('while you were quiet')).toMatchObject({ priority: 'low' });
    // Not the steering mute: the coder still posts, and the thread's members show no hard mute.
    expect((await cli('say', 'plan', 'still here', '--as', 'coder')).status).toBe(0);
    const detail = await served.rest('human', 'GET', '/threads/plan');
    expect((detail.json.members as Json[]).find((m) => m.handle === 'coder')).toMatchObject({ hardMuted: false, subscription: 'muted' });
  });

  it('quiet - unsubscribe stops the thread reaching the inbox; subscribe brings it back', async () => {
    const left = await cli('unsubscribe', 'plan', '--as', 'coder');
    expect(left.status).toBe(0);
    expect(left.stdout).toBe('unsubscribed from #plan: its messages no longer reach your inbox; mentions of you still do ("parley subscribe plan" undoes it).\n');
    expect(await subscriptionOf('coder')).toBe('unsubscribed');
    expect((await cli('say', 'plan', 'after you left', '--as', 'human')).status).toBe(0);
    expect(await inboxItem('after you left')).toBeUndefined();

    const back = await cli('subscribe', 'plan', '--as', 'coder', '--json');
    expect(back.status).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ name: 'plan', kind: 'channel' });
    expect((await cli('subscribe', '#plan', '--as', 'coder')).stdout).toBe('subscribed to #plan: its messages reach your inbox.\n');
    expect(await subscriptionOf('coder')).not.toMatch(/muted|unsubscribed/);
    expect((await cli('say', 'plan', 'welcome back', '--as', 'human')).status).toBe(0);
    expect(await inboxItem('welcome back')).toMatchObject({ priority: 'normal' });
  });

  it('quiet - a missing or unknown thread is refused saying what to do; mute’s help points to quiet', async () => {
    const missing = await cli('quiet', '--as', 'coder');
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('usage: parley quiet THREAD');
    const unknown = await cli('quiet', 'nowhere', '--as', 'coder');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/nowhere/);

    const help = await cli('mute', '--help');
    expect(help.stdout).toContain('Hard-mute other participants');
    expect(help.stdout).toContain('parley quiet THREAD');
    const list = (await cli('--help')).stdout;
    for (const name of ['subscribe THREAD', 'unsubscribe THREAD', 'quiet THREAD']) expect(list).toMatch(new RegExp(`^  ${name}`, 'm'));
  });
});
