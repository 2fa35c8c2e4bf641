import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { childEnv, cliAt, joinOver, restCall, startServe, stopHubs, track } from '../helpers/serve.js';

/**
 * The examples in examples/ run as a user runs them: built (npm test builds
 * first), as their own node process, against a `parley serve` on a temporary
 * home, finding the hub and their token the way the CLI does. The README's
 * code is these files' code (test/docs/readme.test.ts checks it).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const example = (name: string): string => path.join(ROOT, 'dist/examples', `${name}.js`);

let cleanup: (() => void) | undefined;
// The hub is stopped before its home is removed: a running hub may still be
// writing there (its search indexer starts a few seconds after it opens).
afterEach(async () => {
  await stopHubs();
  cleanup?.();
  cleanup = undefined;
});

function runExample(name: string, env: NodeJS.ProcessEnv): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, [example(name)], { env, encoding: 'utf8', timeout: 30_000 });
}

describe('examples', () => {
  it('examples - ai-sdk-agent: the model is given the DM sent to coder-1 as the last message, and the DM shows injected to its sender', async () => {
    const temp = tempHome();
    cleanup = temp.cleanup;
    const hub = await startServe(temp.home);
    const cli = cliAt(temp.home, hub.url);
    expect(cli('join', 'human', '--kind', 'human').status).toBe(0);
    expect(cli('join', 'coder-1').status).toBe(0);
    expect(cli('dm', 'coder-1', 'the cache needs a TTL', '--as', 'human').status).toBe(0);

    // As the README runs it: PARLEY_HOME only; the hub's address and coder-1's token come from the home.
    const first = runExample('ai-sdk-agent', childEnv(temp.home));
    expect([first.status, first.stdout.trim()]).toEqual([0, 'Read 1 new chat message(s), the last from @human; carrying on with the cache layer.']);
    expect(first.stderr).toMatch(/^parley: injected 1 chat message into the model call for @coder-1 \(new cursor: \d+\)\n$/);

    const humanToken = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
    const sent = await restCall(hub, humanToken, 'GET', '/deliveries/sent');
    expect(sent.json.deliveries.map((d: { to: string; state: string }) => [d.to, d.state])).toEqual([['coder-1', 'injected']]);

    // Given once: the next run has nothing new.
    const second = runExample('ai-sdk-agent', childEnv(temp.home));
    expect([second.status, second.stdout.trim(), second.stderr]).toEqual([0, 'No new chat; carrying on with the cache layer.', '']);
  });

  it('examples - plain-llm-call: withParley puts the DM last in the request and takes it once the call returned', async () => {
    const temp = tempHome();
    cleanup = temp.cleanup;
    const hub = await startServe(temp.home);
    const cli = cliAt(temp.home, hub.url);
    expect(cli('join', 'human', '--kind', 'human').status).toBe(0);
    expect(cli('join', 'coder-2').status).toBe(0);
    expect(cli('dm', 'coder-2', 'can you look at the flaky test?', '--as', 'human').status).toBe(0);
    expect(cli('say', 'general', 'standup at ten', '--as', 'human').status).toBe(0);

    const first = runExample('plain-llm-call', childEnv(temp.home));
    expect([first.status, first.stdout.trim()]).toEqual([0, 'Read 2 new chat message(s), the last from @human.']);
    expect(first.stderr).toMatch(/^parley: injected 2 chat messages into the model call for @coder-2 \(new cursor: \d+\)\n$/);
    const second = runExample('plain-llm-call', childEnv(temp.home));
    expect([second.status, second.stdout.trim(), second.stderr]).toEqual([0, 'No new chat.', '']);
  });

  it('examples - request-answering-agent sleeps on its inbox until a request comes, answers it as reviewer-1, then stops at its budget of one turn', async () => {
    const temp = tempHome();
    cleanup = temp.cleanup;
    const hub = await startServe(temp.home);
    const cli = cliAt(temp.home, hub.url);
    expect(cli('join', 'reviewer-1').status).toBe(0);
    const humanToken = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });

    const agent = track(spawn(process.execPath, [example('request-answering-agent')], { env: childEnv(temp.home), stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    agent.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    agent.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => agent.once('exit', resolve));

    // It is listening (waiting on the hub, spending nothing) before anything is sent: the request wakes it.
    const deadline = Date.now() + 20_000;
    const presenceOf = async (): Promise<string | undefined> =>
      ((await restCall(hub, humanToken, 'GET', '/presence')).json.presence as Array<{ handle: string; state: string }>).find((p) => p.handle === 'reviewer-1')?.state;
    while ((await presenceOf()) !== 'listening') {
      if (Date.now() > deadline) throw new Error(`reviewer-1 never listened: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sent = await restCall(hub, humanToken, 'POST', '/requests', { to: 'reviewer-1', intent: 'review', params: { pr: 42 } });
    expect(sent.status).toBe(201);

    expect(await exited).toBe(0);
    expect(stdout.trim()).toBe('turns: Turn budget spent: 1 of 1 turns taken.');
    const inbox = await restCall(hub, humanToken, 'GET', '/inbox');
    const response = (inbox.json.items as Array<{ event: { type: string; author: string; content: Record<string, unknown> } }>).find((i) => i.event.type === 'response');
    expect(response?.event.author).toBe('reviewer-1');
    expect(response?.event.content).toMatchObject({ request_id: sent.json.request_id, status: 'Completed', result: { approved: true, notes: 'Looks good to me.' } });
    // Gone from the hub once stopped.
    expect(await presenceOf()).toBe('offline');
  });

  it('examples - request-answering-agent outside the roster in force ends at once with reason "error" and the hub\'s refusal, exit 0', async () => {
    const temp = tempHome();
    cleanup = temp.cleanup;
    const hub = await startServe(temp.home);
    const cli = cliAt(temp.home, hub.url);
    expect(cli('join', 'human', '--kind', 'human').status).toBe(0);
    expect(cli('roster', 'init', '--org', 'acme').status).toBe(0);
    const joined = cli('join', 'reviewer-1');
    expect([joined.status, joined.stderr]).toEqual([0, expect.stringContaining('parley: warning: @reviewer-1 is not in roster acme v1')]);

    const run = runExample('request-answering-agent', childEnv(temp.home));
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toMatch(/^error: Could not link @reviewer-1 to the hub: Your key \(@reviewer-1, ed25519:[\w-]+\) is not in roster acme v1; nothing was done\./);
    expect(run.stderr).not.toContain('ParleyError');
  });

  it('examples - ai-sdk-agent joins coder-1 on first use when the home has a running hub and no token for it', async () => {
    const temp = tempHome();
    cleanup = temp.cleanup;
    await startServe(temp.home);
    const run = runExample('ai-sdk-agent', childEnv(temp.home));
    expect([run.status, run.stdout.trim(), run.stderr]).toEqual([0, 'No new chat; carrying on with the cache layer.', '']);
    const kept = JSON.parse(fs.readFileSync(path.join(temp.home, 'credentials.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(kept)).toContain('default/coder-1');
  });
});
