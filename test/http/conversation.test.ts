import { describe, expect, it } from 'vitest';
import { APP_BASE, appOf, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

type Json = Record<string, unknown> & { error?: { code: string } };

describe('http conversation', () => {
  it('http - three participants hold the whole conversation through the REST API', async () => {
    const t = await hubs.open();
    for (const [handle, kind] of [['human', 'human'], ['coder', 'agent'], ['reviewer', 'agent']] as const) {
      await t.hub.join({ handle, session: 'proj', profile: { kind } });
    }
    const tokens = {
      human: await t.hub.issueToken('human', 'proj'),
      coder: await t.hub.issueToken('coder', 'proj'),
      reviewer: await t.hub.issueToken('reviewer', 'proj'),
    };
    const app = appOf(t);
    const as = (who: keyof typeof tokens) => async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
      const res = await app.request(`${APP_BASE}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${tokens[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Json };
    };
    const [human, coder, reviewer] = [as('human'), as('coder'), as('reviewer')];

    expect((await human('POST', '/threads', { name: 'design', members: ['coder', 'reviewer'] })).status).toBe(201);
    const kickoff = await human('POST', '/threads/design/messages', { text: '@coder drafts, @reviewer checks' });
    expect(kickoff.status).toBe(201);
    const inbox = await coder('GET', '/inbox');
    expect((inbox.json.items as Array<{ reason: string }>).map((i) => i.reason)).toContain('mention');

    const dm = await coder('POST', '/dm', { to: 'reviewer', text: 'look at cache.ts' });
    expect(dm.status).toBe(201);
    const req = await coder('POST', '/requests', { to: 'reviewer', intent: 'review', params: { file: 'cache.ts' } });
    expect(req.json.hop).toBe(0);
    expect(((await reviewer('GET', '/requests/open')).json.incoming as unknown[]).length).toBe(1);
    expect((await reviewer('POST', `/requests/${String(req.json.request_id)}/responses`, { status: 'Completed', result: { ok: true } })).status).toBe(201);
    expect(((await coder('GET', '/requests/open')).json.outgoing as unknown[]).length).toBe(0);

    await human('POST', '/meetings/standup/join');
    expect((await coder('POST', '/meetings/standup/say', { text: 'draft done' })).status).toBe(201);
    const heard = await human('GET', '/meetings/standup/hear?last_heard=0');
    expect(heard.json).toMatchObject({ messages: [{ speaker: 'coder', content: 'draft done' }], messages_lost: false });

    await human('POST', '/threads/design/controls', { mute: { targets: ['reviewer'] } });
    const muted = await reviewer('POST', '/threads/design/messages', { text: 'wait' });
    expect([muted.status, muted.json.error?.code]).toEqual([403, 'PARTICIPANT_MUTED']);
    await human('POST', '/threads/design/controls', { unmute: { targets: ['reviewer'] } });
    await human('POST', '/threads/design/controls', { pause: { on: true } });
    const paused = await coder('POST', '/threads/design/messages', { text: 'hello?' });
    expect([paused.status, paused.json.error?.code]).toEqual([423, 'THREAD_PAUSED']);
    await human('POST', '/threads/design/controls', { pause: { on: false } });

    const side = await coder('POST', '/threads/design/side', { title: 'eviction', from_event: kickoff.json.id });
    expect(side.status).toBe(201);
    const closed = await coder('POST', `/threads/${String(side.json.id)}/close`, { summary: 'LRU with a cap' });
    const history = await human('GET', '/threads/design/history');
    const summary = (history.json.events as Array<{ id: string; content: unknown; meta?: { link?: string } }>).find((e) => e.id === closed.json.summary_event);
    expect(summary?.meta?.link).toBe(side.json.id);
    expect(String(summary?.content)).toContain('LRU with a cap');

    const found = await human('GET', '/search?q=drafts');
    expect((found.json.events as Array<{ id: string }>).map((e) => e.id)).toEqual([kickoff.json.id]);
    const who = await human('GET', '/presence');
    expect((who.json.presence as Array<{ handle: string }>).map((p) => p.handle).sort()).toEqual(['coder', 'human', 'reviewer']);
  });
});
