import { generateKeyPairSync, randomBytes, randomInt } from 'node:crypto';
import { createMemoryLogger, type MemoryLogger } from '../../src/util/logger.js';
import { createRedactor, type RedactionOptions, type Redactor } from '../../src/redaction/redactor.js';

/**
 * Secret-shaped test data, made up at run time from random characters so that
 * no real credential is ever committed and push protection has nothing to find.
 * Prefixes are split ('gh' + 'p_') for the same reason.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
export const BASE62 = UPPER + LOWER + DIGITS;

export function randomFrom(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(randomInt(alphabet.length));
  return out;
}

export const base62 = (length: number): string => randomFrom(BASE62, length);

export function awsAccessKeyId(): string {
  return 'AK' + 'IA' + randomFrom(UPPER + DIGITS, 16);
}

/** 40 characters; the rule needs a word boundary after it, so it ends alphanumeric. */
export function awsSecretAccessKey(): string {
  return randomFrom(BASE62 + '/+', 39) + base62(1);
}

export function githubPat(): string {
  return 'gh' + 'p_' + base62(36);
}

export function githubFineGrainedPat(): string {
  return 'github' + '_pat_' + base62(22) + '_' + base62(59);
}

export function slackBotToken(): string {
  return 'xo' + 'xb-' + randomFrom(DIGITS, 12) + '-' + randomFrom(DIGITS, 13) + '-' + base62(24);
}

export function openAiProjectKey(): string {
  return 'sk-' + 'proj-' + base62(74) + 'T3Blbk' + 'FJ' + base62(74);
}

export function openAiLegacyKey(): string {
  return 'sk-' + base62(20) + 'T3Blbk' + 'FJ' + base62(20);
}

export function anthropicKey(): string {
  return 'sk-' + 'ant-api03-' + randomFrom(BASE62 + '_-', 92) + base62(1) + 'AA';
}

export function npmToken(): string {
  return 'np' + 'm_' + base62(36);
}

/** A signed JWT (JWS compact form) with a random subject and a random 256-bit signature. */
export function jwt(header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const payload = { sub: base62(12), name: 'Build Bot', iat: 1_700_000_000 + randomInt(1_000_000), scope: 'deploy' };
  return `${part(header)}.${part(payload)}.${randomBytes(32).toString('base64url')}`;
}

export function postgresUrl(): { url: string; password: string } {
  const password = base62(20);
  return { url: `postgres://app_owner:${password}@db.internal.example:5432/orders`, password };
}

export function basicAuthUrl(): { url: string; password: string } {
  const password = base62(16);
  return { url: `https://deploy-bot:${password}@ci.example.org/hooks/build`, password };
}

/** PEM private keys of every kind node:crypto can export, generated now. */
export function generatedPrivateKeys(): Record<string, string> {
  const ed25519 = generateKeyPairSync('ed25519').privateKey;
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  // 1024 bits: big enough for OpenSSL to accept, quick to generate.
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
  const pem = (text: string | Buffer): string => text.toString().trimEnd();
  return {
    'ed25519 pkcs8': pem(ed25519.export({ type: 'pkcs8', format: 'pem' })),
    'ed25519 encrypted pkcs8': pem(
      ed25519.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' }),
    ),
    'ec P-256 pkcs8': pem(ec.export({ type: 'pkcs8', format: 'pem' })),
    'ec P-256 sec1': pem(ec.export({ type: 'sec1', format: 'pem' })),
    'rsa pkcs8': pem(rsa.export({ type: 'pkcs8', format: 'pem' })),
    'rsa pkcs1': pem(rsa.export({ type: 'pkcs1', format: 'pem' })),
    openssh: opensshStyleKey(),
    'pgp block': pgpStyleKey(),
  };
}

function wrap(base64: string, width: number): string {
  return base64.match(new RegExp(`.{1,${width}}`, 'g'))?.join('\n') ?? '';
}

/** node:crypto cannot write OpenSSH's format, so build one: its magic, then random bytes. */
export function opensshStyleKey(): string {
  const body = Buffer.concat([Buffer.from('openssh-key-v1\0'), randomBytes(380)]).toString('base64');
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${wrap(body, 70)}\n-----END OPENSSH PRIVATE KEY-----`;
}

export function pgpStyleKey(): string {
  const body = randomBytes(300).toString('base64');
  return `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${wrap(body, 64)}\n=${base62(4)}\n-----END PGP PRIVATE KEY BLOCK-----`;
}

export const NOTE = ' (Note: content redacted by scanner)';

export function countOf(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** A redactor with the real secretlint scanner and a memory logger. */
export function realRedactor(overrides: Partial<RedactionOptions> = {}): { redactor: Redactor; logger: MemoryLogger } {
  const logger = createMemoryLogger();
  const redactor = createRedactor({
    maxMessageChars: 4096,
    scannerEnabled: true,
    scannerTimeoutMs: 5_000,
    logger,
    ...overrides,
  });
  return { redactor, logger };
}
