import { describe, expect, it } from 'vitest';
import type { Hub } from '../../src/hub/hub.js';
import type { LiveItem } from '../../src/hub/live-bus.js';
import { testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

/**
 * A home whose hub later excludes a kind (or turns chat off): what the
 * participant had been sent through chat before — a subscription to the
 * default channel, queued mentions, DMs and prods — no longer reaches it.
 * Requests addressed to it still do.
 */
const hubs = testHubsClosedAfterEach();

/** A hub whose home holds chat for @arch, sent while nothing excluded it, and one request to it (its event id). */
async function chatBeforeTheChange(): Promise<{ before: TestHub; requestId: string }> {
  const before = await hubs.open();
  const hub = before.hub;
  await hub.join({ handle: 'human', session: 'proj', profile: { kind: 'human' } });
  const coder = await hub.join({ handle: 'coder', session: 'proj' });
  await hub.join({ handle: 'arch', session: 'proj', profile: { roles: ['architect'] } });
  await coder.post({ thread: 'general', text: 'the schema is settled' });
  await coder.post({ thread: 'general', text: '@arch what do you think?' });
  await coder.dm({ to: 'arch', text: 'psst' });
  await hub.actor('human', 'proj').prod('general', ['arch']);
  return { before, requestId: (await coder.request({ to: 'arch', intent: 'rate the schema' })).id };
}

/** That home's hub closed and opened again with `config`. */
async function reopen(before: TestHub, config: object): Promise<Hub> {
  return (await hubs.reopen(before, { config })).hub;
}

/** Reads live items until the first log event, returning it. */
async function firstEvent(items: AsyncIterable<LiveItem>): Promise<LiveItem & { kind: 'event' }> {
  for await (const item of items) if (item.kind === 'event') return item;
  throw new Error('the stream ended without an event');
}

describe('chat closed after the fact', () => {
  for (const [name, config] of [
    ['an excluded kind', { mcp: { excludedKinds: ['architect'] } }],
    ['chat.enabled=false', { chat: { enabled: false } }],
  ] as const) {
    it(`chat closed - with ${name}, the chat queued before reaches neither inbox, wait, deliveries nor the live stream; the request does`, async () => {
      const { before, requestId } = await chatBeforeTheChange();
      const hub = await reopen(before, config);
      const arch = hub.actor('arch', 'proj');
      const onlyTheRequest = [expect.objectContaining({ reason: 'request', event: expect.objectContaining({ id: requestId }) })];

      expect((await arch.peek()).items).toEqual(onlyTheRequest);
      expect(await arch.deliveries('pending')).toEqual(onlyTheRequest);
      const live = arch.live({ inbox: true, since: 0, ephemeral: false });
      hubs.defer(() => live.close());
      expect((await firstEvent(live)).event.id).toBe(requestId);
      // Waiting returns at once with the request, and takes it: the chat is not in it, nor left behind.
      const woke = await arch.wait({ timeout_ms: 5000 });
      expect(woke.items).toEqual(onlyTheRequest);
      expect((await arch.peek()).items).toEqual([]);
      if (name === 'an excluded kind') {
        // New chat around it, where it is still subscribed from before, does not reach it either.
        await hub.actor('coder', 'proj').post({ thread: 'general', text: 'another thought @arch' });
        expect((await arch.peek()).items).toEqual([]);
      }
    });
  }
});
