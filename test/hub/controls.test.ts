import { describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import { caught, joinHumanAliceBob, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

async function setup(config = {}): Promise<{ t: TestHub; human: Actor; alice: Actor; bob: Actor; count: () => number }> {
  const t = await hubs.open({ config });
  return { t, ...(await joinHumanAliceBob(t.hub)), count: () => t.hub.stats().events };
}

describe('controls', () => {
  it('controls - every control is a control event whose content is { kind: value }, naming participants by id', async () => {
    const { t, human, alice } = await setup();
    const aliceId = alice.participant.id;
    await human.hardMute('general', ['alice']);
    await human.unmute('general', ['alice']);
    await human.pause('general');
    await human.resume('general');
    await human.prod('general', ['alice']);
    await human.done('general');
    await human.control('general', { ttl_seconds: 600 });
    await human.control('general', { discussion: { on: true } });
    await human.control('general', { invited_auto: { on: true } });
    await human.invite('general', 'planner', { client: 'codex', model: 'gpt-5', roles: ['planner'] });
    const log = await human.history({ thread: 'general', limit: 100 });
    const controls = log.events.filter((e) => e.type === 'control').map((e) => e.content);
    const planner = t.hub.participants().find((p) => p.handle === 'planner');
    expect(controls).toEqual([
      { mute: { targets: [aliceId], mode: 'hard' } },
      { unmute: { targets: [aliceId] } },
      { pause: { on: true } },
      { pause: { on: false } },
      { prod: [aliceId] },
      { done: true },
      { ttl_seconds: 600 },
      { discussion: { on: true, allow_agent_mentions: true } },
      { invited_auto: { on: true } },
      { invite: { participant_id: planner?.id, handle: 'planner', profile: { client: 'codex', model: 'gpt-5', roles: ['planner'] } } },
    ]);
  });

  it('controls - hard mute refuses the muted participant’s next message and stores nothing', async () => {
    const { human, alice, count } = await setup();
    await human.hardMute('general', ['alice']);
    const before = count();
    const error = await caught(() => alice.post({ thread: 'general', text: 'let me finish' }));
    expect(error.code).toBe('PARTICIPANT_MUTED');
    expect(error.message).toContain('muted');
    expect(error.message).toContain('@human');
    expect(count()).toBe(before);
    // Muted in one thread only.
    await alice.createChannel({ name: 'elsewhere' });
    await expect(alice.post({ thread: 'elsewhere', text: 'fine here' })).resolves.toMatchObject({ seq: expect.any(Number) });
    // The muted agent cannot unmute itself (steering is an admin's); an admin can.
    expect((await caught(() => alice.unmute('general', ['alice']))).code).toBe('FORBIDDEN_ROLE');
    await human.unmute('general', ['alice']);
    await expect(alice.post({ thread: 'general', text: 'thanks' })).resolves.toMatchObject({ thread: expect.any(String) });
  });

  it('controls - an agent cannot lock the human out: it cannot steer at all (FORBIDDEN_ROLE), and a human lifts a mute or a pause even when muted', async () => {
    const { t, human, alice, bob, count } = await setup({ trust: { access: { bob: 'admin' } } });
    const other = await t.hub.join({ handle: 'other-human', session: 's', profile: { kind: 'human' } });
    // The lock-out attempt: the agent (an operator) mutes the human, then pauses the thread.
    const before = count();
    const refused = await caught(() => alice.hardMute('general', ['bob', 'human']));
    expect(refused).toMatchObject({ code: 'FORBIDDEN_ROLE', details: { need: 'admin', have: 'operator' } });
    expect(refused.message).toContain('mute needs admin; you (@alice) are operator');
    expect((await caught(() => alice.pause('general'))).code).toBe('FORBIDDEN_ROLE');
    expect(count()).toBe(before);
    // Nothing of the refused control took effect, not even on the agent it also named.
    expect((await human.threadDetail('general')).members.find((m) => m.handle === 'bob')?.hardMuted).toBe(false);
    expect((await human.threadDetail('general')).controls.paused).toBe(false);
    // An admin agent pauses; the human muted (by another human) in that thread lifts both, and speaks.
    await bob.pause('general');
    await other.hardMute('general', ['human']);
    expect((await caught(() => human.post({ thread: 'general', text: 'let me speak' }))).code).toBe('PARTICIPANT_MUTED');
    await expect(human.resume('general')).resolves.toMatchObject({ control: 'pause' });
    await expect(human.unmute('general', ['human'])).resolves.toMatchObject({ control: 'unmute' });
    await expect(human.post({ thread: 'general', text: 'back in charge' })).resolves.toMatchObject({ thread: expect.any(String) });
    // An admin steers regardless of mute and pause: muted in a paused thread, the admin agent resumes it and lifts its own mute.
    await human.hardMute('general', ['bob']);
    await human.pause('general');
    await expect(bob.resume('general')).resolves.toMatchObject({ control: 'pause' });
    await expect(bob.unmute('general', ['bob'])).resolves.toMatchObject({ control: 'unmute' });
  });

  it('controls - the muted participant is told through a High inbox item', async () => {
    const { human, alice } = await setup();
    await alice.inbox();
    const mute = await human.hardMute('general', ['alice']);
    const item = (await alice.inbox()).items.find((i) => i.event.id === mute.id);
    expect(item).toMatchObject({ priority: 'high', reason: 'control', respondHint: false });
  });

  it('controls - pause refuses messages from non-humans only, until resume', async () => {
    const { human, alice, count } = await setup();
    await human.pause('general');
    const before = count();
    const error = await caught(() => alice.post({ thread: 'general', text: 'agent talk' }));
    expect(error.code).toBe('THREAD_PAUSED');
    expect(count()).toBe(before);
    expect((await caught(() => alice.request({ to: 'human', intent: 'x', thread: 'general' }))).code).toBe('THREAD_PAUSED');
    await expect(human.post({ thread: 'general', text: 'human talk' })).resolves.toMatchObject({ seq: before + 1 });
    await human.resume('general');
    await expect(alice.post({ thread: 'general', text: 'agent again' })).resolves.toMatchObject({ seq: before + 3 });
  });

  it('controls - prod gives each target a High item with respondHint', async () => {
    const { human, alice, bob } = await setup();
    await alice.inbox();
    await bob.inbox();
    const prod = await human.prod('general', ['alice', 'bob']);
    for (const who of [alice, bob]) {
      const item = (await who.inbox()).items.find((i) => i.event.id === prod.id);
      expect(item).toMatchObject({ priority: 'high', reason: 'prod', respondHint: true });
    }
  });

  it('controls - invite registers the participant if new and persists them on the thread', async () => {
    const { t, human } = await setup();
    await human.createChannel({ name: 'plan' });
    await human.invite('plan', 'planner', { client: 'codex', roles: ['planner'] });
    const { hub } = await hubs.reopen(t);
    const planner = hub.actor('planner', 's');
    expect(planner.participant.profile).toMatchObject({ kind: 'agent', client: 'codex', roles: ['planner'] });
    const plan = (await planner.threads()).find((th) => th.name === 'plan');
    expect(plan?.subscription).toBe('subscribed');
    const item = (await planner.inbox()).items.find((i) => i.reason === 'invite');
    expect(item?.thread.name).toBe('plan');
  });

  it('controls - done and ttl_seconds mark the thread done for the participation hint', async () => {
    const { human, alice } = await setup({ participation: { permissiveMaxMembers: 10 } });
    await alice.inbox();
    await human.post({ thread: 'general', text: 'open question' });
    expect((await alice.inbox()).items[0]?.respondHint).toBe(true);
    await human.done('general');
    await human.post({ thread: 'general', text: 'wrap up' });
    const after = (await alice.inbox()).items.find((i) => i.event.content === 'wrap up');
    expect(after?.respondHint).toBe(false);
  });
});

describe('participation', () => {
  it('participation - small threads are permissive, large ones conservative', async () => {
    const { t, human, alice, bob } = await setup({ participation: { permissiveMaxMembers: 3 } });
    await alice.inbox();
    await human.post({ thread: 'general', text: 'three of us' });
    expect((await alice.inbox()).items[0]?.respondHint).toBe(true);
    await t.hub.join({ handle: 'carol', session: 's' });
    await human.post({ thread: 'general', text: 'four of us now' });
    const items = (await alice.inbox()).items;
    expect(items.find((i) => i.event.content === 'four of us now')?.respondHint).toBe(false);
    await human.post({ thread: 'general', text: 'but @alice, you answer' });
    expect((await alice.inbox()).items[0]).toMatchObject({ reason: 'mention', respondHint: true });
    // Addressed to alice: bob, the fourth of four, is not asked to answer it.
    expect((await bob.inbox()).items.find((i) => i.event.content === 'but @alice, you answer')?.respondHint).toBe(false);
  });

  it('participation - a message addressed with to sets respondHint for that reader only', async () => {
    const { human, alice, bob } = await setup({ participation: { permissiveMaxMembers: 0 } });
    await alice.inbox();
    await bob.inbox();
    await human.post({ thread: 'general', text: 'for alice', to: 'alice' });
    expect((await alice.inbox()).items[0]).toMatchObject({ reason: 'direct', respondHint: true });
    expect((await bob.inbox()).items[0]).toMatchObject({ reason: 'channel', respondHint: false });
  });

  it('participation - discussion mode makes a thread permissive, and agent mentions can be ignored', async () => {
    const { human, alice, bob } = await setup({ participation: { permissiveMaxMembers: 0 } });
    await alice.inbox();
    await human.control('general', { discussion: { on: true, allow_agent_mentions: false } });
    await alice.inbox();
    await human.post({ thread: 'general', text: 'discuss' });
    expect((await alice.inbox()).items[0]?.respondHint).toBe(true);
    await bob.post({ thread: 'general', text: '@alice what do you think' });
    expect((await alice.inbox()).items[0]).toMatchObject({ reason: 'mention', respondHint: false });
  });

  it('participation - invited_auto: invited participants answer a human’s message without mentions', async () => {
    const { t, human } = await setup({ participation: { permissiveMaxMembers: 0 } });
    await human.createChannel({ name: 'plan' });
    await human.invite('plan', 'planner');
    const planner = t.hub.actor('planner', 's');
    await planner.inbox();
    await human.post({ thread: 'plan', text: 'first idea' });
    expect((await planner.inbox()).items[0]?.respondHint).toBe(false);
    await human.control('plan', { invited_auto: { on: true } });
    await planner.inbox();
    await human.post({ thread: 'plan', text: 'second idea' });
    expect((await planner.inbox()).items[0]?.respondHint).toBe(true);
  });
});
