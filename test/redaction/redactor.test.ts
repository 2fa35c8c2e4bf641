import { describe, expect, it, vi } from 'vitest';
import { TRUNCATION_MARKER } from '../../src/config/defaults.js';
import { applySpans, createRedactor, mergeSpans, type RedactionOptions } from '../../src/redaction/redactor.js';
import type { SecretScanner } from '../../src/redaction/scanner.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { generatedPrivateKeys, githubPat, NOTE, realRedactor } from './fixtures.js';

function redactorWith(scanner: SecretScanner, overrides: Partial<RedactionOptions> = {}) {
  const logger = createMemoryLogger();
  const defaults = { maxMessageChars: 4096, scannerEnabled: true, scannerTimeoutMs: 800, logger, scanner };
  const redactor = createRedactor({ ...defaults, ...overrides });
  return { redactor, logger };
}

describe('applySpans', () => {
  it('applySpans - replaces each span and keeps the rest', () => {
    const spans = [
      { start: 2, end: 8 },
      { start: 11, end: 16 },
    ];
    expect(applySpans('a SECRET b TOKEN c', spans)).toBe('a [redacted] b [redacted] c');
  });

  it('applySpans - overlapping and adjacent spans become one placeholder', () => {
    expect(applySpans('xxAAAABBBByy', [{ start: 6, end: 10 }, { start: 2, end: 6 }, { start: 3, end: 5 }])).toBe('xx[redacted]yy');
  });

  it('applySpans - spans are clamped to the text and empty ones ignored', () => {
    expect(applySpans('abc', [{ start: -5, end: 1 }, { start: 2, end: 2 }, { start: 2, end: 99 }])).toBe('[redacted]b[redacted]');
    expect(applySpans('abc', [])).toBe('abc');
  });

  it('mergeSpans - sorts, merges and clamps', () => {
    expect(mergeSpans([{ start: 8, end: 12 }, { start: 0, end: 2 }, { start: 2, end: 4 }, { start: 10, end: 30 }], 20)).toEqual([
      { start: 0, end: 4 },
      { start: 8, end: 20 },
    ]);
  });
});

