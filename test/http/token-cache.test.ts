import { describe, expect, it } from 'vitest';
import { TokenCache } from '../../src/http/token-cache.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

/** The per-token memory of who a token names: used again while valid, forgotten the moment it is revoked. */
const hubs = testHubsClosedAfterEach();

describe('token cache', () => {
  it('a token is looked up once and its holder used again; revoking it forgets it and refuses it', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'alice', session: 's' });
    const token = await t.hub.issueToken('alice', 's');
    const cache = new TokenCache(t.hub);
    const first = cache.holder(token);
    expect(first?.actor.participant.handle).toBe('alice');
    expect(first?.actor.session.name).toBe('s');
    expect(cache.holder(token)).toBe(first);
    expect(cache.size).toBe(1);
    expect(await t.hub.revokeToken(token)).toBe(true);
    expect(first?.credential.revoked.aborted).toBe(true);
    expect(cache.size).toBe(0);
    expect(cache.holder(token)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('rotation refuses the old token at once and the new one names the same participant', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'bob', session: 's' });
    const old = await t.hub.issueToken('bob', 's');
    const cache = new TokenCache(t.hub);
    expect(cache.holder(old)?.actor.participant.handle).toBe('bob');
    const fresh = await t.hub.rotateToken('bob', 's');
    expect(cache.holder(old)).toBeUndefined();
    expect(cache.holder(fresh)?.actor.participant.handle).toBe('bob');
    expect(cache.size).toBe(1);
  });

  it('an unknown token is not remembered, and the memory stays within its limit', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'carol', session: 's' });
    const tokens = [await t.hub.issueToken('carol', 's'), await t.hub.issueToken('carol', 's'), await t.hub.issueToken('carol', 's')];
    const cache = new TokenCache(t.hub, 2);
    expect(cache.holder('pt_not-a-token')).toBeUndefined();
    expect(cache.size).toBe(0);
    for (const token of tokens) expect(cache.holder(token)?.actor.participant.handle).toBe('carol');
    expect(cache.size).toBeLessThanOrEqual(2);
    for (const token of tokens) expect(cache.holder(token)?.actor.participant.handle).toBe('carol');
  });
});
