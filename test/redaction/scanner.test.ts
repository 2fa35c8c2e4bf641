import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createSecretlintScanner } from '../../src/redaction/scanner.js';
import { awsAccessKeyId, awsSecretAccessKey, base62, githubPat, npmToken } from './fixtures.js';

const GITHUB_RULE = '@secretlint/secretlint-rule-github';

describe('scanner', () => {
  const scanner = createSecretlintScanner();

  it('scanner - spans are UTF-16 offsets into the scanned string, astral characters included', async () => {
    const token = githubPat();
    const text = `😀🎉 ünïcödé ${token} 👍`;
    const spans = await scanner.scan(text);
    expect(spans).toEqual([{ start: text.indexOf(token), end: text.indexOf(token) + token.length, ruleId: GITHUB_RULE }]);
    expect(text.slice(spans[0]?.start, spans[0]?.end)).toBe(token);
  });

  it('scanner - a leading BOM does not shift the spans (secretlint strips it)', async () => {
    const token = npmToken();
    const text = `\uFEFFtoken ${token}`;
    const spans = await scanner.scan(text);
    expect(spans.map((span) => text.slice(span.start, span.end))).toEqual([token]);
  });

  it('scanner - the AWS secret access key span covers the whole secret, not the label', async () => {
    // secretlint's own range starts at the label and is as long as the secret,
    // which would leave the secret's tail visible.
    const secret = awsSecretAccessKey();
    const text = `AWS_SECRET_ACCESS_KEY=${secret}`;
    const spans = await scanner.scan(text);
    expect(spans.map((span) => text.slice(span.start, span.end))).toEqual([secret]);
  });

  it('scanner - the npmrc _authToken span covers the token value', async () => {
    const value = `${base62(8)}-${base62(4)}-${base62(12)}`;
    const text = `//registry.npmjs.org/:_authToken=${value}`;
    const spans = await scanner.scan(text);
    expect(spans.map((span) => text.slice(span.start, span.end))).toEqual([value]);
  });

  it('scanner - AWS access key ids are scanned (enableIDScanRule is on)', async () => {
    const id = awsAccessKeyId();
    const spans = await scanner.scan(`key ${id}`);
    expect(spans).toEqual([{ start: 4, end: 4 + id.length, ruleId: '@secretlint/secretlint-rule-aws' }]);
  });

  it('scanner - clean text gives no spans', async () => {
    expect(await scanner.scan('nothing to see here: https://example.com/x?y=1')).toEqual([]);
    expect(await scanner.scan('')).toEqual([]);
  });

  it('scanner - concurrent scans do not mix their results', async () => {
    const tokens = Array.from({ length: 20 }, () => githubPat());
    const results = await Promise.all(tokens.map((token, i) => scanner.scan(`${'.'.repeat(i)} ${token}`)));
    expect(results.map((spans, i) => spans.map((span) => span.start - i))).toEqual(tokens.map(() => [1]));
  });

  it('scanner - secretlint leaves no performance marks behind (its profiler would leak)', async () => {
    for (let i = 0; i < 20; i++) await scanner.scan(`x ${githubPat()}`);
    const secretlintMarks = performance.getEntriesByType('mark').filter((entry) => entry.name.startsWith('@core>'));
    expect(secretlintMarks).toEqual([]);
  });
});