describe('redactor', () => {
  it('redactor - the note is appended exactly once, after the redacted text', async () => {
    const text = 'one TOKEN1 two TOKEN2';
    const scanner: SecretScanner = {
      scan: async () => [
        { start: 4, end: 10, ruleId: 'test' },
        { start: 15, end: 21, ruleId: 'test' },
      ],
    };
    const { redactor } = redactorWith(scanner, { maxMessageChars: 100 });
    // The scanner is only asked when the prefilter hits; this text has no secret shape.
    expect((await redactor.apply(text)).redacted).toBe(false);
    const withShape = `${text} npm_`;
    expect(await redactor.apply(withShape)).toEqual({
      text: `one [redacted] two [redacted] npm_${NOTE}`,
      truncated: false,
      redacted: true,
      scannerError: false,
    });
  });

  it('redactor - truncation happens first: a secret beyond maxMessageChars is cut away, no note', async () => {
    const { redactor } = realRedactor({ maxMessageChars: 80 });
    const text = `${'a'.repeat(100)} ${githubPat()}`;
    const result = await redactor.apply(text);
    expect(result).toEqual({
      text: 'a'.repeat(80 - TRUNCATION_MARKER.length) + TRUNCATION_MARKER,
      truncated: true,
      redacted: false,
      scannerError: false,
    });
  });

  it('redactor - a key block cut in the middle by truncation is redacted from its BEGIN, marker kept', async () => {
    const pem = generatedPrivateKeys()['rsa pkcs1'] ?? '';
    const prefix = 'my key is\n';
    const max = prefix.length + 200;
    const { redactor } = realRedactor({ maxMessageChars: max });
    const result = await redactor.apply(`${prefix}${pem}\nbye`);
    expect(result).toEqual({
      text: `${prefix}[redacted]${TRUNCATION_MARKER}${NOTE}`,
      truncated: true,
      redacted: true,
      scannerError: false,
    });
  });

  it('redactor - a secret before the cut is redacted in the truncated text', async () => {
    const token = githubPat();
    const { redactor } = realRedactor({ maxMessageChars: 100 });
    const result = await redactor.apply(`t ${token} ${'z'.repeat(200)}`);
    const body = `t ${token} ${'z'.repeat(200)}`.slice(0, 100 - TRUNCATION_MARKER.length);
    expect(result.text).toBe(`${body.replace(token, '[redacted]')}${TRUNCATION_MARKER}${NOTE}`);
    expect(result).toMatchObject({ truncated: true, redacted: true });
  });

  it('redactor - fail-open: a scanner that throws leaves the text unredacted, flags and logs it', async () => {
    const token = githubPat();
    const text = `deploy with ${token}`;
    const { redactor, logger } = redactorWith({ scan: async () => Promise.reject(new Error('rule crashed')) });
    expect(await redactor.apply(text)).toEqual({ text, truncated: false, redacted: false, scannerError: true });
    expect(logger.records).toEqual([{ level: 'warn', msg: expect.any(String), scannerError: true, reason: 'rule crashed' }]);
    expect(JSON.stringify(logger.records)).not.toContain(token);
  });

  it('redactor - fail-open: a scanner that throws synchronously is handled the same way', async () => {
    const text = `deploy with ${githubPat()}`;
    const { redactor, logger } = redactorWith({
      scan: () => {
        throw new TypeError('not ready');
      },
    });
    expect(await redactor.apply(text)).toEqual({ text, truncated: false, redacted: false, scannerError: true });
    expect(logger.records[0]).toMatchObject({ level: 'warn', scannerError: true, reason: 'not ready' });
  });

  it('redactor - fail-open: a scanner that never answers times out (20 ms) and the text is kept', async () => {
    const text = `deploy with ${githubPat()}`;
    const { redactor, logger } = redactorWith({ scan: () => new Promise(() => undefined) }, { scannerTimeoutMs: 20 });
    // On a fake clock: kept once its 20 ms are spent, not before.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let result: Awaited<ReturnType<typeof redactor.apply>> | undefined;
    try {
      void redactor.apply(text).then((done) => (result = done));
      await vi.advanceTimersByTimeAsync(19);
      expect(result).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
    } finally {
      vi.useRealTimers();
    }
    expect(result).toEqual({ text, truncated: false, redacted: false, scannerError: true });
    expect(logger.records).toEqual([
      { level: 'warn', msg: expect.any(String), scannerError: true, reason: 'secret scanner timed out after 20 ms' },
    ]);
  });

  it('redactor - fail-open keeps the truncation', async () => {
    const text = `${githubPat()} ${'y'.repeat(100)}`;
    const { redactor } = redactorWith({ scan: async () => Promise.reject(new Error('x')) }, { maxMessageChars: 60 });
    expect(await redactor.apply(text)).toEqual({
      text: text.slice(0, 60 - TRUNCATION_MARKER.length) + TRUNCATION_MARKER,
      truncated: true,
      redacted: false,
      scannerError: true,
    });
  });

  it('redactor - scanner disabled: a secret is stored untouched and the scanner is never asked', async () => {
    let calls = 0;
    const scanner: SecretScanner = {
      scan: async () => {
        calls += 1;
        return [{ start: 0, end: 1, ruleId: 'test' }];
      },
    };
    const text = `token ${githubPat()}`;
    const { redactor, logger } = redactorWith(scanner, { scannerEnabled: false });
    expect(await redactor.apply(text)).toEqual({ text, truncated: false, redacted: false, scannerError: false });
    expect(calls).toBe(0);
    expect(logger.records).toEqual([]);
  });

  it('redactor - without a scanner option the real secretlint scanner is used', async () => {
    const redactor = createRedactor({
      maxMessageChars: 4096,
      scannerEnabled: true,
      scannerTimeoutMs: 5_000,
      logger: createMemoryLogger(),
    });
    const first = await redactor.apply(`a ${githubPat()}`);
    const second = await redactor.apply(`b ${githubPat()}`);
    expect([first.text, second.text]).toEqual([`a [redacted]${NOTE}`, `b [redacted]${NOTE}`]);
  });
});
