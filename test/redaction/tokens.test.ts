import { describe, expect, it } from 'vitest';
import { mightContainSecret } from '../../src/redaction/prefilter.js';
import {
  anthropicKey,
  awsAccessKeyId,
  awsSecretAccessKey,
  base62,
  basicAuthUrl,
  githubFineGrainedPat,
  githubPat,
  NOTE,
  npmToken,
  openAiLegacyKey,
  openAiProjectKey,
  postgresUrl,
  realRedactor,
  slackBotToken,
} from './fixtures.js';

interface TokenCase {
  name: string;
  /** The message as an agent might post it. */
  text: string;
  /** Substrings that must not survive redaction. */
  secrets: string[];
  /** The exact stored text, note excluded. */
  expected: string;
}

function tokenCases(): TokenCase[] {
  const id = awsAccessKeyId();
  const secret = awsSecretAccessKey();
  const ghp = githubPat();
  const fine = githubFineGrainedPat();
  const slack = slackBotToken();
  const openAi = openAiProjectKey();
  const openAiOld = openAiLegacyKey();
  const anthropic = anthropicKey();
  const npm = npmToken();
  const pg = postgresUrl();
  const basic = basicAuthUrl();
  const uuid = `${base62(8)}-${base62(4)}-${base62(4)}-${base62(12)}`;
  return [
    {
      name: 'AWS access key id with its secret',
      text: `creds:\naws_access_key_id = ${id}\naws_secret_access_key = ${secret}\n`,
      secrets: [id, secret],
      expected: 'creds:\naws_access_key_id = [redacted]\naws_secret_access_key = [redacted]\n',
    },
    { name: 'GitHub classic PAT', text: `GH_TOKEN=${ghp}`, secrets: [ghp], expected: 'GH_TOKEN=[redacted]' },
    { name: 'GitHub fine-grained PAT', text: `token: ${fine}.`, secrets: [fine], expected: 'token: [redacted].' },
    { name: 'Slack bot token', text: `SLACK="${slack}"`, secrets: [slack], expected: 'SLACK="[redacted]"' },
    { name: 'OpenAI project key', text: `use ${openAi} now`, secrets: [openAi], expected: 'use [redacted] now' },
    { name: 'OpenAI legacy key', text: `OPENAI=${openAiOld}`, secrets: [openAiOld], expected: 'OPENAI=[redacted]' },
    { name: 'Anthropic key', text: `key ${anthropic} # prod`, secrets: [anthropic], expected: 'key [redacted] # prod' },
    { name: 'npm token', text: `npm: ${npm}, keep it`, secrets: [npm], expected: 'npm: [redacted], keep it' },
    {
      name: 'npmrc _authToken line',
      text: `//registry.npmjs.org/:_authToken=${uuid}\n`,
      secrets: [uuid],
      expected: '//registry.npmjs.org/:_authToken=[redacted]\n',
    },
    {
      name: 'database URL with a password',
      text: `DATABASE_URL=${pg.url} (staging)`,
      secrets: [pg.password],
      expected: 'DATABASE_URL=[redacted] (staging)',
    },
    {
      name: 'basic-auth URL',
      text: `curl ${basic.url} -d @payload.json`,
      secrets: [basic.password],
      expected: 'curl [redacted]/hooks/build -d @payload.json',
    },
  ];
}

describe('tokens', () => {
  for (const tokenCase of tokenCases()) {
    it(`tokens - ${tokenCase.name} is redacted and passes the prefilter`, async () => {
      expect(mightContainSecret(tokenCase.text)).toBe(true);
      const { redactor } = realRedactor();
      const result = await redactor.apply(tokenCase.text);
      for (const secret of tokenCase.secrets) expect(result.text).not.toContain(secret);
      expect(result).toEqual({ text: tokenCase.expected + NOTE, truncated: false, redacted: true, scannerError: false });
    });
  }

  it('tokens - a GCP service-account JSON is redacted whole', async () => {
    const pem = `-----BEGIN PRIVATE KEY-----\n${base62(64)}\n-----END PRIVATE KEY-----\n`;
    const json = JSON.stringify({
      type: 'service_account',
      private_key_id: base62(40),
      private_key: pem,
      client_email: 'ci@p.iam.gserviceaccount.com',
    });
    expect(mightContainSecret(json)).toBe(true);
    const result = await realRedactor().redactor.apply(json);
    expect(result.text).toBe(`[redacted]${NOTE}`);
  });

  it('tokens - a GCP service-account JSON hiding its fields behind \\u escapes still passes the prefilter', async () => {
    const header = '-----BEGIN PRIVATE\\u0020KEY-----';
    const escaped = `{"private\\u005fkey_id":"${base62(40)}","private\\u005fkey":"${header}\\n${base62(64)}\\n"}`;
    expect(escaped.includes('private_key')).toBe(false);
    expect(mightContainSecret(escaped)).toBe(true);
    const result = await realRedactor().redactor.apply(escaped);
    expect(result).toMatchObject({ text: `[redacted]${NOTE}`, redacted: true });
  });

  it('tokens - a secretlint-disable comment in the message does not switch redaction off', async () => {
    const ghp = githubPat();
    const text = `<!-- secretlint-disable -->\n${ghp}\n<!-- secretlint-enable -->`;
    const result = await realRedactor().redactor.apply(text);
    expect(result.text).toBe(`<!-- secretlint-disable -->\n[redacted]\n<!-- secretlint-enable -->${NOTE}`);
  });

  it('tokens - several secrets in one message give one note', async () => {
    const text = `a ${githubPat()} b ${npmToken()} c ${slackBotToken()}`;
    const result = await realRedactor().redactor.apply(text);
    expect(result.text).toBe(`a [redacted] b [redacted] c [redacted]${NOTE}`);
  });
});
