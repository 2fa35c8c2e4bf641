import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/hub/actor.js';
import type { RosterView } from '../../src/hub/access-resolver.js';
import { PARTICIPANT_ENTRIES, PEER_ENTRIES, SURFACE_ENTRIES } from '../../src/hub/entries.js';
import { PERMISSIONS } from '../../src/hub/permissions.js';
import { ACCESS_LEVELS, accessAtLeast, type Access } from '../../src/schema/access.js';
import { githubPat } from '../redaction/fixtures.js';
import { caught, openTestHub, type TestHub } from '../helpers/hub.js';
import { allEntries, ENTRY_CALLS, outcome, whileClosing } from './entry-calls.js';

/**
 * The hub's one gate, entry by entry, from its table (entries.ts): every
 * entry refuses on a closing hub, below the access its table row names, and
 * for a participant without chat when its row says chat.
 */
let t: TestHub | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A scanner that holds every scan until released: a post whose text looks like a secret stays in flight. */
function heldScanner(): { scanner: { scan: () => Promise<never[]> }; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { scanner: { scan: () => released.then(() => []) }, release };
}

describe('gate - the table', () => {
  it('gate - the participant entries are exactly the ParticipantApi methods, and every entry has a call in these tests', () => {
    const source = fs.readFileSync(path.join(import.meta.dirname, '../../src/hub/participant-api.ts'), 'utf8');
    const body = source.slice(source.indexOf('export interface ParticipantApi'));
    const methods = [...body.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]!);
    expect(methods.length).toBeGreaterThan(30);
    expect(Object.keys(PARTICIPANT_ENTRIES).sort()).toEqual([...methods].sort());
    const entries = [...Object.keys(PARTICIPANT_ENTRIES), ...Object.keys(SURFACE_ENTRIES), ...Object.keys(PEER_ENTRIES)];
    expect(Object.keys(ENTRY_CALLS).sort()).toEqual(entries.sort());
  });
});

