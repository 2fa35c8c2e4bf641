import { describe, expect, it } from 'vitest';
import { testHubsClosedAfterEach } from '../helpers/hub.js';
import { linkedTeam, type TeamHub } from '../helpers/peer-hubs.js';
import type { ThreadRecord } from '../../src/hub/records.js';

/**
 * Every control kind set by an admin on one hub holds on the linked hubs for
 * their own participants: a prod or an invitation reaches its target's inbox
 * on the target's hub, a TTL ends the thread at the same moment everywhere,
 * the discussion mode and auto-invitation follow, and a channel's access
 * policy travels to every hub and decides which hubs receive the channel.
 */
const hubs = testHubsClosedAfterEach();

/** The hub's channel of that name in the default session, as its state holds it. */
function channelOf(hub: TeamHub, name: string): ThreadRecord | undefined {
  return [...hub.t.hub.internals.ctx.state.threads.values()].find((t) => t.kind === 'channel' && t.name === name);
}

/** How many messages the hub stores in that channel. */
function messagesIn(hub: TeamHub, name: string): number {
  const thread = channelOf(hub, name);
  if (!thread) return 0;
  return (hub.t.hub.internals.store.db.prepare("SELECT COUNT(*) AS n FROM events WHERE thread_id = ? AND type = 'message'").get(thread.id) as { n: number }).n;
}

/** The reasons of what waits in a participant's inbox in `thread`. */
async function reasonsIn(hub: TeamHub, handle: string, thread: string): Promise<string[]> {
  const { items } = await hub.actors[handle]!.peek({ limit: 50 });
  return items.filter((item) => item.thread.name === thread).map((item) => item.reason);
}

describe('every control kind crosses linked hubs', () => {
  it('controls - a prod and an invitation set on A reach their targets hosted on B, in the inbox there', async () => {
    const [a, b] = await linkedTeam(hubs, [['human-ann', 'ann'], ['bea']]);
    const admin = a!.actors['human-ann']!;
    await admin.prod('general', ['bea']);
    await expect.poll(() => reasonsIn(b!, 'bea', 'general'), { timeout: 10_000 }).toContain('prod');

    await admin.createChannel({ name: 'plans' });
    await admin.post({ thread: 'plans', text: 'the plan, for whoever is invited' });
    await admin.invite('plans', 'bea', { nickname: 'plan reviewer', roles: ['reviewer'] });
    await expect.poll(() => reasonsIn(b!, 'bea', 'plans'), { timeout: 10_000 }).toContain('invite');
    const detail = await b!.actors.bea!.threadDetail('plans');
    expect(detail.members.find((m) => m.handle === 'bea')).toMatchObject({ invited: true, subscription: 'subscribed' });
  }, 60_000);

  it('controls - a TTL, the discussion mode, auto-invitation and a pin set on A show the same on B, the TTL ending at the same moment', async () => {
    const [a, b] = await linkedTeam(hubs, [['human-ann'], ['bea']]);
    const admin = a!.actors['human-ann']!;
    await admin.control('general', { ttl_seconds: 3600 });
    await admin.control('general', { discussion: { on: true, allow_agent_mentions: false } });
    await admin.control('general', { invited_auto: { on: true } });
    await admin.pin('general');
    const onA = (await admin.threadDetail('general')).controls;
    await expect.poll(async () => (await b!.actors.bea!.threadDetail('general')).controls.pinned, { timeout: 10_000 }).toBe(true);
    const onB = (await b!.actors.bea!.threadDetail('general')).controls;
    expect(onB).toMatchObject({ ttlSeconds: 3600, invitedAuto: true, invitedAutoBy: 'human-ann', pinnedBy: 'human-ann', discussion: { on: true, allowAgentMentions: false, by: 'human-ann' } });
    // From the ts its author signed, so within the time it took A to store it.
    expect(Math.abs(Date.parse(onB.expiresAt!) - Date.parse(onA.expiresAt!))).toBeLessThan(1000);

    await admin.control('general', { ttl_seconds: null });
    await expect.poll(async () => (await b!.actors.bea!.threadDetail('general')).controls.ttlSeconds, { timeout: 10_000 }).toBeUndefined();
  }, 60_000);

  it('controls - an access policy set on A reaches B and C; the channel then crosses only to the hub whose participant may read it', async () => {
    const [a, b, c] = await linkedTeam(hubs, [['human-ann', 'ann'], ['bea'], ['cal']]);
    const admin = a!.actors['human-ann']!;
    await admin.createChannel({ name: 'ops' });
    await admin.control('ops', { access: { readers: ['@human-ann', '@ann', '@cal'] } });
    const policyOn = async (hub: TeamHub, handle: string): Promise<number | undefined> => {
      const detail = await hub.actors[handle]!.threadDetail('ops').catch(() => undefined);
      return detail?.access?.policy.version;
    };
    // bea cannot read #ops, so she is shown nothing of it; her hub holds the policy all the same.
    await expect.poll(() => policyOn(c!, 'cal'), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => channelOf(b!, 'ops')?.state.access?.policy.version, { timeout: 10_000 }).toBe(1);

    await a!.actors.ann!.post({ thread: 'ops', text: 'for the readers only' });
    await a!.actors.ann!.post({ thread: 'general', text: 'for everyone' });
    const texts = async (hub: TeamHub, handle: string, thread: string): Promise<string[]> => {
      const { events } = await hub.actors[handle]!.history({ thread, limit: 50 }).catch(() => ({ events: [] }));
      return events.filter((e) => e.type === 'message').map((e) => String(e.content));
    };
    await expect.poll(() => texts(c!, 'cal', 'ops'), { timeout: 10_000 }).toEqual(['for the readers only']);
    // The post in #general went out after the one in #ops: once B has it, B was sent all it would get.
    await expect.poll(() => texts(b!, 'bea', 'general'), { timeout: 10_000 }).toEqual(['for everyone']);
    expect(messagesIn(b!, 'ops')).toBe(0);
    expect(messagesIn(c!, 'ops')).toBe(1);
  }, 60_000);
});
