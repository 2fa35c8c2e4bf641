import { afterEach, describe, expect, it } from 'vitest';
import { caught, openTestHub, type TestHub } from '../helpers/hub.js';

let t: TestHub | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('rate limit', () => {
  it('rate limit - off by default', async () => {
    t = await openTestHub();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    for (let i = 0; i < 100; i++) await a.post({ thread: 'general', text: `m${i}` });
    expect(t.hub.stats().events).toBeGreaterThanOrEqual(100);
  });

  it('rate limit - past postsPerMinute a participant is refused with RATE_LIMITED, nothing stored, others unaffected, and it refills', async () => {
    let now = 1_000_000;
    t = await openTestHub({ now: () => now, config: { chat: { limits: { postsPerMinute: 3 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    for (let i = 0; i < 3; i++) await a.post({ thread: 'general', text: `m${i}` });
    const before = t.hub.stats().events;
    const error = await caught(() => a.post({ thread: 'general', text: 'one too many' }));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toContain('Retry in 20 s');
    expect((await caught(() => a.dm({ to: 'bob', text: 'sneaky' }))).code).toBe('RATE_LIMITED');
    expect(t.hub.stats().events).toBe(before);
    await expect(b.post({ thread: 'general', text: 'bob is fine' })).resolves.toMatchObject({ seq: before + 1 });
    now += 20_000;
    await expect(a.post({ thread: 'general', text: 'after the refill' })).resolves.toMatchObject({ seq: before + 2 });
  });
});
