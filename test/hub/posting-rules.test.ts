import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { REDACTION_NOTE, TRUNCATION_MARKER } from '../../src/config/defaults.js';
import { testHubsClosedAfterEach } from '../helpers/hub.js';

const hubs = testHubsClosedAfterEach();

const note = REDACTION_NOTE;

function ed25519Pem(): string {
  return crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

function randomToken(alphabet: string, length: number): string {
  const bytes = crypto.randomBytes(length);
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('');
}

describe('posting rules', () => {
  it('posting - a message over maxMessageChars is stored cut, ending with the marker', async () => {
    const t = await hubs.open({ config: { chat: { limits: { maxMessageChars: 100 } } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const result = await a.post({ thread: 'general', text: 'x'.repeat(500) });
    expect(result.truncated).toBe(true);
    const [stored] = (await a.history({ thread: 'general', after: result.seq - 1 })).events;
    expect(stored?.content).toBe('x'.repeat(100 - TRUNCATION_MARKER.length) + TRUNCATION_MARKER);
    expect(stored?.meta?.truncated).toBe(true);
  });

  it('posting - a private key and a token are replaced by [redacted], with the note appended once', async () => {
    const t = await hubs.open();
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const pem = ed25519Pem();
    const token = 'gh' + 'p_' + randomToken('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 36);
    const text = `here is the key:\n${pem}\nand the token ${token} for CI`;
    const result = await a.post({ thread: 'general', text });
    expect(result.redacted).toBe(true);
    const [seen] = (await b.readNew({ thread: 'general' })).events.filter((e) => e.type === 'message');
    const content = seen?.content as string;
    expect(content).not.toContain('PRIVATE KEY');
    expect(content).not.toContain(token);
    expect(content.split('[redacted]')).toHaveLength(3);
    expect(content.endsWith(note)).toBe(true);
    expect(content.indexOf(note)).toBe(content.lastIndexOf(note));
    expect(content.startsWith('here is the key:')).toBe(true);
    expect(seen?.meta?.redacted).toBe(true);
    // The secret never reaches the full-text index either.
    expect((await b.search({ query: token })).events).toEqual([]);
  });

  it('posting - a scanner failure stores the original text and logs scannerError=true', async () => {
    const t = await hubs.open({
      scanner: {
        scan: () => Promise.reject(new Error('scanner exploded')),
      },
    });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const text = 'token AKIA' + randomToken('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16) + ' in the log';
    const result = await a.post({ thread: 'general', text });
    expect(result.redacted).toBe(false);
    const [stored] = (await a.history({ thread: 'general', after: result.seq - 1 })).events;
    expect(stored?.content).toBe(text);
    expect(t.logger.records.some((r) => r.scannerError === true)).toBe(true);
  });

  it('posting - a scan over its timeout fails open too', async () => {
    const t = await hubs.open({
      config: { chat: { scanner: { timeoutMs: 20 } } },
      scanner: { scan: () => new Promise(() => undefined) },
    });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const text = 'password=hunter2 postgres://admin:s3cret@db.internal:5432/app';
    const result = await a.post({ thread: 'general', text });
    const [stored] = (await a.history({ thread: 'general', after: result.seq - 1 })).events;
    expect(stored?.content).toBe(text);
    expect(t.logger.records.filter((r) => r.scannerError === true)).toHaveLength(1);
  });

  it('posting - meeting messages follow the meeting limit and the scanner', async () => {
    const t = await hubs.open({ config: { meeting: { maxMessageChars: 50 } } });
    const a = await t.hub.join({ handle: 'alice', session: 's' });
    const b = await t.hub.join({ handle: 'bob', session: 's' });
    const long = await a.meetingSay('m', 'y'.repeat(200));
    expect(long.truncated).toBe(true);
    const pem = ed25519Pem();
    const secret = await a.meetingSay('m', pem);
    expect(secret.redacted).toBe(true);
    const heard = await b.meetingHear({ meeting: 'm', last_heard: 0 });
    expect(heard.messages[0]?.content).toBe('y'.repeat(50 - TRUNCATION_MARKER.length) + TRUNCATION_MARKER);
    expect(heard.messages[1]?.content.startsWith('[redacted]')).toBe(true);
    expect(heard.messages[1]?.content.endsWith(note)).toBe(true);
  });
});
