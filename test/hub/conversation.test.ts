import { describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { caught, tempHome, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

describe('conversation', () => {
  it('conversation - three participants: DM, request/response, meeting, mute, pause and a side channel', async () => {
    const { home, cleanup } = tempHome();
    try {
      let hub = await openHub({ home, logger: createSilentLogger() });
      const human = await hub.join({ handle: 'human', session: 'proj', profile: { kind: 'human' } });
      const coder = await hub.join({ handle: 'coder-1', session: 'proj', profile: { client: 'claude', model: 'opus' } });
      const reviewer = await hub.join({ handle: 'reviewer', session: 'proj', profile: { client: 'codex' } });

      // Channel conversation.
      await human.createChannel({ name: 'design', members: ['coder-1', 'reviewer'] });
      const kickoff = await human.post({ thread: '#design', text: 'Plan the cache layer. @coder-1 drafts, @reviewer checks.' });
      expect(kickoff.mentions.sort()).toEqual(['coder-1', 'reviewer']);
      const coderInbox = await coder.inbox();
      const mention = coderInbox.items.find((i) => i.event.id === kickoff.id);
      expect(mention).toMatchObject({ priority: 'high', reason: 'mention', respondHint: true, delivery: 'delivered' });

      // A DM between agents.
      const dm = await coder.dm({ to: 'reviewer', text: 'Can you look at src/cache.ts first?' });
      const reviewerInbox = await reviewer.inbox();
      expect(reviewerInbox.items.map((i) => [i.event.id, i.reason])).toContainEqual([dm.id, 'dm']);
      expect((await human.threads()).some((th) => th.id === dm.thread)).toBe(false);

      // A request answered by a response.
      const req = await coder.request({ to: 'reviewer', intent: 'review', params: { file: 'src/cache.ts' } });
      expect(req.hop).toBe(0);
      expect((await reviewer.openRequests()).incoming.map((r) => r.request_id)).toEqual([req.request_id]);
      await reviewer.respond({ request_id: req.request_id, status: 'Accepted' });
      await reviewer.respond({ request_id: req.request_id, status: 'Completed', result: { verdict: 'lgtm' } });
      const coderItems = (await coder.inbox()).items.filter((i) => i.reason === 'response');
      expect(coderItems.map((i) => (i.event.content as { status: string }).status).sort()).toEqual(['Accepted', 'Completed']);
      expect((await coder.openRequests()).outgoing).toEqual([]);

      // A meeting.
      await human.meetingJoin('standup');
      await coder.meetingSay('standup', 'cache draft done');
      await reviewer.meetingSay('standup', 'review done');
      const heard = await human.meetingHear({ meeting: 'standup', last_heard: 0 });
      expect(heard.messages.map((m) => [m.speaker, m.content])).toEqual([
        ['coder-1', 'cache draft done'],
        ['reviewer', 'review done'],
      ]);
      expect((await human.meetingWho('standup')).who.map((w) => w.handle)).toEqual(['human', 'coder-1', 'reviewer']);

      // A muted participant and a paused thread.
      await human.hardMute('design', ['reviewer']);
      expect((await caught(() => reviewer.post({ thread: 'design', text: 'one more thing' }))).code).toBe('PARTICIPANT_MUTED');
      await human.unmute('design', ['reviewer']);
      await human.pause('design');
      expect((await caught(() => coder.post({ thread: 'design', text: 'still here' }))).code).toBe('THREAD_PAUSED');
      const humanDuringPause = await human.post({ thread: 'design', text: 'humans may still speak' });
      await human.resume('design');
      await coder.post({ thread: 'design', text: 'resumed' });

      // A side channel closed back into its parent.
      const side = await coder.openSide({ parent: 'design', title: 'eviction policy', from_event: kickoff.id, members: ['reviewer'] });
      await reviewer.post({ thread: side.id, text: 'LRU is enough' });
      const closed = await coder.closeSide({ thread: side.id, summary: 'We use LRU with a 10k entry cap.' });
      const parentLog = await human.history({ thread: 'design' });
      const summary = parentLog.events.find((e) => e.id === closed.summary_event);
      expect(summary?.content).toContain('We use LRU with a 10k entry cap.');
      expect(summary?.meta?.link).toBe(side.id);
      expect(parentLog.events.some((e) => e.type === 'system' && (e.content as { action: string }).action === 'side.opened')).toBe(true);
      expect((await caught(() => reviewer.post({ thread: side.id, text: 'late' }))).code).toBe('THREAD_CLOSED');

      // Everything except the meeting survives a restart; the meeting never touched the store.
      const lastSeq = hub.stats().lastSeq;
      await hub.close();
      hub = await openHub({ home, logger: createSilentLogger() });
      const human2 = hub.actor('human', 'proj');
      const design = await human2.history({ thread: 'design', limit: 1000 });
      expect(design.events.map((e) => e.id)).toContain(humanDuringPause.id);
      expect(design.events.some((e) => e.type === 'control' && 'pause' in (e.content as object))).toBe(true);
      expect(hub.stats().lastSeq).toBe(lastSeq);
      expect((await caught(() => human2.meetingHear({ meeting: 'standup' }))).code).toBe('NOT_FOUND');
      expect(hub.integrityCheck()).toBe('ok');
      await hub.close();
    } finally {
      cleanup();
    }
  });

  it('conversation - joining again returns the same identity and keeps its history', async () => {
    const t = await hubs.open();
    const first = await t.hub.join({ handle: 'coder-1', session: 's' });
    const again = await t.hub.join({ handle: 'Coder-1', session: 's', profile: { model: 'gpt-5' } });
    expect(again.participant.id).toBe(first.participant.id);
    expect(again.participant.profile.model).toBe('gpt-5');
    expect(t.hub.participants()).toHaveLength(1);
  });

  it('conversation - a profile update changes only the fields given', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human', nickname: 'Ada', roles: ['lead'] } });
    const again = await t.hub.join({ handle: 'human', session: 's', profile: { client: 'web' } });
    expect(again.participant.profile).toEqual({ kind: 'human', nickname: 'Ada', roles: ['lead'], client: 'web' });
  });

  it('conversation - sessions are isolated: nothing is visible across them', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 'one' });
    const b = await t.hub.join({ handle: 'alice', session: 'two' });
    const posted = await a.post({ thread: 'general', text: 'only in one' });
    const bRead = await b.readNew({ thread: 'general' });
    expect(bRead.events.map((e) => e.id)).not.toContain(posted.id);
    expect((await b.search({ query: 'only' })).events).toEqual([]);
    expect((await caught(() => b.readNew({ thread: posted.thread }))).code).toBe('NOT_FOUND');
    expect((await caught(() => b.history({ thread: posted.thread }))).code).toBe('NOT_FOUND');
    expect((await b.threads()).map((th) => th.id)).not.toContain(posted.thread);
  });

  it('conversation - an unknown thread, another session’s thread and a DM of others are refused alike: nothing tells which exists', async () => {
    const t = await hubs.open();
    const alice = await t.hub.join({ handle: 'alice', session: 'one' });
    await t.hub.join({ handle: 'bob', session: 'one' });
    const carol = await t.hub.join({ handle: 'carol', session: 'one' });
    const olga = await t.hub.join({ handle: 'olga', session: 'two' });
    const foreign = (await olga.createChannel({ name: 'secret' })).id;
    const dmOfOthers = (await alice.dm({ to: 'bob', text: 'between us' })).thread;
    const unknown = '01JZZZZZZZZZZZZZZZZZZZZZZZ';
    // The answer, with the id asked about taken out, must be the same for all three.
    const answer = async (ref: string) => {
      const error = (await caught(() => carol.history({ thread: ref }))) as { code?: string; field?: string; message: string };
      return { code: error.code, field: error.field, message: error.message.replace(ref, '<id>') };
    };
    const expected = await answer(unknown);
    expect(expected).toMatchObject({ code: 'NOT_FOUND', field: 'thread' });
    expect(await answer(foreign)).toEqual(expected);
    expect(await answer(dmOfOthers)).toEqual(expected);
    // The sessions listed are only the caller's own.
    expect((await carol.sessions()).map((s) => s.name)).toEqual(['one']);
    expect((await olga.sessions()).map((s) => s.name)).toEqual(['two']);
  });

  it('conversation - thread.created and thread.renamed are events in the log', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const info = await a.createChannel({ name: 'Backend' });
    expect(info.name).toBe('backend');
    await a.renameThread({ thread: 'backend', name: 'api' });
    const log = await a.history({ thread: info.id });
    expect(log.events.map((e) => e.content)).toEqual([
      { action: 'thread.created', kind: 'channel', name: 'backend' },
      { action: 'thread.renamed', from: 'backend', name: 'api' },
    ]);
    expect((await a.threads()).find((th) => th.id === info.id)?.name).toBe('api');
    expect((await caught(() => a.post({ thread: 'backend', text: 'x' }))).code).toBe('NOT_FOUND');
  });

  it('conversation - search finds messages by words and prefixes in the session', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const hit = await a.post({ thread: 'general', text: 'The migration to Postgres is blocked on credentials' });
    await a.post({ thread: 'general', text: 'lunch at noon' });
    expect((await a.search({ query: 'postgres blocked' })).events.map((e) => e.id)).toEqual([hit.id]);
    expect((await a.search({ query: 'migr*' })).events.map((e) => e.id)).toEqual([hit.id]);
    expect((await a.search({ query: 'AND OR NOT "(' })).events).toEqual([]);
  });

  it('conversation - history pages by seq in both directions', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const seqs: number[] = [];
    for (let i = 0; i < 7; i++) seqs.push((await a.post({ thread: 'general', text: `m${i}` })).seq);
    const newest = await a.history({ thread: 'general', limit: 3 });
    expect(newest.events.map((e) => e.content)).toEqual(['m4', 'm5', 'm6']);
    expect(newest.more).toBe(true);
    const older = await a.history({ thread: 'general', limit: 3, before: newest.events[0]?.seq });
    expect(older.events.map((e) => e.content)).toEqual(['m1', 'm2', 'm3']);
    const forward = await a.history({ thread: 'general', limit: 2, after: seqs[4] });
    expect(forward.events.map((e) => e.content)).toEqual(['m5', 'm6']);
    expect(forward.more).toBe(false);
  });
});
