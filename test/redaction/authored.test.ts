import { describe, expect, it, vi } from 'vitest';
import { jsonDepthExceeds, redactAuthored } from '../../src/redaction/authored.js';
import { createRedactor } from '../../src/redaction/redactor.js';
import type { SecretScanner } from '../../src/redaction/scanner.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { awsAccessKeyId, awsSecretAccessKey, generatedPrivateKeys, githubPat, jwt, realRedactor, slackBotToken } from './fixtures.js';

const DEPTH = 32;

describe('authored values', () => {
  it('authored - every string at any depth is redacted in place; other values and the shape are kept', async () => {
    const { redactor } = realRedactor();
    const [ghp, slack, token, pem] = [githubPat(), slackBotToken(), jwt(), generatedPrivateKeys()['ed25519 pkcs8']];
    const params = {
      repo: 'acme/parley',
      retries: 3,
      dry_run: false,
      owner: null,
      env: { GH_TOKEN: ghp, nested: [{ note: `ping ${slack} please` }, [`Bearer ${token}`, 42]] },
      key: pem,
    };
    const result = await redactAuthored(redactor, params, DEPTH);
    expect(result).toEqual({
      value: {
        repo: 'acme/parley',
        retries: 3,
        dry_run: false,
        owner: null,
        env: { GH_TOKEN: '[redacted]', nested: [{ note: 'ping [redacted] please' }, ['Bearer [redacted]', 42]] },
        key: '[redacted]',
      },
      redacted: true,
      scannerError: false,
    });
    // No note inside the data, nothing truncated, and the input is left as it was.
    expect(JSON.stringify(result.value)).not.toContain('Note:');
    expect(params.env.GH_TOKEN).toBe(ghp);
  });

  it('authored - a bare string and an array of strings (a title, tags) are walked the same way', async () => {
    const { redactor } = realRedactor();
    const ghp = githubPat();
    expect(await redactAuthored(redactor, `release ${ghp}`, DEPTH)).toEqual({ value: 'release [redacted]', redacted: true, scannerError: false });
    expect((await redactAuthored(redactor, ['ops', ghp], DEPTH)).value).toEqual(['ops', '[redacted]']);
    expect(await redactAuthored(redactor, undefined, DEPTH)).toEqual({ value: undefined, redacted: false, scannerError: false });
  });

  it('authored - a value is scanned with its key, so a secret known only by its label is found', async () => {
    const { redactor } = realRedactor();
    const secret = awsSecretAccessKey();
    // Alone, forty base64 characters are no secret to any rule...
    expect((await redactor.apply(secret)).redacted).toBe(false);
    // ...but under its key they are, and only the value is replaced.
    const result = await redactAuthored(redactor, { aws: { aws_access_key_id: awsAccessKeyId(), aws_secret_access_key: secret } }, DEPTH);
    expect(result.value).toEqual({ aws: { aws_access_key_id: '[redacted]', aws_secret_access_key: '[redacted]' } });
  });

  it('authored - keys are scanned too; keys redacted alike stay distinct', async () => {
    const { redactor } = realRedactor();
    const [a, b] = [githubPat(), githubPat()];
    const result = await redactAuthored(redactor, { [a]: 'ci', [b]: { scope: 'repo' }, plain: 1 }, DEPTH);
    expect(result.value).toEqual({ '[redacted]': 'ci', '[redacted] (2)': { scope: 'repo' }, plain: 1 });
    expect(result.redacted).toBe(true);
  });

  it('authored - a "__proto__" key stays an own property and changes no prototype', async () => {
    const { redactor } = realRedactor();
    const value = JSON.parse(`{"__proto__": {"polluted": "${githubPat()}"}, "x": "y"}`) as Record<string, unknown>;
    const result = await redactAuthored(redactor, value, DEPTH);
    const out = result.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'x']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: '[redacted]' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('authored - clean values come back as they are, without a scan', async () => {
    let scans = 0;
    const scanner: SecretScanner = {
      scan: async () => {
        scans += 1;
        return [];
      },
    };
    const redactor = createRedactor({ maxMessageChars: 4096, scannerEnabled: true, scannerTimeoutMs: 800, logger: createMemoryLogger(), scanner });
    const params = { files: ['src/a.ts', 'src/b.ts'], depth: 2, note: 'review the store layer, version 1.2.3' };
    const result = await redactAuthored(redactor, params, DEPTH);
    expect(result).toEqual({ value: params, redacted: false, scannerError: false });
    expect(result.value).toBe(params);
    expect(scans).toBe(0);
  });

  it('authored - a long string is neither truncated nor given a note', async () => {
    const { redactor } = realRedactor({ maxMessageChars: 100 });
    const long = `${'x'.repeat(5000)} ${githubPat()}`;
    const result = await redactAuthored(redactor, { log: long }, DEPTH);
    expect(result.value).toEqual({ log: `${'x'.repeat(5000)} [redacted]` });
  });

  it('authored - one scanner time budget covers the whole value; failing open keeps what could not be scanned', async () => {
    const logger = createMemoryLogger();
    const scanner: SecretScanner = { scan: () => new Promise(() => undefined) };
    const redactor = createRedactor({ maxMessageChars: 4096, scannerEnabled: true, scannerTimeoutMs: 30, logger, scanner });
    const params = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `token ${githubPat()}`]));
    // On a fake clock: the whole value is done when its one 30 ms budget is spent, not 50 budgets later.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let result: Awaited<ReturnType<typeof redactAuthored>> | undefined;
    try {
      void redactAuthored(redactor, params, DEPTH).then((done) => (result = done));
      await vi.advanceTimersByTimeAsync(29);
      expect(result).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
    } finally {
      vi.useRealTimers();
    }
    expect(result).toEqual({ value: params, redacted: false, scannerError: true });
    expect(logger.records).toEqual([{ level: 'warn', msg: expect.any(String), scannerError: true, reason: 'secret scanner timed out after 30 ms' }]);
  });

  it('authored - what was found before the scanner failed is still redacted', async () => {
    const ghp = githubPat();
    let calls = 0;
    const scanner: SecretScanner = {
      scan: async (text) => {
        calls += 1;
        if (calls > 1) throw new Error('rule crashed');
        const at = text.indexOf(ghp);
        return [{ start: at, end: at + ghp.length, ruleId: 'test' }];
      },
    };
    const redactor = createRedactor({ maxMessageChars: 4096, scannerEnabled: true, scannerTimeoutMs: 800, logger: createMemoryLogger(), scanner });
    const later = githubPat();
    const result = await redactAuthored(redactor, [ghp, later], DEPTH);
    expect(result).toEqual({ value: ['[redacted]', later], redacted: true, scannerError: true });
  });

  it('authored - depth: nesting up to the limit is walked, deeper is refused by the check and never recursed into', async () => {
    const nest = (levels: number): unknown => (levels === 0 ? githubPat() : { inner: nest(levels - 1) });
    expect(jsonDepthExceeds('text', 0)).toBe(false);
    expect(jsonDepthExceeds({ a: 1 }, 1)).toBe(false);
    expect(jsonDepthExceeds({ a: [1] }, 1)).toBe(true);
    expect(jsonDepthExceeds(nest(DEPTH), DEPTH)).toBe(false);
    expect(jsonDepthExceeds(nest(DEPTH + 1), DEPTH)).toBe(true);
    // A value far deeper than the stack allows is still answered, by looking only DEPTH levels down.
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonDepthExceeds(deep, DEPTH)).toBe(true);
    const { redactor } = realRedactor();
    expect(JSON.stringify((await redactAuthored(redactor, nest(DEPTH), DEPTH)).value)).toContain('[redacted]');
    await expect(redactAuthored(redactor, nest(DEPTH + 1), DEPTH)).rejects.toThrow(RangeError);
  });
});
