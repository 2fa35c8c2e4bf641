import { describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { hashToken } from '../../src/hub/tokens.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { caught, testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

describe('tokens', () => {
  it('tokens - a token names one participant in one session and is stored only as a hash', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'coder-1', session: 'proj' });
    await t.hub.join({ handle: 'coder-1', session: 'other' });
    const token = await t.hub.issueToken('coder-1', 'proj');
    expect(token).toMatch(/^pt_[A-Za-z0-9_-]{43}$/);
    const actor = t.hub.authenticate(token);
    expect(actor?.participant.handle).toBe('coder-1');
    expect(actor?.session.name).toBe('proj');
    const rows = t.hub.internals.store.db.prepare('SELECT * FROM tokens').all() as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]?.token_hash).toBe(hashToken(token));
  });

  it('tokens - unknown, malformed and revoked tokens authenticate nobody; rotation keeps only the new one', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'coder-1', session: 'proj' });
    const first = await t.hub.issueToken('coder-1', 'proj');
    const second = await t.hub.issueToken('coder-1', 'proj');
    expect(t.hub.authenticate(first)).toBeDefined();
    expect(t.hub.authenticate(second)).toBeDefined();
    const rotated = await t.hub.rotateToken('coder-1', 'proj');
    expect(t.hub.authenticate(first)).toBeUndefined();
    expect(t.hub.authenticate(second)).toBeUndefined();
    expect(t.hub.authenticate(rotated)?.participant.handle).toBe('coder-1');
    expect(t.hub.authenticate('pt_not-a-real-token')).toBeUndefined();
    expect(t.hub.authenticate('')).toBeUndefined();
    expect(t.hub.authenticate(rotated.slice(3))).toBeUndefined();
    // A closing hub does not call a good token unknown: it says it is closed, so clients retry.
    await t.close();
    expect((await caught(() => t.hub.authenticate(rotated))).code).toBe('HUB_CLOSED');
  });

  it('tokens - survive a restart, and a token cannot be had for a participant who has not joined', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'coder-1', session: 'proj' });
    const token = await t.hub.issueToken('coder-1', 'proj');
    expect((await caught(() => t.hub.issueToken('ghost', 'proj'))).code).toBe('NOT_FOUND');
    expect((await caught(() => t.hub.issueToken('coder-1', 'nowhere'))).code).toBe('NOT_FOUND');
    const home = t.home;
    await t.hub.close();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      expect(hub.authenticate(token)?.session.name).toBe('proj');
    } finally {
      await hub.close();
    }
  });

  it('tokens - a hub start revokes every coordinator run token left from before (a hub killed mid-run could not), and keeps participants\' own', async () => {
    const t = await hubs.open();
    await t.hub.join({ handle: 'coder-1', session: 'proj' });
    const own = await t.hub.issueToken('coder-1', 'proj');
    const run = await t.hub.issueToken('coder-1', 'proj', 'coordinator');
    expect(t.hub.authenticate(run)?.participant.handle).toBe('coder-1');
    const kinds = t.hub.internals.store.tokens.all().map((row) => [row.token_hash, row.kind]);
    expect(kinds).toEqual(expect.arrayContaining([[hashToken(own), 'participant'], [hashToken(run), 'coordinator']]));
    // Closing revokes nothing, as a hub killed mid-run would not: the next start must.
    const home = t.home;
    await t.hub.close();
    const hub = await openHub({ home, logger: createSilentLogger() });
    try {
      expect(hub.authenticate(run)).toBeUndefined();
      expect(hub.authenticate(own)?.participant.handle).toBe('coder-1');
      expect(hub.internals.store.tokens.all().map((row) => row.kind)).toEqual(['participant']);
    } finally {
      await hub.close();
    }
  });
});
