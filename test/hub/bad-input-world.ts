import { afterAll, beforeAll, expect, it } from 'vitest';
import { ParleyError } from '../../src/errors/parley-error.js';
import type { Actor, Hub } from '../../src/hub/index.js';
import { caught, openTestHub, type TestHub } from '../helpers/hub.js';
import { snapshot } from '../helpers/store-snapshot.js';

/**
 * What the bad-input tests share: a hub holding a little of everything (a
 * DM, side channels, requests open and closed, meetings, another session's
 * thread), the limits it runs with, and how a refused call is checked. Each
 * call is refused with the right code, names the field at fault, and leaves
 * the store (and the meeting registry) exactly as it was.
 */
export const MAX_INPUT_CHARS = 1000;
export const MAX_PARAMS_BYTES = 256;
export const MAX_WAIT_MS = 5000;
/** A well-formed ULID that names nothing in the hub. */
export const UNKNOWN_ID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
export const LONG_TEXT = 'x'.repeat(MAX_INPUT_CHARS + 1);
/** A number over its maximum: the message names the maximum and does not say to "shorten" a number. */
export const NAMES_MAX_1000 = /^(?![\s\S]*Shorten)[\s\S]*\b1000\b/;
/** A malformed control: the message lists the control kinds to choose from. */
export const LISTS_KINDS = /ttl_seconds/;

export interface World {
  hub: Hub;
  /** alice, bob, carol and dave are in session "default"; olga and oscar in session "other". */
  alice: Actor;
  bob: Actor;
  carol: Actor;
  dave: Actor;
  olga: Actor;
  /** The DM of alice and bob, and a message in it. */
  dmThread: string;
  dmEvent: string;
  side: string;
  closedSide: string;
  /** A request from alice to bob still open, and one bob completed. */
  openRequest: string;
  channelRequest: string;
  closedRequest: string;
  foreignThread: string;
  foreignEvent: string;
  foreignRequest: string;
}

/** The hub the bad-input tests share, with what they refer to (see World). */
async function openWorld(): Promise<{ th: TestHub; world: World }> {
  const th = await openTestHub({
    config: {
      chat: { limits: { maxInputChars: MAX_INPUT_CHARS } },
      requests: { maxParamsBytes: MAX_PARAMS_BYTES },
      inbox: { maxWaitTimeoutMs: MAX_WAIT_MS, waitTimeoutMs: 100 },
      // The agents alice and carol steer here (its controls are the input under test): an admin's, since only admins steer.
      trust: { access: { alice: 'admin', carol: 'admin' } },
    },
  });
  const { hub } = th;
  const alice = await hub.join({ handle: 'alice' });
  const bob = await hub.join({ handle: 'bob' });
  const carol = await hub.join({ handle: 'carol' });
  const dave = await hub.join({ handle: 'dave' });
  const olga = await hub.join({ handle: 'olga', session: 'other' });
  await hub.join({ handle: 'oscar', session: 'other' });

  await alice.post({ thread: 'general', text: 'hello world' });
  await alice.createChannel({ name: 'ops' });
  const dm = await alice.dm({ to: 'bob', text: 'just between us' });
  const side = await alice.openSide({ parent: 'general', title: 'design' });
  const closedSide = await alice.openSide({ parent: 'general', title: 'old idea' });
  await alice.closeSide({ thread: closedSide.id, summary: 'dropped' });
  const openRequest = await alice.request({ to: 'bob', intent: 'review' });
  const closedRequest = await alice.request({ to: 'bob', intent: 'build' });
  const channelRequest = await alice.request({ to: 'bob', intent: 'check', thread: 'ops' });
  await bob.respond({ request_id: closedRequest.request_id, status: 'Completed' });
  await alice.meetingJoin('standup');

  const elsewhere = await olga.createChannel({ name: 'elsewhere' });
  const foreignEvent = await olga.post({ thread: 'elsewhere', text: 'over here' });
  const foreignRequest = await olga.request({ to: 'oscar', intent: 'deploy' });
  await olga.meetingJoin('retro');

  const world: World = {
    hub,
    alice,
    bob,
    carol,
    dave,
    olga,
    dmThread: dm.thread,
    dmEvent: dm.id,
    side: side.id,
    closedSide: closedSide.id,
    openRequest: openRequest.request_id,
    channelRequest: channelRequest.request_id,
    closedRequest: closedRequest.request_id,
    foreignThread: elsewhere.id,
    foreignEvent: foreignEvent.id,
    foreignRequest: foreignRequest.request_id,
  };
  return { th, world };
}
export interface Case {
  name: string;
  run: (w: World) => unknown;
  code: string;
  field: string;
  /** What the message must say, beyond the code and field. */
  message?: RegExp;
}

/** One refused call: `entry` is the entry point, `what` the bad input. */
export function refused(entry: string, what: string, run: (w: World) => unknown, code: string, field: string, message?: RegExp): Case {
  return { name: `bad input - ${entry}: ${what} is refused with ${code} naming ${field}`, run, code, field, ...(message ? { message } : {}) };
}

export const bad = (value: unknown): never => value as never;

/** A request from alice to bob, with `extra` merged in. */
export const ask = (extra: Record<string, unknown>) => (w: World) => w.alice.request(bad({ to: 'bob', intent: 'look', ...extra }));

/** Opens a live subscription and closes it again if it was (wrongly) accepted. */
export const liveWith = (a: Actor, filter: unknown): void => a.live(bad(filter)).close();

/**
 * For a bad-input test file: the hub and its World made before the file's
 * first test and closed after its last; `refusals` makes one test per case,
 * each checking the code, the field, the message and that nothing was stored.
 */
export function badInputWorldForFile(): { world: () => World; refusals: (cases: Case[]) => void } {
  let opened: { th: TestHub; world: World } | undefined;
  beforeAll(async () => {
    opened = await openWorld();
  });
  afterAll(async () => {
    await opened?.th.close();
  });
  const world = (): World => {
    if (!opened) throw new Error('the bad-input world is made in beforeAll; use it inside a test');
    return opened.world;
  };
  const expectRefused = async (c: Case): Promise<void> => {
    const w = world();
    const before = snapshot(w.hub);
    const error = await caught(() => c.run(w));
    expect(error, `${c.name}: threw ${String(error)}`).toBeInstanceOf(ParleyError);
    expect(`${error.code} naming ${error.field}`).toBe(`${c.code} naming ${c.field}`);
    expect(error.message.length).toBeGreaterThan(0);
    if (c.message) expect(error.message).toMatch(c.message);
    expect(snapshot(w.hub), 'nothing is stored on a refused call').toEqual(before);
  };
  return { world, refusals: (cases) => cases.forEach((c) => it(c.name, () => expectRefused(c))) };
}
