import { describe, expect, it } from 'vitest';
import { mightContainSecret } from '../../src/redaction/prefilter.js';
import type { SecretScanner } from '../../src/redaction/scanner.js';
import { createMemoryLogger } from '../../src/util/logger.js';
import { createRedactor } from '../../src/redaction/redactor.js';
import { realRedactor } from './fixtures.js';

const PROSE = [
  'Morning! I pushed the refactor of the store layer; can you review PR #412 before lunch?',
  "The flaky test was a race between the watcher and the writer. I added a barrier and it's been green for 200 runs.",
  'Next step: benchmark the inbox query with 10k threads, then decide whether we need the covering index.',
  'Heads-up: the staging deploy is paused until the migration finishes (ETA ~20 min).',
  'I disagree with the proposal: the secret to a good API is fewer knobs, not more.',
];

const CODE = [
  'const client = new Client({ baseUrl: process.env.API_URL, timeoutMs: 5_000 });\nawait client.connect();',
  'git clone git@github.com:acme/parley.git && cd parley && npm ci && npm test',
  '```sql\nSELECT id, title FROM threads WHERE channel = ? ORDER BY seq DESC LIMIT 50;\n```',
  'def retry(fn, attempts=3):\n    for i in range(attempts):\n        try:\n            return fn()\n        except IOError:\n            time.sleep(2 ** i)',
  '{"name": "parley", "version": "0.1.0", "scripts": {"test": "vitest run"}}',
];

const URLS = [
  'Docs: https://nodejs.org/api/crypto.html#cryptogeneratekeypairsynctype-options and https://example.com/a/b?x=1&y=2#frag',
  'Mail alice@example.com or see ssh://git@github.com/acme/parley.git (no password in there).',
  'The hub listens on http://127.0.0.1:7420/v1/threads?limit=50.',
];

/** About 4 KB of markdown-flavoured lorem ipsum, the size of a long chat message. */
function markdownMessage(): string {
  const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore'.split(' ');
  const lines: string[] = ['# Weekly summary', ''];
  let i = 0;
  while (lines.join('\n').length < 4000) {
    const sentence = Array.from({ length: 12 }, () => words[i++ % words.length]).join(' ');
    lines.push(i % 5 === 0 ? `- **${sentence}** see [notes](https://example.org/notes/${i})` : `${sentence}.`);
  }
  return lines.join('\n').slice(0, 4000);
}

/** A scanner that counts its calls and finds nothing. */
function countingScanner(): SecretScanner & { calls: number } {
  const scanner = {
    calls: 0,
    async scan() {
      scanner.calls += 1;
      return [];
    },
  };
  return scanner;
}

describe('clean text', () => {
  const groups = [
    ['prose', PROSE],
    ['code snippets', CODE],
    ['URLs without credentials', URLS],
  ] as const;
  for (const [label, texts] of groups) {
    it(`clean text - ${label} are stored unchanged`, async () => {
      const { redactor } = realRedactor();
      for (const text of texts) {
        expect(await redactor.apply(text)).toEqual({ text, truncated: false, redacted: false, scannerError: false });
      }
    });
  }

  it('clean text - the prefilter says no for typical prose, code and URLs', () => {
    expect([...PROSE, ...CODE, ...URLS].filter(mightContainSecret)).toEqual([]);
  });

  it('clean text - a 4 KB markdown message is unchanged and skips the scanner', async () => {
    const text = markdownMessage();
    expect(text).toHaveLength(4000);
    expect(mightContainSecret(text)).toBe(false);
    const scanner = countingScanner();
    const redactor = createRedactor({
      maxMessageChars: 4096,
      scannerEnabled: true,
      scannerTimeoutMs: 800,
      logger: createMemoryLogger(),
      scanner,
    });
    expect(await redactor.apply(text)).toEqual({ text, truncated: false, redacted: false, scannerError: false });
    expect(scanner.calls).toBe(0);
  });

  it('clean text - a prefilter hit without a secret is scanned and left unchanged', async () => {
    const texts = [
      'call hf_hub_download() and set npm_config_cache before the build',
      'the AWS docs use AKIAIOSFODNN7EXAMPLE as their sample key id',
      'connect with postgres://user:password@localhost:5432/dev on your machine',
      'a PRIVATE KEY header looks like this, without the dashes',
    ];
    const { redactor } = realRedactor();
    for (const text of texts) {
      expect(mightContainSecret(text)).toBe(true);
      expect(await redactor.apply(text)).toEqual({ text, truncated: false, redacted: false, scannerError: false });
    }
  });
});
