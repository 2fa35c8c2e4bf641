import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { SignedChannelPolicy } from '../../src/schema/control.js';
import { verifyPolicy } from '../../src/trust/channel-policy.js';
import { parsePublicKey } from '../../src/trust/node-id.js';
import { caught, joinHumanAliceBob, testHubsClosedAfterEach, type HumanAliceBob, type TestHub } from '../helpers/hub.js';
import { takeItems } from '../helpers/live-items.js';

/**
 * Channel access policies through the hub (every surface reaches these Actor
 * methods): set by an admin as a signed `access` control, enforced on read
 * and write, in search, inbox and live delivery; retention follows them.
 * Local mode: humans are admins, agents operators, carol is an observer.
 */
const HOUR = 3_600_000;
const hubs = testHubsClosedAfterEach();

interface Setup extends HumanAliceBob {
  t: TestHub;
  carol: Actor;
  clock: { now: number };
}

async function setup(): Promise<Setup> {
  const clock = { now: Date.parse('2026-11-24T08:00:00Z') };
  const t = await hubs.open({
    config: { chat: { limits: { writesPerMinute: 0 } }, retention: { intervalMs: 86_400_000 }, trust: { access: { carol: 'observer' } } },
    now: () => clock.now,
  });
  const { human, alice, bob } = await joinHumanAliceBob(t.hub);
  const carol = await t.hub.join({ handle: 'carol', session: 's' });
  await human.createChannel({ name: 'secret' });
  return { t, human, alice, bob, carol, clock };
}

/** Readers: alice and the admins; writers: alice and carol (an observer, whom the role table still stops). */
async function restrict(human: Actor): Promise<void> {
  await human.control('secret', { access: { readers: ['@alice', 'admin', '@carol'], writers: ['@alice', '@carol'] } });
}

const storedPolicy = async (actor: Actor, thread: string): Promise<SignedChannelPolicy | undefined> => {
  const { events } = await actor.history({ thread, limit: 100 });
  const controls = events.filter((e) => e.type === 'control' && 'access' in (e.content as object));
  return (controls.at(-1)?.content as { access: SignedChannelPolicy } | undefined)?.access;
};

