import { describe, expect, it } from 'vitest';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

async function pair(config = {}) {
  const t = await hubs.open({ config });
  const a = await t.hub.join({ handle: 'agent-a', session: 's' });
  const b = await t.hub.join({ handle: 'agent-b', session: 's' });
  return { t, a, b, events: () => t.hub.stats().events };
}

describe('requests', () => {
  it('requests - a request carries intent, params and hop 0, and lands as High for its addressee', async () => {
    const { a, b } = await pair();
    const sent = await a.request({ to: 'agent-b', intent: 'fix-bug', params: { file: 'src/lib.ts', line: 42 } });
    expect(sent.hop).toBe(0);
    const item = (await b.inbox()).items.find((i) => i.reason === 'request');
    expect(item?.event.content).toEqual({ request_id: sent.request_id, intent: 'fix-bug', params: { file: 'src/lib.ts', line: 42 }, hop: 0 });
    expect(item?.respondHint).toBe(true);
  });

  it('requests - params with a "__proto__" key (as JSON.parse of any client body keeps it) are refused naming the field; nothing is stored or left unsigned', async () => {
    const { t, a, b, events } = await pair();
    const before = events();
    const params = JSON.parse('{"file":"src/lib.ts","__proto__":{"approved":true}}') as Record<string, unknown>;
    const refused = await caught(() => a.request({ to: 'agent-b', intent: 'deploy', params }));
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', field: 'params' });
    expect(refused.message).toContain('"__proto__"');
    expect(events()).toBe(before);
    expect((await b.inbox()).items.filter((i) => i.reason === 'request')).toEqual([]);
    expect(t.logger.records.filter((r) => r.level === 'error')).toEqual([]);
  });

  it('requests - follow-ups count hops and a hop above maxHop is refused with HOP_LIMIT, storing nothing', async () => {
    const { a, b, events } = await pair();
    const r0 = await a.request({ to: 'agent-b', intent: 'step' });
    const r1 = await b.request({ to: 'agent-a', intent: 'step', reply_to: r0.request_id });
    const r2 = await a.request({ to: 'agent-b', intent: 'step', reply_to: r1.request_id });
    const r3 = await b.request({ to: 'agent-a', intent: 'step', reply_to: r2.request_id });
    expect([r0.hop, r1.hop, r2.hop, r3.hop]).toEqual([0, 1, 2, 3]);
    const before = events();
    const error = await caught(() => a.request({ to: 'agent-b', intent: 'step', reply_to: r3.request_id }));
    expect(error.code).toBe('HOP_LIMIT');
    expect(error.message).toContain('hop 4');
    expect(events()).toBe(before);
  });

  it('requests - maxHop comes from config', async () => {
    const { a, b } = await pair({ requests: { maxHop: 1 } });
    const r0 = await a.request({ to: 'agent-b', intent: 'x' });
    const r1 = await b.request({ to: 'agent-a', intent: 'x', reply_to: r0.request_id });
    expect((await caught(() => a.request({ to: 'agent-b', intent: 'x', reply_to: r1.request_id }))).code).toBe('HOP_LIMIT');
  });

  it('requests - responses: Accepted keeps it open; Completed, Failed and Rejected close it', async () => {
    const { a, b } = await pair();
    const ids = [];
    for (const status of ['Completed', 'Failed', 'Rejected'] as const) {
      const r = await a.request({ to: 'agent-b', intent: `do-${status}` });
      ids.push(r.request_id);
      await b.respond({ request_id: r.request_id, status: 'Accepted' });
      expect((await a.openRequests()).outgoing.find((o) => o.request_id === r.request_id)?.status).toBe('Accepted');
      await b.respond({ request_id: r.request_id, status, result: { note: status } });
      expect((await a.openRequests()).outgoing.map((o) => o.request_id)).not.toContain(r.request_id);
      expect((await caught(() => b.respond({ request_id: r.request_id, status: 'Completed' }))).code).toBe('REQUEST_CLOSED');
    }
    const responses = (await a.inbox({ limit: 100 })).items.filter((i) => i.reason === 'response');
    expect(responses).toHaveLength(6);
    expect(ids).toHaveLength(3);
  });

  it('requests - the open view shows both directions', async () => {
    const { a, b } = await pair();
    const toB = await a.request({ to: 'agent-b', intent: 'review' });
    const toA = await b.request({ to: 'agent-a', intent: 'deploy' });
    const view = await a.openRequests();
    expect(view.incoming.map((r) => [r.request_id, r.from, r.intent])).toEqual([[toA.request_id, 'agent-b', 'deploy']]);
    expect(view.outgoing.map((r) => [r.request_id, r.to, r.intent, r.status])).toEqual([[toB.request_id, 'agent-b', 'review', 'open']]);
  });

  it('requests - the open view says what is asked: the text and params, not only the intent', async () => {
    const { a, b } = await pair();
    const asked = await a.request({ to: 'agent-b', intent: 'approve', text: 'It drops the `sessions` table.', params: { table: 'sessions', rows: 12 } });
    const bare = await a.request({ to: 'agent-b', intent: 'ping' });
    const incoming = (await b.openRequests()).incoming;
    expect(incoming.find((r) => r.request_id === asked.request_id)).toMatchObject({ text: 'It drops the `sessions` table.', params: { table: 'sessions', rows: 12 } });
    const plain = incoming.find((r) => r.request_id === bare.request_id);
    expect(plain?.params).toEqual({});
    expect(plain && 'text' in plain).toBe(false);
    // The asker sees the same in what it waits for.
    expect((await a.openRequests()).outgoing.find((r) => r.request_id === asked.request_id)?.text).toBe('It drops the `sessions` table.');
  });

  it('requests - only the addressee may respond', async () => {
    const { t, a } = await pair();
    const c = await t.hub.join({ handle: 'agent-c', session: 's' });
    const r = await a.request({ to: 'agent-b', intent: 'x' });
    // In the DM of a and b, the request does not exist for c; in a channel c sees it but may not answer.
    expect((await caught(() => c.respond({ request_id: r.request_id, status: 'Completed' }))).code).toBe('NOT_FOUND');
    const open = await a.request({ to: 'agent-b', intent: 'y', thread: 'general' });
    expect((await caught(() => c.respond({ request_id: open.request_id, status: 'Completed' }))).code).toBe('FORBIDDEN');
    expect((await caught(() => a.respond({ request_id: r.request_id, status: 'Completed' }))).code).toBe('FORBIDDEN');
  });

  it('requests - a request can be posted into a channel and its response lands in the same thread', async () => {
    const { a, b } = await pair();
    const r = await a.request({ to: 'agent-b', intent: 'review', thread: 'general', text: 'please check the plan' });
    const resp = await b.respond({ request_id: r.request_id, status: 'Completed', text: 'done' });
    expect(resp.thread).toBe(r.thread);
    const log = await a.history({ thread: 'general' });
    expect(log.events.filter((e) => e.type === 'request' || e.type === 'response').map((e) => e.type)).toEqual(['request', 'response']);
  });

  it("requests - one in a channel whose access policy does not let the addressee read it is refused, naming the channel, its policy and what to do; nothing is stored and no one has it open", async () => {
    const { t, a, b, events } = await pair();
    const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    await human.createChannel({ name: 'secret' });
    await human.control('secret', { access: { readers: ['@agent-a', 'admin'], writers: ['@agent-a'] } });
    const before = events();
    const refused = await caught(() => a.request({ to: 'agent-b', intent: 'review', text: 'the plan', thread: 'secret' }));
    expect(refused).toMatchObject({ code: 'INVALID_INPUT', field: 'to' });
    expect(refused.message).toContain('@agent-b cannot read channel "secret", whose access policy (v1) does not list them among its readers');
    expect(refused.message).toContain('Send it in a direct message (leave out the thread), or ask its admins (@human) to add @agent-b as a reader: parley channel policy secret --readers');
    expect(events()).toBe(before);
    expect(await b.openRequests()).toEqual({ incoming: [], outgoing: [] });
    expect(await a.openRequests()).toEqual({ incoming: [], outgoing: [] });
    // A reader of the channel is asked there as before.
    const asked = await a.request({ to: 'human', intent: 'review', thread: 'secret' });
    expect((await human.openRequests()).incoming.map((r) => r.request_id)).toEqual([asked.request_id]);
  });
});
