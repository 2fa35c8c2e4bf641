import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findJwts, JWT_RULE_ID } from '../../src/redaction/jwt-rule.js';
import { candidateRules, mightContainSecret } from '../../src/redaction/prefilter.js';
import { createSecretlintScanner } from '../../src/redaction/scanner.js';
import { base62, jwt, NOTE, realRedactor } from './fixtures.js';

const b64url = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWE in compact form: five segments, the encrypted key empty for `alg: dir`. */
function jwe(alg: 'RSA-OAEP' | 'dir'): string {
  const key = alg === 'dir' ? '' : randomBytes(256).toString('base64url');
  return [b64url({ alg, enc: 'A256GCM' }), key, randomBytes(12).toString('base64url'), randomBytes(80).toString('base64url'), randomBytes(16).toString('base64url')].join('.');
}

describe('jwt rule', () => {
  it('jwt - a signed token is redacted whole, header to signature, wherever it appears', async () => {
    const { redactor } = realRedactor();
    const token = jwt();
    const cases = [
      [`Authorization: Bearer ${token}`, 'Authorization: Bearer [redacted]'],
      [`curl 'https://api.example.com/v1/me?access_token=${token}&x=1'`, "curl 'https://api.example.com/v1/me?access_token=[redacted]&x=1'"],
      [`the session token is ${token}.`, 'the session token is [redacted].'],
      [`{"id_token":"${token}"}`, '{"id_token":"[redacted]"}'],
    ] as const;
    for (const [text, expected] of cases) {
      expect(mightContainSecret(text)).toBe(true);
      expect(await redactor.apply(text)).toEqual({ text: expected + NOTE, truncated: false, redacted: true, scannerError: false });
    }
  });

  it('jwt - other header spellings and forms: RS256 with kid, spaced JSON, unsigned (alg none), JWE with and without a key', async () => {
    const { redactor } = realRedactor();
    const spaced = `${b64url('{ "alg": "ES256", "typ": "JWT" }')}.${b64url({ sub: base62(8) })}.${randomBytes(64).toString('base64url')}`;
    const unsigned = `${b64url({ alg: 'none' })}.${b64url({ sub: base62(8), admin: true })}.`;
    const tokens = [jwt({ alg: 'RS256', kid: base62(16), typ: 'JWT' }), spaced, unsigned, jwe('RSA-OAEP'), jwe('dir')];
    for (const token of tokens) {
      const result = await redactor.apply(`token=${token} end`);
      expect(result.text).toBe(`token=[redacted] end${NOTE}`);
    }
  });

  it('jwt - the scanner reports it under the JWT rule, and the prefilter sends it to that rule', async () => {
    const token = jwt();
    const text = `x ${token} y`;
    expect(candidateRules(text)).toEqual([JWT_RULE_ID]);
    const spans = await createSecretlintScanner().scan(text);
    expect(spans).toEqual([{ start: 2, end: 2 + token.length, ruleId: JWT_RULE_ID }]);
  });

  it('jwt - dotted words that are not JWTs are left alone', async () => {
    const { redactor } = realRedactor();
    const headerWithoutAlg = `${b64url({ typ: 'JWT', kid: base62(8) })}.${b64url({ sub: 'x' })}.${base62(20)}`;
    const notJson = `eyJ${base62(30)}.${base62(20)}.${base62(20)}`;
    const texts = [
      'a.b.c',
      'bump to 1.2.3, then v10.4.2-rc.1',
      'read config.key.name and obj.they.eyes.color',
      'com.example.eyeglasses.Service.start()',
      'see docs.github.com/en/rest.overview.',
      // These look enough like a JWT to be scanned; the header check clears them.
      'eyewitness-reports.example.com and eyebrow.raise.now',
      headerWithoutAlg,
      notJson,
    ];
    for (const text of texts) {
      expect(findJwts(text)).toEqual([]);
      expect(await redactor.apply(text)).toEqual({ text, truncated: false, redacted: false, scannerError: false });
    }
    // Prose and code with dots do not even reach the scanner.
    expect(texts.slice(0, 5).filter(mightContainSecret)).toEqual([]);
  });

  it('jwt - a token starts at a boundary or after a URL-encoded character, not inside a longer run', () => {
    const token = jwt();
    expect(findJwts(`abc:${token}`)).toEqual([{ start: 4, end: 4 + token.length }]);
    expect(findJwts(`%7B%22t%22%3A%22${token}%22%7D`)).toEqual([{ start: 16, end: 16 + token.length }]);
    expect(findJwts(`abc${token}`)).toEqual([]);
    expect(findJwts(`abc-${token}`)).toEqual([]);
    // A dotted run whose first segment is no header still yields the JWT after it.
    expect(findJwts(`eyJ${base62(20)}.${token}`)).toEqual([{ start: 24, end: 24 + token.length }]);
  });

  it('jwt - the search stays linear on long runs of header-like text', () => {
    const text = `${'ey'.repeat(30_000)}.${'ew'.repeat(30_000)}.x.${'eyJhbGciOiJI.'.repeat(5_000)}`;
    const started = performance.now();
    expect(findJwts(text)).toEqual([]);
    expect(mightContainSecret(text)).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
