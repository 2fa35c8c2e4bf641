import { describe, expect, it } from 'vitest';
import { lintSource } from '@secretlint/core';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { findPrivateKeyBlocks, PRIVATE_KEY_RULE_ID } from '../../src/redaction/private-key-rule.js';
import { mightContainSecret } from '../../src/redaction/prefilter.js';
import { createSecretlintScanner } from '../../src/redaction/scanner.js';
import { countOf, generatedPrivateKeys, NOTE, realRedactor } from './fixtures.js';

const keys = generatedPrivateKeys();

describe('private keys', () => {
  for (const [kind, pem] of Object.entries(keys)) {
    it(`private keys - ${kind} block is replaced whole, text around it kept, note once`, async () => {
      const { redactor } = realRedactor();
      const text = `here is the deploy key:\n${pem}\nthanks, rotate it after.`;
      expect(mightContainSecret(text)).toBe(true);
      const result = await redactor.apply(text);
      expect(result).toEqual({
        text: `here is the deploy key:\n[redacted]\nthanks, rotate it after.${NOTE}`,
        truncated: false,
        redacted: true,
        scannerError: false,
      });
    });
  }

  it('private keys - two keys in one message give two placeholders and one note', async () => {
    const { redactor } = realRedactor();
    const text = `old:\n${keys['rsa pkcs1']}\nnew:\n${keys['ed25519 pkcs8']}\ndone`;
    const result = await redactor.apply(text);
    expect(result.text).toBe(`old:\n[redacted]\nnew:\n[redacted]\ndone${NOTE}`);
    expect(countOf(result.text, '[redacted]')).toBe(2);
    expect(countOf(result.text, NOTE)).toBe(1);
  });

  it('private keys - the scanner reports an Ed25519 key through our rule with its exact range', async () => {
    const pem = keys['ed25519 pkcs8'] ?? '';
    const text = `key: ${pem} end`;
    const spans = await createSecretlintScanner().scan(text);
    expect(spans).toEqual([{ start: 5, end: 5 + pem.length, ruleId: PRIVATE_KEY_RULE_ID }]);
  });

  it('private keys - the preset alone misses Ed25519, EC sec1 and encrypted keys (why our rule exists)', async () => {
    const config = { rules: [{ id: recommendedPreset.meta.id, rule: recommendedPreset }] };
    const found: Record<string, number> = {};
    for (const kind of ['ed25519 pkcs8', 'ec P-256 sec1', 'ed25519 encrypted pkcs8']) {
      const result = await lintSource({
        source: { content: keys[kind] ?? '', filePath: 'message.txt', contentType: 'text' },
        options: { config, noPhysicFilePath: true },
      });
      found[kind] = result.messages.length;
    }
    expect(found).toEqual({ 'ed25519 pkcs8': 0, 'ec P-256 sec1': 0, 'ed25519 encrypted pkcs8': 0 });
  });

  it('private keys - a block without its END line is reported from BEGIN to the end of the text', () => {
    const text = 'see:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB0d';
    expect(findPrivateKeyBlocks(text)).toEqual([{ start: 5, end: text.length, label: 'EC PRIVATE KEY', complete: false }]);
  });

  it('private keys - blocks are found one after another, each through its own END', () => {
    const a = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----';
    const b = '-----BEGIN PGP PRIVATE KEY BLOCK-----\nBBBB\n-----END PGP PRIVATE KEY BLOCK-----';
    const text = `${a} and ${b}!`;
    expect(findPrivateKeyBlocks(text)).toEqual([
      { start: 0, end: a.length, label: 'PRIVATE KEY', complete: true },
      { start: a.length + 5, end: a.length + 5 + b.length, label: 'PGP PRIVATE KEY BLOCK', complete: true },
    ]);
  });

  it('private keys - a key quoted inside JSON with escaped newlines is still one block', () => {
    const pem = keys['ec P-256 pkcs8'] ?? '';
    const text = JSON.stringify({ note: 'ci key', key: pem });
    const blocks = findPrivateKeyBlocks(text);
    expect(blocks).toHaveLength(1);
    expect(text.slice(blocks[0]?.start, blocks[0]?.end)).toBe(JSON.stringify(pem).slice(1, -1));
  });

  it('private keys - public keys and certificates are not private key blocks', () => {
    const text = [
      '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
    ].join('\n');
    expect(findPrivateKeyBlocks(text)).toEqual([]);
    expect(mightContainSecret(text)).toBe(false);
  });
});
