import { describe, expect, it } from 'vitest';
import { tempHomesRemovedAfterEach, testHubsClosedAfterEach } from '../helpers/hub.js';
import { refusal } from '../helpers/refusal.js';
import { load } from './config-files.js';

const home = tempHomesRemovedAfterEach('parley-config-');
const hubs = testHubsClosedAfterEach();

describe('store.checkpoint config', () => {
  it('config - the WAL checkpointer takes its limits from store.checkpoint, and the hub hands them to the store', async () => {
    const config = load({ home: home(), env: { PARLEY_STORE_CHECKPOINT_WAL_SIZE_LIMIT_BYTES: String(2 * 1024 * 1024) } });
    expect(config.store.checkpoint.walSizeLimitBytes).toBe(2 * 1024 * 1024);
    const t = await hubs.open({ config: { store: { checkpoint: { walSizeLimitBytes: 3 * 1024 * 1024 } } } });
    expect(t.hub.internals.store.db.pragma('journal_size_limit', { simple: true })).toBe(3 * 1024 * 1024);
    expect(t.hub.internals.store.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  });

  it('config - a checkpoint limit out of range is refused naming the key, before the hub opens', () => {
    const tooSmall = refusal(() => load({ home: home(), flags: { 'store.checkpoint.fallbackBytes': '4096' } }), 'CONFIG_INVALID');
    expect(tooSmall.field).toBe('store.checkpoint.fallbackBytes');
    const notNumber = refusal(() => load({ home: home(), env: { PARLEY_STORE_CHECKPOINT_THRESHOLD_PAGES: 'many' } }), 'CONFIG_INVALID');
    expect(notNumber.field).toBe('store.checkpoint.thresholdPages');
  });
});