describe('channel access policies', () => {
  it('channel access - without a policy every member of the session reads and posts (the role table alone)', async () => {
    const { alice, bob } = await setup();
    await alice.post({ thread: 'secret', text: 'open' });
    await bob.post({ thread: 'secret', text: 'also open' });
    expect((await bob.history({ thread: 'secret' })).events.filter((e) => e.type === 'message')).toHaveLength(2);
  });

  it('channel access - readers and writers are enforced on history, read_new, export, detail and post, naming the list and its admins', async () => {
    const { t, human, alice, bob, carol } = await setup();
    await restrict(human);
    await alice.post({ thread: 'secret', text: 'for readers only' });
    expect((await alice.history({ thread: 'secret' })).events.map((e) => e.content)).toContain('for readers only');

    for (const read of [
      () => bob.history({ thread: 'secret' }),
      () => bob.readNew({ thread: 'secret' }),
      () => bob.export({ thread: 'secret', format: 'jsonl' }),
      () => bob.threadDetail('secret'),
      () => bob.search({ query: 'readers', thread: 'secret' }),
    ]) {
      const error = await caught(read);
      expect(error).toMatchObject({ code: 'FORBIDDEN_ROLE' });
      expect(error.message).toContain('among its readers');
      expect(error.message).toContain('@human');
    }
    const before = t.hub.stats().events;
    const refused = await caught(() => bob.post({ thread: 'secret', text: 'let me in' }));
    expect(refused).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect(refused.message).toContain('among its writers');
    // An observer listed as a writer still does not write: the role table applies on top.
    expect(await caught(() => carol.post({ thread: 'secret', text: 'observer' }))).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect((await carol.history({ thread: 'secret' })).events.length).toBeGreaterThan(0);
    // A request into the channel is a write too.
    expect(await caught(() => bob.request({ to: 'alice', intent: 'peek', thread: 'secret' }))).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect(t.hub.stats().events).toBe(before);
  });

  it('channel access - a non-reader does not see the channel in its thread list, search, inbox or live stream', async () => {
    const { human, alice, bob } = await setup();
    await bob.subscribe('secret');
    await restrict(human);
    const live = bob.live({ ephemeral: false });
    const liveInbox = bob.live({ inbox: true, ephemeral: false });
    await alice.post({ thread: 'secret', text: 'zebra plans @bob' });
    // A request to bob there is refused at send (see requests.test.ts), so nothing of it reaches bob either.
    expect(await caught(() => alice.request({ to: 'bob', intent: 'zebra', text: 'zebra review', thread: 'secret' }))).toMatchObject({ code: 'INVALID_INPUT', field: 'to' });
    const marker = await alice.post({ thread: 'general', text: 'zebra in public @bob' });
    const [first] = await takeItems(live, 1);
    const [firstInbox] = await takeItems(liveInbox, 1);
    live.close();
    liveInbox.close();
    expect(first?.kind === 'event' && first.event.seq).toBe(marker.seq);
    expect(firstInbox?.kind === 'event' && firstInbox.event.seq).toBe(marker.seq);

    expect((await bob.threads()).map((th) => th.name)).not.toContain('secret');
    expect((await alice.threads()).map((th) => th.name)).toContain('secret');
    const bobHits = (await bob.search({ query: 'zebra' })).events.map((e) => e.content);
    expect(bobHits).toEqual(['zebra in public @bob']);
    const inbox = await bob.inbox({ limit: 100 });
    expect(inbox.items.map((i) => i.thread.name)).not.toContain('secret');
    expect(inbox.items.map((i) => i.event.seq)).toContain(marker.seq);
    const secretId = (await alice.threads()).find((th) => th.name === 'secret')!.id;
    expect(JSON.stringify(await bob.deliveries('all' as never))).not.toContain(secretId);
    // Nothing was queued for bob at all: the sender's view of its deliveries has no bob in the channel.
    const sent = await alice.sentDeliveries({});
    expect(sent.filter((d) => d.thread.id === secretId).map((d) => d.to)).toEqual([]);
    expect(sent.filter((d) => d.seq === marker.seq).map((d) => d.to)).toEqual(['bob']);
  });

  it('channel access - a mention queued for a participant before the policy left them out is not in their peek or inbox', async () => {
    const { human, alice, bob } = await setup();
    const mention = await alice.post({ thread: 'secret', text: 'before the policy @bob' });
    const seqsOf = (result: { items: Array<{ event: { seq: number } }> }): number[] => result.items.map((i) => i.event.seq);
    // Queued for bob while the channel was open to everyone.
    expect(seqsOf(await bob.peek())).toEqual([mention.seq]);
    await restrict(human);
    expect(seqsOf(await bob.peek())).toEqual([]);
    expect(seqsOf(await bob.inbox())).toEqual([]);
  });

  it('channel access - a side channel follows its parent channel and takes no policy of its own', async () => {
    const { t, human, alice, bob } = await setup();
    await restrict(human);
    const side = await alice.openSide({ parent: 'secret', title: 'aside' });
    await alice.post({ thread: side.id, text: 'side talk' });
    expect(await caught(() => bob.history({ thread: side.id }))).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect(await caught(() => bob.post({ thread: side.id, text: 'me too' }))).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    const before = t.hub.stats().events;
    expect(await caught(() => human.control(side.id, { access: { readers: ['member'] } }))).toMatchObject({ code: 'INVALID_INPUT', field: 'control.access' });
    expect(t.hub.stats().events).toBe(before);
    expect((await human.threadDetail(side.id)).access).toMatchObject({ channel: 'secret', policy: { version: 1 } });
  });

  it('channel access - the stored control carries a policy signed by the setter, versions increase, the view shows it', async () => {
    const { human } = await setup();
    await restrict(human);
    await human.control('secret', { access: { retention_hours: 24 } });
    const signed = (await storedPolicy(human, 'secret'))!;
    expect(signed.policy).toMatchObject({ version: 2, retention_hours: 24, retention_messages: 10_000, allow_history_fetch: true });
    // Lists left out keep their values.
    expect(signed.policy.writers).toHaveLength(2);
    const signer = parsePublicKey(signed.signer);
    expect(verifyPolicy(signed.policy, signer, Buffer.from(signed.sig, 'base64url'))).toBe(true);
    expect(verifyPolicy({ ...signed.policy, readers: [{ access: 'observer' }] }, signer, Buffer.from(signed.sig, 'base64url'))).toBe(false);
    const detail = await human.threadDetail('secret');
    expect(detail.access).toMatchObject({ channel: 'secret', signer: signed.signer, policy: { version: 2 } });
    expect(detail.access?.handles[signed.signer]).toBe('human');
  });

  it('channel access - only an admin sets a policy; a channel admin must be an admin of the hub; DMs take none; nothing is stored on refusal', async () => {
    const { t, human, alice } = await setup();
    await alice.dm({ to: 'human', text: 'hi' });
    const before = t.hub.stats().events;
    const notAdmin = await caught(() => alice.control('secret', { access: { readers: ['@alice'] } }));
    expect(notAdmin).toMatchObject({ code: 'FORBIDDEN_ROLE' });
    expect(await caught(() => human.control('secret', { access: { admins: ['@alice'] } }))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'control.access.admins.0',
    });
    expect(await caught(() => human.control('secret', { access: { admins: ['admin', 'member'] } }))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'control.access.admins.1',
    });
    const dm = (await human.threads()).find((th) => th.kind === 'dm')!;
    const dmError = await caught(() => human.control(dm.id, { access: { readers: ['admin'] } }));
    expect(dmError).toMatchObject({ code: 'INVALID_INPUT', field: 'control.access' });
    expect(dmError.message).toContain('direct-message');
    expect(t.hub.stats().events).toBe(before);
    expect(await storedPolicy(human, 'secret')).toBeUndefined();
  });

  it('channel access - bad input names the field and stores nothing', async () => {
    const { t, human } = await setup();
    const before = t.hub.stats().events;
    const cases: Array<[unknown, string]> = [
      [{ readers: ['wizard'] }, 'control.access.readers.0'],
      [{ readers: ['@nobody'] }, 'control.access.readers.0'],
      [{ writers: ['ed25519:short'] }, 'control.access.writers.0.key'],
      [{ readers: ['member', 'member'] }, 'control.access.readers.1'],
      [{ retention_hours: 0 }, 'control.access.retention_hours'],
      [{ retention_messages: 1.5 }, 'control.access.retention_messages'],
      [{ allow_history_fetch: 'no' }, 'control.access.allow_history_fetch'],
      [{ thread: 'x' }, 'control.access.thread'],
    ];
    for (const [access, field] of cases) {
      expect(await caught(() => human.control('secret', { access } as never)), JSON.stringify(access)).toMatchObject({ field });
    }
    expect(t.hub.stats().events).toBe(before);
  });

  it('channel access - retention follows the policy of the channel and of its side channels', async () => {
    const { t, human, alice, clock } = await setup();
    const side = await alice.openSide({ parent: 'secret', title: 'aside' });
    for (const text of ['a1', 'a2', 'a3']) await alice.post({ thread: 'secret', text });
    for (const text of ['s1', 's2', 's3']) await alice.post({ thread: side.id, text });
    for (const text of ['g1', 'g2', 'g3']) await alice.post({ thread: 'general', text });
    await human.control('secret', { access: { retention_hours: 1 } });
    clock.now += 2 * HOUR;
    await alice.post({ thread: 'secret', text: 'fresh' });
    await t.hub.prune();
    const texts = async (thread: string) =>
      (await alice.history({ thread, limit: 100 })).events.filter((e) => e.type === 'message').map((e) => e.content);
    expect(await texts('secret')).toEqual(['fresh']);
    expect(await texts(side.id)).toEqual([]);
    // The signed policy itself is kept: it is what says who may read and write.
    expect(await storedPolicy(human, 'secret')).toMatchObject({ policy: { retention_hours: 1 } });
    // The config's 72 hours still hold elsewhere.
    expect(await texts('general')).toEqual(['g1', 'g2', 'g3']);
  });
});
