import { beforeAll, describe, expect, it } from 'vitest';
import { joinOver, restCall, type Json } from '../helpers/serve.js';
import { servedHubForFile } from '../helpers/served-hub.js';

/**
 * POST /api/v1/agent/hook, the route `parley hook` calls, against a real hub
 * whose config makes every agent stay available ("*", 30 s) and lets one stop
 * in a row be blocked: bad input is refused naming the field and changes
 * nothing; a stop hook already active counts toward the cap; a stop wait ends
 * when the hook goes away, taking nothing; a long backlog is cut to the
 * client's 10,000-character cap, saying how many more items wait.
 */
const served = servedHubForFile({
  config: {
    agents: { stayAvailable: ['*'], stayAvailableSeconds: 30, maxStopContinuations: 1 },
    chat: { limits: { writeBurst: 1000, writesPerMinute: 100_000 } },
  },
});
const tokens: Record<string, string> = {};

beforeAll(async () => {
  tokens.human = await joinOver(served.hub, { handle: 'human', profile: { kind: 'human' } });
  for (const handle of ['agent', 'leaver', 'busy', 'coordinated']) tokens[handle] = await joinOver(served.hub, { handle });
});

const call = (who: string, method: string, route: string, body?: unknown) => restCall(served.hub, tokens[who]!, method, route, body);

async function presenceOf(handle: string): Promise<Json | undefined> {
  return (await call('human', 'GET', '/presence')).json.presence.find((p: Json) => p.handle === handle);
}

async function pendingIds(): Promise<string[]> {
  return ((await call('human', 'GET', '/deliveries/sent?state=pending')).json.deliveries as Json[]).map((d) => d.id as string);
}

