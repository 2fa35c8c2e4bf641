import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SignatureChecks, type SignatureCheck } from '../../src/hub/signature-checks.js';
import { rawPublicKeyOf } from '../../src/trust/node-id.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { fixturePath } from '../fixtures/child-process.js';
import { pathToFileURL } from 'node:url';

/** `n` signed byte strings by two keys; the ones at `bad` have a signature of other bytes. */
function checks(n: number, bad: number[]): SignatureCheck[] {
  const keys = [crypto.generateKeyPairSync('ed25519'), crypto.generateKeyPairSync('ed25519')];
  return Array.from({ length: n }, (_, i) => {
    const key = keys[i % 2]!;
    const bytes = Buffer.from(`event ${i} `.repeat(1 + (i % 7)));
    const sig = crypto.sign(null, bad.includes(i) ? Buffer.from('something else') : bytes, key.privateKey);
    return { bytes, key: rawPublicKeyOf(key.publicKey), sig };
  });
}

const expected = (n: number, bad: number[]): boolean[] => Array.from({ length: n }, (_, i) => !bad.includes(i));

describe('signature checks off the main thread', () => {
  it('signature checks - a page is checked on the worker, each signature by its own key; a short one on the main thread; the same answers', async () => {
    const logger = createMemoryLogger();
    const checker = new SignatureChecks(logger);
    try {
      expect(await checker.check(checks(40, [3, 17, 39]))).toEqual(expected(40, [3, 17, 39]));
      // Two pages at once each get their own answer.
      const [first, second] = await Promise.all([checker.check(checks(20, [0])), checker.check(checks(30, [29]))]);
      expect(first).toEqual(expected(20, [0]));
      expect(second).toEqual(expected(30, [29]));
      expect(await checker.check(checks(3, [1]))).toEqual(expected(3, [1]));
      expect(await checker.check([])).toEqual([]);
      expect(logger.records.filter((r) => r.level === 'error')).toEqual([]);
    } finally {
      await checker.close();
    }
  });

  it('signature checks - a worker that cannot start: the checks run on the main thread, said once, with the same answers; after close too', async () => {
    const logger = createMemoryLogger();
    const checker = new SignatureChecks(logger, pathToFileURL(fixturePath('no-such-worker.mjs')));
    expect(await checker.check(checks(20, [5]))).toEqual(expected(20, [5]));
    expect(await checker.check(checks(20, [6]))).toEqual(expected(20, [6]));
    expect(logger.records.filter((r) => r.msg.startsWith('the signature-check worker failed')).length).toBe(1);
    await checker.close();
    expect(await checker.check(checks(20, [7]))).toEqual(expected(20, [7]));
  });
});
