import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mightContainSecret } from '../../src/redaction/prefilter.js';
import { BASE62, realRedactor } from './fixtures.js';

/** Exactly `length` characters drawn from `alphabet`. */
function chars(alphabet: string, length: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...alphabet), minLength: length, maxLength: length });
}

const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const BASE64 = `${BASE62}+/`;
/** secretlint ignores all-same-character passwords ("aaaa") as placeholders. */
const notRepetitive = (s: string): boolean => !/^(.)\1*$/.test(s);

/** Generated secrets, one arbitrary per token shape; each is what must disappear. */
const secret: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom('ghp', 'gho', 'ghu', 'ghs', 'ghr'), chars(BASE62, 36)).map(([p, body]) => `${p}_${body}`),
  fc.tuple(fc.constantFrom('AKIA', 'ASIA', 'AROA'), chars(UPPER_DIGITS, 16)).map(([p, body]) => p + body),
  chars(BASE62, 36).map((body) => `np${'m_'}${body}`),
  chars(BASE62, 20).map((body) => `gl${'pat-'}${body}`),
  fc.tuple(chars('0123456789', 11), chars(BASE62, 24)).map(([a, b]) => `xo${'xp-'}${a}-${b}`),
  chars(BASE62, 34).map((body) => `hf_${body.replace(/[0-9]/g, 'q')}`),
  fc
    .tuple(chars('abcdefghijk', 6), chars(BASE62, 12).filter(notRepetitive))
    .map(([user, pw]) => `https://${user}:${pw}@build.example.net`),
  fc
    .tuple(fc.constantFrom('', 'RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED '), chars(BASE64, 64))
    .map(([label, body]) => `-----BEGIN ${label}PRIVATE KEY-----\n${body}\n-----END ${label}PRIVATE KEY-----`),
);

describe('property', () => {
  it('property - a generated secret inside random text passes the prefilter and never reaches the output', async () => {
    const { redactor } = realRedactor({ maxMessageChars: 100_000 });
    const randomText = fc.string({ unit: 'grapheme', maxLength: 120 });
    await fc.assert(
      fc.asyncProperty(randomText, secret, randomText, async (before, generated, after) => {
        const text = `${before} ${generated} ${after}`;
        expect(mightContainSecret(text)).toBe(true);
        const result = await redactor.apply(text);
        expect(result.redacted).toBe(true);
        expect(result.text).not.toContain(generated);
      }),
      { numRuns: 300 },
    );
  });

  it('property - text without a secret shape comes back unchanged', async () => {
    const { redactor } = realRedactor({ maxMessageChars: 100_000 });
    const word = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 9 });
    await fc.assert(
      fc.asyncProperty(fc.array(word, { maxLength: 60 }), async (words) => {
        const text = words.join(' ');
        const result = await redactor.apply(text);
        expect(result).toEqual({ text, truncated: false, redacted: false, scannerError: false });
      }),
      { numRuns: 200 },
    );
  });
});
