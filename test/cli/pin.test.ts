import { describe, expect, it } from 'vitest';
import { servedCli } from './served-cli.js';

/**
 * The pin control on a running hub, through the CLI (`parley pin|unpin`) and
 * REST (the thread's controls route): it shows in the thread's view, and bad
 * input is refused naming the field, with nothing stored.
 */
const served = servedCli({ join: [['human', 'human']] });
const cli = served.cli;
const rest = (route: string, body?: unknown) => served.rest('human', body === undefined ? 'GET' : 'POST', route, body);

const controls = async (): Promise<Record<string, unknown>> => (await rest('/threads/general')).json.controls as Record<string, unknown>;

describe('pin', () => {
  it('pin - parley pin and unpin set the thread’s pin, shown in its view', async () => {
    const pinned = await cli('pin', 'general', '--as', 'human');
    expect(pinned.stdout).toMatch(/^pinned the thread: seq \d+/);
    expect(await controls()).toMatchObject({ pinned: true, pinnedBy: 'human' });
    const unpinned = await cli('unpin', 'general', '--as', 'human');
    expect(unpinned.stdout).toMatch(/^unpinned the thread: seq \d+/);
    expect((await controls()).pinned).toBe(false);
    // The history says what happened in words, as for every other control.
    const history = await cli('history', 'general', '--as', 'human');
    expect(history.stdout).toMatch(/@human pinned the thread\n.*@human unpinned the thread\n/);
  });

  it('pin - bad input names the field (REST) or the missing argument (CLI), and stores nothing', async () => {
    const before = (await controls()).pinned;
    const answer = await rest('/threads/general/controls', { pin: { on: 'yes' } });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'INVALID_INPUT', field: 'control.pin.on' });
    const missing = await cli('pin', '--as', 'human');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('parley pin THREAD');
    expect((await controls()).pinned).toBe(before);
  });
});
