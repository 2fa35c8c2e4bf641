import { describe, expect, it } from 'vitest';
import type { ControlInput } from '../../src/schema/control.js';
import { testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';
import { connectHttp, type McpTestClient } from '../helpers/mcp.js';
import { openStream } from '../helpers/sse.js';

const hubs = testHubsClosedAfterEach();

type Who = 'coder-1' | 'coder-2';

/** Each control a human gives in #plan, and which agents it concerns (who it mutes, prods, invites; everyone for pause and done). */
const STEPS: Array<{ label: string; control: ControlInput; concerns: Who[] }> = [
  { label: 'mute coder-1', control: { mute: { targets: ['coder-1'] } }, concerns: ['coder-1'] },
  { label: 'unmute coder-1', control: { unmute: { targets: ['coder-1'] } }, concerns: ['coder-1'] },
  { label: 'mute coder-2', control: { mute: { targets: ['coder-2'] } }, concerns: ['coder-2'] },
  { label: 'unmute coder-2', control: { unmute: { targets: ['coder-2'] } }, concerns: ['coder-2'] },
  { label: 'prod coder-2', control: { prod: ['coder-2'] }, concerns: ['coder-2'] },
  { label: 'invite planner', control: { invite: { participant_id: 'planner' } }, concerns: [] },
  { label: 'invite coder-1', control: { invite: { participant_id: 'coder-1' } }, concerns: ['coder-1'] },
  { label: 'pin', control: { pin: { on: true } }, concerns: [] },
  { label: 'unpin', control: { pin: { on: false } }, concerns: [] },
  { label: 'time limit', control: { ttl_seconds: 3600 }, concerns: [] },
  { label: 'discussion', control: { discussion: { on: true } }, concerns: [] },
  { label: 'invited_auto', control: { invited_auto: { on: true } }, concerns: [] },
  { label: 'pause', control: { pause: { on: true } }, concerns: ['coder-1', 'coder-2'] },
  { label: 'resume', control: { pause: { on: false } }, concerns: ['coder-1', 'coder-2'] },
  { label: 'done', control: { done: true }, concerns: ['coder-1', 'coder-2'] },
  { label: 'reopen', control: { done: false }, concerns: ['coder-1', 'coder-2'] },
];

/** An item as the MCP tools show it (the event's fields inline). */
interface Item {
  id: string;
  priority: string;
  reason: string;
}

/** An item as the REST inbox returns it. */
interface RestItem {
  priority: string;
  reason: string;
  event: { id: string };
}

interface Setup {
  t: TestHub;
  url: string;
  tokens: Record<Who | 'lead', string>;
  rest: (who: Who | 'lead', method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;
  /** coder-1's MCP client over HTTP, closed after the test. */
  mcpOfCoder1: () => Promise<McpTestClient>;
}

async function setup(): Promise<Setup> {
  const t = await hubs.open();
  const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
  await t.hub.join({ handle: 'lead', session: 's', profile: { kind: 'human' } });
  await t.hub.join({ handle: 'coder-1', session: 's' });
  await t.hub.join({ handle: 'coder-2', session: 's' });
  await human.createChannel({ name: 'plan', members: ['lead', 'coder-1', 'coder-2'] });
  const { url } = await hubs.serve(t);
  const tokens = { 'coder-1': await t.hub.issueToken('coder-1', 's'), 'coder-2': await t.hub.issueToken('coder-2', 's'), lead: await t.hub.issueToken('lead', 's') };
  const rest = async (who: Who | 'lead', method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(json)).toBe(200);
    return json;
  };
  // What the channel's creation put in each inbox is taken first: each step starts from an empty inbox.
  for (const who of ['coder-1', 'coder-2', 'lead'] as const) await rest(who, 'GET', '/inbox');
  const mcpOfCoder1 = async (): Promise<McpTestClient> => {
    const mcp = await connectHttp(url, tokens['coder-1']);
    hubs.defer(() => mcp.close());
    return mcp;
  };
  return { t, url, tokens, rest, mcpOfCoder1 };
}

describe('control reach', () => {
  it('control reach - an agent’s inbox and wake-ups hold exactly the controls that concern it, on every entry point', async () => {
    const { t, url, tokens, rest, mcpOfCoder1 } = await setup();
    const human = t.hub.actor('human', 's');
    const mcp = await mcpOfCoder1();
    const stream = await openStream(`${url}/api/v1/stream?inbox=true&events_only=true`, tokens['coder-2']);
    const ids = new Map<string, string>();

    for (const step of STEPS) {
      const { id } = await human.control('plan', step.control);
      ids.set(step.label, id);
      const expected = (who: Who): string[] => (step.concerns.includes(who) ? [id] : []);

      // coder-1: the REST inbox (peek), then an MCP wait that returns at once only if something wakes it.
      const peeked = (await rest('coder-1', 'GET', '/inbox?peek=true')).items as RestItem[];
      expect(peeked.map((i) => i.event.id), `REST inbox of coder-1 after ${step.label}`).toEqual(expected('coder-1'));
      const waited = await mcp.call('wait', { timeout_ms: 0 });
      expect((waited.value.items as Item[]).map((i) => i.id), `MCP wait of coder-1 after ${step.label}`).toEqual(expected('coder-1'));
      expect(waited.value.timedOut, `MCP wait of coder-1 after ${step.label}`).toBe(!step.concerns.includes('coder-1'));

      // coder-2: a hook run puts into its context exactly the controls that concern it.
      const hook = (await rest('coder-2', 'POST', '/agent/hook', { event: 'tool' })) as { injected: number; text?: string };
      expect(hook.injected, `hook of coder-2 after ${step.label}`).toBe(expected('coder-2').length);
    }

    // coder-2's live inbox stream pushed the same ones, in order, up to a DM sent to mark the end.
    const end = await human.dm({ to: 'coder-2', text: 'that is all' });
    const pushed: string[] = [];
    for (;;) {
      const frame = await stream.next();
      const event = JSON.parse(frame.data) as { id: string };
      if (event.id === end.id) break;
      pushed.push(event.id);
    }
    stream.drop();
    expect(pushed).toEqual(STEPS.filter((s) => s.concerns.includes('coder-2')).map((s) => ids.get(s.label)));

    // A human member's inbox follows the same rule: only what changes the whole thread.
    const lead = (await rest('lead', 'GET', '/inbox')).items as RestItem[];
    expect(lead.map((i) => i.event.id).sort()).toEqual(['pause', 'resume', 'done', 'reopen'].map((l) => ids.get(l)).sort());
  });

  it('control reach - a waiting agent is not woken by a pin, an unpin or another’s mute; its prod wakes it, alone', async () => {
    const { t, mcpOfCoder1 } = await setup();
    const human = t.hub.actor('human', 's');
    const mcp = await mcpOfCoder1();
    const waiting = mcp.call('wait', { timeout_ms: 20_000 });
    await human.pin('plan');
    await human.pin('plan', false);
    await human.hardMute('plan', ['coder-2']);
    await human.prod('plan', ['coder-2']);
    const prod = await human.prod('plan', ['coder-1']);
    const woke = await waiting;
    expect(woke.value.timedOut).toBe(false);
    expect((woke.value.items as Item[]).map((i) => [i.id, i.priority, i.reason])).toEqual([[prod.id, 'high', 'prod']]);
  });
});