describe('POST /api/v1/agent/hook', () => {
  it('agent hook - bad input is INVALID_INPUT naming the field, and takes nothing nor shows the agent thinking', async () => {
    const dm = (await call('human', 'POST', '/dm', { to: 'agent', text: 'still here?' })).json;
    for (const [body, field] of [
      [{ event: 'nap' }, 'event'],
      [{}, 'event'],
      [{ event: 'stop', loop_count: -1 }, 'loop_count'],
      [{ event: 'stop', loop_count: 1.5 }, 'loop_count'],
      [{ event: 'stop', stop_hook_active: 'yes' }, 'stop_hook_active'],
      [{ event: 'tool', session: 'x'.repeat(257) }, 'session'],
      [{ event: 'tool', session: 42 }, 'session'],
      [{ event: 'stop', wait: 'no' }, 'wait'],
    ] as const) {
      const res = await call('agent', 'POST', '/agent/hook', body);
      expect([JSON.stringify(body).slice(0, 40), res.status, res.json.error?.code, res.json.error?.field]).toEqual([JSON.stringify(body).slice(0, 40), 400, 'INVALID_INPUT', field]);
      expect(res.json.error.message).toContain(field);
    }
    const unknownField = await call('agent', 'POST', '/agent/hook', { event: 'tool', verbose: true });
    expect([unknownField.status, unknownField.json.error?.code]).toEqual([400, 'INVALID_INPUT']);
    expect(await pendingIds()).toContain(dm.id);
    expect(await presenceOf('agent')).toMatchObject({ state: 'offline' });

    // A good call takes it, once.
    const taken = await call('agent', 'POST', '/agent/hook', { event: 'tool' });
    expect(taken.json).toEqual({ injected: 1, text: expect.stringContaining('still here?') });
    expect((await call('agent', 'POST', '/agent/hook', { event: 'tool' })).json).toEqual({ injected: 0 });
  });

  it('agent hook - a stop hook already active counts as one continuation: with the cap at 1 it lets the stop through and takes nothing', async () => {
    const dm = (await call('human', 'POST', '/dm', { to: 'agent', text: 'before you go' })).json;
    const active = await call('agent', 'POST', '/agent/hook', { event: 'stop', session: 'fresh-1', stop_hook_active: true });
    expect(active.json).toEqual({ injected: 0 });
    expect(await pendingIds()).toContain(dm.id);
    // Cursor's loop_count counts the same way.
    expect((await call('agent', 'POST', '/agent/hook', { event: 'stop', session: 'fresh-2', loop_count: 1 })).json).toEqual({ injected: 0 });
    const first = await call('agent', 'POST', '/agent/hook', { event: 'stop', session: 'fresh-3', stop_hook_active: false });
    expect(first.json).toEqual({ injected: 1, block: true, text: expect.stringContaining('before you go') });
  });

  it('agent hook - a stop with wait false (a coordinator run\'s) is let through at once, though the agent stays available (30 s): nothing taken, the agent shown stopped', async () => {
    await call('coordinated', 'POST', '/agent/hook', { event: 'tool' });
    expect(await presenceOf('coordinated')).toMatchObject({ state: 'thinking' });
    const dm = (await call('human', 'POST', '/dm', { to: 'coordinated', text: 'for the coordinator' })).json;
    expect((await call('coordinated', 'POST', '/agent/hook', { event: 'stop', session: 'run-1', wait: false })).json).toEqual({ injected: 0 });
    expect(await pendingIds()).toContain(dm.id);
    expect(await presenceOf('coordinated')).toMatchObject({ state: 'offline', connection: 'offline' });
    // With nothing new, no wait either (the request would otherwise last the agent's 30 s).
    await call('coordinated', 'POST', '/agent/hook', { event: 'tool' });
    const started = Date.now();
    expect((await call('coordinated', 'POST', '/agent/hook', { event: 'stop', session: 'run-1', wait: false })).json).toEqual({ injected: 0 });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('agent hook - a stop wait ends when the hook goes away: the agent is no longer waiting and a later message stays pending', async () => {
    const gone = new AbortController();
    const stopping = fetch(`${served.hub.url}/api/v1/agent/hook`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.leaver}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'stop', session: 'l1' }),
      signal: gone.signal,
    }).catch((error: Error) => error.name);
    await expect.poll(() => presenceOf('leaver'), { timeout: 10_000, interval: 20 }).toMatchObject({ state: 'listening', connection: 'waiting' });
    gone.abort();
    expect(await stopping).toBe('AbortError');
    await expect.poll(async () => (await presenceOf('leaver'))?.connection, { timeout: 10_000, interval: 20 }).toBe('offline');
    const dm = (await call('human', 'POST', '/dm', { to: 'leaver', text: 'too late' })).json;
    expect(await pendingIds()).toContain(dm.id);
  });

  it('agent hook - a backlog longer than the cap: 20 items in at most 10,000 characters, each long one cut saying where it is whole, and how many more wait', async () => {
    const long = 'x'.repeat(3000);
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push((await call('human', 'POST', '/dm', { to: 'busy', text: `item ${i} ${long}` })).json.id as string);
    const first = (await call('busy', 'POST', '/agent/hook', { event: 'prompt' })).json;
    expect(first.injected).toBe(20);
    expect(first.text.length).toBeLessThanOrEqual(10_000);
    expect(first.text.match(/\[cut; the whole item is seq \d+ in your DM with @human \(chat_history\)\]/g)).toHaveLength(20);
    expect(first.text).toContain('item 0 xxx');
    expect(first.text).toContain('item 19 xxx');
    expect(first.text).toMatch(/\n3 more items wait: read them with the inbox tool\.$/);
    const rest = (await call('busy', 'POST', '/agent/hook', { event: 'prompt' })).json;
    expect(rest.injected).toBe(3);
    expect(rest.text).not.toContain('more items wait');
    const sent = (await call('human', 'GET', '/deliveries/sent?limit=500')).json.deliveries as Json[];
    expect(ids.map((id) => sent.find((d) => d.id === id)?.state)).toEqual(ids.map(() => 'injected'));
  });
});
