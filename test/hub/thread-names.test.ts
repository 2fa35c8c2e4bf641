import { describe, expect, it } from 'vitest';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';

/**
 * Every name the hub shows for a thread is a name it accepts: the library
 * resolves ids, channel names, `@handle`, a DM's `dm:a,b` in any order and a
 * side channel's title, and refuses what the caller may not see exactly like
 * what does not exist.
 */
const hubs = testHubsClosedAfterEach();

async function threeInASession() {
  const t = await hubs.open();
  const human = await t.hub.join({ handle: 'human', session: 'proj', profile: { kind: 'human' } });
  const coder = await t.hub.join({ handle: 'coder-1', session: 'proj' });
  const other = await t.hub.join({ handle: 'other', session: 'proj' });
  return { t, human, coder, other };
}

describe('thread names', () => {
  it('names - a DM is read by its shown name in either order, by @handle, and by dm:handle', async () => {
    const { human, coder } = await threeInASession();
    const sent = await coder.dm({ to: 'human', text: 'hello' });
    const dm = (await human.threads()).find((th) => th.id === sent.thread)!;
    expect(dm.name).toBe('dm:coder-1,human');
    for (const ref of ['dm:coder-1,human', 'dm:human,coder-1', 'DM:@Human, @coder-1', '@coder-1', '@CODER-1', 'dm:coder-1', sent.thread]) {
      const page = await human.history({ thread: ref });
      expect(page.events.map((e) => e.content), ref).toContain('hello');
    }
    // And from the other side, by the other handle.
    expect((await coder.history({ thread: '@human' })).events.map((e) => e.content)).toContain('hello');
    // Posting by the shown name lands in the same thread.
    const reply = await human.post({ thread: 'dm:coder-1,human', text: 'hi back' });
    expect(reply.thread).toBe(sent.thread);
  });

  it('names - a channel by name with or without #, and a side channel by its title', async () => {
    const { human, coder } = await threeInASession();
    await human.createChannel({ name: 'design' });
    await human.post({ thread: '#design', text: 'in design' });
    expect((await coder.history({ thread: '#Design' })).events.map((e) => e.content)).toContain('in design');
    // A title that looks like a DM's name but names no participants is still a title.
    const notes = await human.openSide({ parent: 'design', title: 'dm: next steps' });
    expect((await coder.post({ thread: 'dm: next steps', text: 'noted' })).thread).toBe(notes.id);
    const side = await coder.openSide({ parent: 'design', title: 'Cache layout' });
    await coder.post({ thread: 'Cache layout', text: 'on the side' });
    const page = await human.history({ thread: 'cache layout' });
    expect(page.events.map((e) => e.content)).toContain('on the side');
    expect(page.events.every((e) => e.thread === side.id)).toBe(true);
  });

  it('names - two side channels with one title are named by id, and the error lists both', async () => {
    const { human } = await threeInASession();
    const a = await human.openSide({ parent: 'general', title: 'notes' });
    const b = await human.openSide({ parent: 'general', title: 'Notes' });
    const error = await caught(() => human.post({ thread: 'notes', text: 'which?' }));
    expect([error.code, error.field]).toEqual(['INVALID_INPUT', 'thread']);
    expect(error.message).toContain(a.id);
    expect(error.message).toContain(b.id);
    expect(await human.post({ thread: b.id, text: 'this one' })).toMatchObject({ thread: b.id });
  });

  it('names - a DM of others is not found by any of its names, exactly like a missing one', async () => {
    const { t, human, coder, other } = await threeInASession();
    const sent = await coder.dm({ to: 'human', text: 'private' });
    const missing = await caught(() => other.history({ thread: 'dm:nobody,human' }));
    for (const ref of ['dm:coder-1,human', sent.thread, '@coder-1', '@human']) {
      const error = await caught(() => other.history({ thread: ref }));
      expect([error.code, error.field], ref).toEqual(['NOT_FOUND', 'thread']);
      expect(error.message).toBe(missing.message.replace('dm:nobody,human', ref));
    }
    // A DM that does not exist yet is not created by naming it.
    expect((await caught(() => human.post({ thread: '@other', text: 'x' }))).code).toBe('NOT_FOUND');
    expect((await human.threads()).filter((th) => th.kind === 'dm')).toHaveLength(1);
    // Another session's DM, named by its handles, is not found either.
    await t.hub.join({ handle: 'human', session: 'elsewhere', profile: { kind: 'human' } });
    const elsewhere = t.hub.actor('human', 'elsewhere');
    expect((await caught(() => elsewhere.history({ thread: 'dm:coder-1,human' }))).code).toBe('NOT_FOUND');
  });

  it('names - threads() shows a DM by the other handle, and a new DM with one message has one unread', async () => {
    const { human, coder } = await threeInASession();
    await coder.dm({ to: 'human', text: 'one message' });
    const dm = (await human.threads()).find((th) => th.kind === 'dm')!;
    expect(dm).toMatchObject({ with: 'coder-1', unread: 1 });
    expect((await coder.threads()).find((th) => th.kind === 'dm')).toMatchObject({ with: 'human', unread: 0 });
    // A channel created by someone else, with nothing said in it yet, has nothing to read.
    await coder.createChannel({ name: 'quiet', members: ['human'] });
    expect((await human.threads()).find((th) => th.name === 'quiet')?.unread).toBe(0);
    // Renames and a side channel's link are the thread's bookkeeping too.
    await coder.renameThread({ thread: 'quiet', name: 'still-quiet' });
    expect((await human.threads()).find((th) => th.name === 'still-quiet')?.unread).toBe(0);
    expect((await human.threadDetail('@coder-1')).thread.with).toBe('coder-1');
  });
});