describe('gate - every entry', () => {
  it('gate - on a closing hub every entry is refused with HUB_CLOSED, and the call in flight still finishes', async () => {
    const held = heldScanner();
    t = await openTestHub({ scanner: held.scanner, config: { chat: { scanner: { timeoutMs: 60_000 } } } });
    await t.hub.join({ handle: 'boss', session: 's', profile: { kind: 'human' } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const inFlight = a.post({ thread: 'general', text: `my token is ${githubPat()}` });
    const refused: Record<string, string | undefined> = {};
    await whileClosing(t.hub, held.release, async () => {
      let n = 0;
      for (const [name] of allEntries()) refused[name] = (await outcome(() => ENTRY_CALLS[name](a, ++n, t!))).code;
    });
    expect(Object.entries(refused).filter(([, code]) => code !== 'HUB_CLOSED')).toEqual([]);
    expect(Object.keys(refused)).toHaveLength(Object.keys(ENTRY_CALLS).length);
    await expect(inFlight).resolves.toMatchObject({ redacted: false });
  });

  it('gate - below the access its row names every entry is refused with FORBIDDEN_ROLE, outside the roster with NOT_IN_ROSTER; open entries are refused neither', async () => {
    const members = new Map<string, Access>();
    const roster: RosterView = {
      orgId: 'acme',
      version: 1,
      accessOf: (key) => members.get(key.toString('base64')),
      admins: () => [...members].filter(([, access]) => access === 'admin').map(([key]) => Buffer.from(key, 'base64')),
      isArchive: () => false,
    };
    t = await openTestHub({ roster, config: { chat: { limits: { writesPerMinute: 0 } } } });
    const boss = await t.hub.join({ handle: 'boss', session: 's', profile: { kind: 'human' } });
    members.set(boss.participant.publicKey, 'admin');
    const actors = {} as Record<Access, Actor>;
    for (const access of ACCESS_LEVELS) {
      actors[access] = await t.hub.join({ handle: `an-${access}`, session: 's' });
      members.set(actors[access].participant.publicKey, access);
    }
    const stranger = await t.hub.join({ handle: 'stranger', session: 's' });
    let n = 0;
    const wrong: string[] = [];
    for (const [name, entry] of allEntries()) {
      for (const access of ACCESS_LEVELS) {
        const got = await outcome(() => ENTRY_CALLS[name](actors[access], ++n, t!));
        if (entry.action === 'open' || accessAtLeast(access, PERMISSIONS[entry.action])) {
          if (got.code === 'FORBIDDEN_ROLE' || got.code === 'NOT_IN_ROSTER') wrong.push(`${name} as ${access}: ${got.message}`);
        } else {
          const need = PERMISSIONS[entry.action];
          if (got.code !== 'FORBIDDEN_ROLE') wrong.push(`${name} as ${access}: ${got.code} instead of FORBIDDEN_ROLE`);
          else expect(got.details, name).toMatchObject({ need, have: access, action: entry.action });
        }
      }
      const outside = await outcome(() => ENTRY_CALLS[name](stranger, ++n, t!));
      const expected = entry.action === 'open' ? 'not refused for its role' : 'NOT_IN_ROSTER';
      const seen = outside.code === 'NOT_IN_ROSTER' ? 'NOT_IN_ROSTER' : outside.code === 'FORBIDDEN_ROLE' ? 'FORBIDDEN_ROLE' : 'not refused for its role';
      if (seen !== expected) wrong.push(`${name} outside the roster: ${outside.code} ${outside.message}`);
    }
    expect(wrong).toEqual([]);
  });

  it('gate - for a participant without chat every chat entry is refused with CHAT_DISABLED, and no other entry is', async () => {
    t = await openTestHub({ config: { mcp: { excludedKinds: ['architect'] }, trust: { access: { arch: 'admin' } }, chat: { limits: { writesPerMinute: 0 } } } });
    await t.hub.join({ handle: 'boss', session: 's', profile: { kind: 'human' } });
    const arch = await t.hub.join({ handle: 'arch', session: 's', profile: { roles: ['architect'] } });
    let n = 0;
    const wrong: string[] = [];
    for (const [name, entry] of allEntries()) {
      // The calls' live stream is not of the inbox alone: chat.
      const chat = typeof entry.chat === 'function' ? true : entry.chat;
      const got = await outcome(() => ENTRY_CALLS[name](arch, ++n, t!));
      if (chat !== (got.code === 'CHAT_DISABLED')) wrong.push(`${name}: ${got.code ?? 'went through'} (${got.message})`);
    }
    expect(wrong).toEqual([]);
    // The inbox alone is no chat: what reaches a participant without chat comes that way.
    expect(() => arch.live({ inbox: true }).close()).not.toThrow();
  });
});

describe('gate - checks once, in one place', () => {
  it('gate - a channel\'s writers policy covers every write into the channel: renaming it, opening a side channel from it, closing one of its side channels', async () => {
    t = await openTestHub({ config: { chat: { limits: { writesPerMinute: 0 } } } });
    const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    const alice = await t.hub.join({ handle: 'alice', session: 's' });
    const bob = await t.hub.join({ handle: 'bob', session: 's' });
    await human.createChannel({ name: 'plans' });
    const side = await alice.openSide({ parent: 'plans', title: 'an aside', members: ['bob'] });
    await human.control('plans', { access: { writers: ['@alice', 'admin'] } });
    const before = t.hub.stats().events;
    for (const write of [
      () => bob.renameThread({ thread: 'plans', name: 'bobs-plans' }),
      () => bob.openSide({ parent: 'plans', title: 'my own aside' }),
      () => bob.closeSide({ thread: side.id, summary: 'closed by bob' }),
      () => bob.renameThread({ thread: side.id, name: 'renamed by bob' }),
    ]) {
      const refused = await caught(write);
      expect(refused).toMatchObject({ code: 'FORBIDDEN_ROLE' });
      expect(refused.message).toContain('among its writers');
    }
    expect(t.hub.stats().events).toBe(before);
    expect((await human.threads()).map((th) => th.name)).toEqual(expect.arrayContaining(['plans', 'an aside']));
    // A writer does each of them.
    await alice.renameThread({ thread: side.id, name: 'the aside' });
    await expect(alice.closeSide({ thread: side.id, summary: 'settled' })).resolves.toMatchObject({ parent: expect.any(String) });
  });

  it('gate - a write refused after the gate took it from the rate limit is given back: only what is done counts', async () => {
    let now = 1_000_000;
    t = await openTestHub({ now: () => now, config: { chat: { limits: { writeBurst: 2, writesPerMinute: 1 } } } });
    const human = await t.hub.join({ handle: 'human', session: 's', profile: { kind: 'human' } });
    const alice = await t.hub.join({ handle: 'alice', session: 's' });
    const side = await human.openSide({ parent: 'general', title: 'closed early' });
    await human.closeSide({ thread: side.id, summary: 'done' });
    for (let i = 0; i < 5; i++) {
      expect(await caught(() => alice.post({ thread: side.id, text: `late ${i}` }))).toMatchObject({ code: 'THREAD_CLOSED' });
      expect(await caught(() => alice.dm({ to: 'human', text: 'hi', reply_to: '01JZZZZZZZZZZZZZZZZZZZZZZZ' }))).toMatchObject({ code: 'NOT_FOUND', field: 'reply_to' });
    }
    await alice.post({ thread: 'general', text: 'first' });
    await alice.post({ thread: 'general', text: 'second' });
    expect(await caught(() => alice.post({ thread: 'general', text: 'third' }))).toMatchObject({ code: 'RATE_LIMITED' });
    now += 60_000;
    await expect(alice.post({ thread: 'general', text: 'refilled' })).resolves.toMatchObject({ seq: expect.any(Number) });
  });

  it('gate - closing waits for a presence update in flight (its note in the scanner) instead of leaving it half done', async () => {
    const held = heldScanner();
    t = await openTestHub({ scanner: held.scanner, config: { chat: { scanner: { timeoutMs: 60_000 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const order: string[] = [];
    const update = a.setPresence({ state: 'thinking', note: `key ${githubPat()}` }).then(() => order.push('presence set'));
    await whileClosing(t.hub, held.release, async () => {
      expect((await outcome(() => a.setPresence({ state: 'idle' }))).code).toBe('HUB_CLOSED');
      order.push('scan released');
    });
    order.push('hub closed');
    await update;
    expect(order).toEqual(['scan released', 'presence set', 'hub closed']);
  });
});
