import { describe, expect, it } from 'vitest';
import { APP_BASE, appOf, caught, testHubsClosedAfterEach } from '../helpers/hub.js';
import { connectInMemory } from '../helpers/mcp.js';

/**
 * A request is named by its id or by an unambiguous start or end of it (the
 * CLI shows a ULID's last six characters), wherever a request id is taken:
 * the hub API, REST's respond route, MCP's request_respond, and reply_to.
 */
const hubs = testHubsClosedAfterEach();

async function setup() {
  const t = await hubs.open();
  const [human, coder, carol, dave] = await Promise.all(
    ['human', 'coder', 'carol', 'dave'].map((handle) => t.hub.join({ handle, session: 'proj', ...(handle === 'human' ? { profile: { kind: 'human' as const } } : {}) })),
  );
  return { t, human: human!, coder: coder!, carol: carol!, dave: dave! };
}

describe('request ids, abbreviated', () => {
  it('request ref - the end of a ULID (any case) or the start of a chosen id answers the request; reply_to takes one too', async () => {
    const { human, coder } = await setup();
    const sent = await coder.request({ to: 'human', intent: 'approve-deploy' });
    const answered = await human.respond({ request_id: sent.request_id.slice(-6).toLowerCase(), status: 'Accepted' });
    expect(answered.request_id).toBe(sent.request_id);
    expect((await coder.openRequests()).outgoing).toEqual([expect.objectContaining({ request_id: sent.request_id, status: 'Accepted' })]);

    const chosen = await coder.request({ to: 'human', intent: 'review', request_id: 'review-cache-layer' });
    expect((await human.respond({ request_id: 'review-cache', status: 'Completed' })).request_id).toBe(chosen.request_id);

    // A follow-up names the request it serves by its short id; the hub records the whole id and counts the hop.
    const followUp = await human.request({ to: 'coder', intent: 'clarify', reply_to: sent.request_id.slice(-6) });
    expect(followUp.hop).toBe(1);
    const followed = (await coder.history({ thread: followUp.thread })).events.find((e) => e.seq === followUp.seq);
    expect(followed?.content).toMatchObject({ reply_to: sent.request_id });
  });

  it('request ref - an ambiguous abbreviation is INVALID_INPUT naming the field and the matches, and nothing is stored', async () => {
    const { human, coder } = await setup();
    const { thread } = await coder.request({ to: 'human', intent: 'first', request_id: 'deploy-step-1' });
    await coder.request({ to: 'human', intent: 'second', request_id: 'deploy-step-2' });
    const before = (await human.history({ thread })).events.length;
    const error = await caught(() => human.respond({ request_id: 'deploy-step', status: 'Completed' }));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', field: 'request_id' });
    expect(error.message).toContain('"deploy-step" matches 2 requests: deploy-step-1 (first), deploy-step-2 (second)');
    expect(error.message).toContain('Give more of the id');
    expect((await human.openRequests()).incoming.map((r) => r.status)).toEqual(['open', 'open']);
    expect((await human.history({ thread })).events.length).toBe(before);

    const followUp = await caught(() => human.request({ to: 'coder', intent: 'which?', reply_to: 'deploy-step' }));
    expect(followUp).toMatchObject({ code: 'INVALID_INPUT', field: 'reply_to' });
    // Too short to be an abbreviation: not found, like an unknown id.
    expect(await caught(() => human.respond({ request_id: 'dep', status: 'Completed' }))).toMatchObject({ code: 'NOT_FOUND', field: 'request_id' });
  });

  it('request ref - only requests the caller can see count: another DM\'s request neither matches nor makes a match ambiguous', async () => {
    const { human, coder, carol, dave } = await setup();
    await coder.request({ to: 'human', intent: 'private', request_id: 'shared-name-1' });
    const visible = await dave.request({ to: 'carol', intent: 'mine', request_id: 'shared-name-2' });
    expect((await carol.respond({ request_id: 'shared-name', status: 'Completed' })).request_id).toBe(visible.request_id);
    expect(await caught(() => carol.respond({ request_id: 'shared-name-1', status: 'Completed' }))).toMatchObject({ code: 'NOT_FOUND' });
    expect((await human.openRequests()).incoming.map((r) => r.status)).toEqual(['open']);
  });

  it('request ref - REST respond and MCP request_respond take the short id and answer with the whole one', async () => {
    const { t, coder } = await setup();
    const app = appOf(t);
    const token = await t.hub.issueToken('human', 'proj');
    const first = await coder.request({ to: 'human', intent: 'one' });
    const res = await app.request(`${APP_BASE}/api/v1/requests/${first.request_id.slice(-6)}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'Completed' }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ request_id: first.request_id, status: 'Completed' });

    const second = await coder.request({ to: 'human', intent: 'two' });
    const human = await connectInMemory(t.hub, 'human', 'proj', 'all');
    hubs.defer(() => human.close());
    const answered = await human.call('request_respond', { request_id: second.request_id.slice(-6), status: 'Rejected' });
    expect(answered.value).toMatchObject({ request_id: second.request_id, status: 'Rejected' });
    expect((await coder.openRequests()).outgoing).toEqual([]);
  });
});
