import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import { ALL_RULES, RULES_WITH_CONDITIONS, candidateRules, mightContainSecret } from '../../src/redaction/prefilter.js';
import { JWT_RULE_ID } from '../../src/redaction/jwt-rule.js';
import { PRIVATE_KEY_RULE_ID } from '../../src/redaction/private-key-rule.js';
import { createSecretlintScanner } from '../../src/redaction/scanner.js';
import {
  anthropicKey,
  awsAccessKeyId,
  awsSecretAccessKey,
  base62,
  generatedPrivateKeys,
  githubPat,
  jwt,
  npmToken,
  openAiLegacyKey,
  randomFrom,
  slackBotToken,
} from './fixtures.js';

const HEX = '0123456789abcdef';
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A 1Password service-account token: `ops_` + base64 of a JSON object ending in `fQ`. */
function onePasswordToken(): string {
  let json = JSON.stringify({ email: `${base62(12)}@1passwordserviceaccounts.lcl`, secretKey: base62(40) });
  // Pad so that the closing brace starts a base64 group (it then encodes as `fQ==`).
  while (json.length % 3 !== 1) json = json.replace('{', '{ ');
  return 'ops_' + Buffer.from(json).toString('base64');
}

/** One message per rule of the scanner, each holding a secret of that rule's shape. */
function samplePerRule(): string[] {
  const keys = generatedPrivateKeys();
  const pem = `-----BEGIN PRIVATE KEY-----\n${base62(64)}\n-----END PRIVATE KEY-----\n`;
  const gcpJson = JSON.stringify({ type: 'service_account', private_key_id: base62(40), private_key: pem });
  const slackHook = `https://hooks.slack.com/services/T${base62(8)}/B${base62(8)}/${base62(24)}`;
  return [
    `id ${awsAccessKeyId()}`,
    `aws_secret_access_key: "${awsSecretAccessKey()}"`,
    `AWS_ACCOUNT_ID = 1234-5678-9012`,
    gcpJson,
    `rsa:\n${keys['rsa pkcs8']}\n`,
    `ed:\n${keys['ed25519 pkcs8']}\n`,
    `token ${npmToken()}`,
    `//registry.npmjs.org/:_authToken=${base62(30)}`,
    `see https://builder:${base62(12)}@ci.example.org/x`,
    `slack ${slackBotToken()}`,
    `slack hook ${slackHook}`,
    `sendgrid SG.${base62(22)}.${base62(43)}`,
    `shopify shpat_${base62(32)}`,
    `github ${githubPat()}`,
    `gitlab glpat-${base62(20)}`,
    `grafana glc_eyJ${base62(40)}`,
    `grafana glsa_${base62(32)}_${randomFrom(HEX, 8)}`,
    `openai ${openAiLegacyKey()}`,
    `anthropic ${anthropicKey()}`,
    `groq gsk_${base62(52)}`,
    `hf hf_${randomFrom(LETTERS, 34)}`,
    `linear lin_api_${base62(40)}`,
    `notion ntn_${randomFrom('0123456789', 11)}${base62(35)}`,
    `1password ${onePasswordToken()}`,
    `mongodb+srv://svc:${base62(14)}@cluster0.example.net/app`,
    `mysql://svc:${base62(14)}@db.example.net:3306/app`,
    `postgresql://svc:${base62(14)}@db.example.net/app`,
    `vault hvs.${base62(95)}`,
    `vault batch hvb.${base62(140)}`,
    `vault recovery hvr.${base62(95)}`,
    `vercel vcp_${base62(30)}`,
    `databricks dapi${randomFrom(HEX, 32)}`,
    `docker dckr_pat_${base62(27)}`,
    `figma figd_${base62(45)}`,
    `Authorization: Bearer ${jwt()}`,
  ];
}

describe('prefilter', () => {
  it('prefilter - a sample of every scanner rule is found by the scanner and passes the prefilter', async () => {
    const scanner = createSecretlintScanner();
    const found = new Set<string>();
    const missed: string[] = [];
    const notFlagged: string[] = [];
    for (const text of samplePerRule()) {
      const spans = await scanner.scan(text);
      if (spans.length === 0) missed.push(text);
      for (const span of spans) found.add(span.ruleId);
      if (!mightContainSecret(text)) notFlagged.push(text);
    }
    expect(missed).toEqual([]);
    expect(notFlagged).toEqual([]);
    // A rule added to the preset on upgrade fails here: give it a sample and a prefilter condition.
    const expected = presetRules
      .map((rule) => rule.meta.id)
      .filter((id) => id !== '@secretlint/secretlint-rule-filter-comments')
      .concat(PRIVATE_KEY_RULE_ID, JWT_RULE_ID);
    expect([...found].sort()).toEqual(expected.sort());
  });

  it('prefilter - scanning only the candidate rules finds exactly what the full scan finds, for every rule', async () => {
    const scanner = createSecretlintScanner();
    for (const text of samplePerRule()) {
      const candidates = candidateRules(text);
      const full = await scanner.scan(text);
      const targeted = await scanner.scan(text, candidates === ALL_RULES ? undefined : candidates);
      expect(targeted).toEqual(full);
      expect(full.length).toBeGreaterThan(0);
      if (candidates !== ALL_RULES) for (const span of full) expect(candidates).toContain(span.ruleId);
    }
    // Every rule the scanner runs has a condition (a new rule must get one, or it runs on every flagged text).
    const configured = presetRules
      .map((rule) => rule.meta.id)
      .filter((id) => id !== '@secretlint/secretlint-rule-filter-comments')
      .concat(PRIVATE_KEY_RULE_ID, JWT_RULE_ID);
    expect([...RULES_WITH_CONDITIONS].sort()).toEqual(configured.sort());
    expect(candidateRules('plain words, nothing secret')).toEqual([]);
  });

  it('prefilter - says no to prose, and to near misses that no rule would report', () => {
    const texts = [
      'The deploy is done; metrics look healthy and the error rate is back to 0.1%.',
      'Use snake_case for column names and kebab-case for URLs.',
      'Version 2.3.1 of the SDK fixed the retry bug (see issue #88).',
      'Account settings: open the profile page, then click Security.',
      'ssh://git@github.com/acme/parley.git and https://example.com:8443/path',
    ];
    expect(texts.filter(mightContainSecret)).toEqual([]);
  });

  it('prefilter - AWS assignments are flagged in any spelling and spacing', () => {
    expect(mightContainSecret('AWS_SECRET_ACCESS_KEY = x')).toBe(true);
    expect(mightContainSecret('"aws_secret_access_key": x')).toBe(true);
    expect(mightContainSecret('SecretAccessKey => x')).toBe(true);
    expect(mightContainSecret("aws_account_id='1234")).toBe(true);
    expect(mightContainSecret('AccountId: 1234')).toBe(true);
  });
});
