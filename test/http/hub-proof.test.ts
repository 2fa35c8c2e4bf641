import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newHubProofNonce, verifyHubProof } from '../../src/trust/hub-proof.js';
import { hubKeyPathOf, readKeyFile } from '../../src/trust/key-files.js';
import { formatPublicKey, rawPublicKeyOf } from '../../src/trust/node-id.js';
import { APP_BASE, appOf, testHubsClosedAfterEach, type TestHub } from '../helpers/hub.js';

/** POST /hub-proof: without credentials, the hub signs the client's nonce and the Host it was asked at with its own key. */
const hubs = testHubsClosedAfterEach();

async function app(): Promise<{ t: TestHub; served: ReturnType<typeof appOf> }> {
  const t = await hubs.open();
  return { t, served: appOf(t) };
}

function prove(served: ReturnType<typeof appOf>, url: string, body: unknown) {
  return served.request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('http hub proof', () => {
  it('hub proof route - answers without credentials with the hub key the lock file records and its signature over the Host and nonce', async () => {
    const { t, served } = await app();
    const nonce = newHubProofNonce();
    const res = await prove(served, 'http://localhost:7420/hub-proof', { nonce });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { key: string; signature: string };
    // The key of the home's key file, which the hub records beside its address in the lock file.
    expect(answer.key).toBe(formatPublicKey(rawPublicKeyOf(readKeyFile(hubKeyPathOf(t.home)))));
    t.hub.describe({ url: 'http://127.0.0.1:7420' });
    expect(JSON.parse(fs.readFileSync(path.join(t.home, 'hub.lock.json'), 'utf8'))).toMatchObject({ pid: process.pid, url: 'http://127.0.0.1:7420', key: answer.key });
    expect(verifyHubProof(answer.key, 'localhost:7420', nonce, answer.signature)).toBe(true);
    expect(verifyHubProof(answer.key, '127.0.0.1:7420', nonce, answer.signature)).toBe(false);
  });

  it('hub proof route - a Host that is not this hub\'s gets no signature (a relay cannot pass it on)', async () => {
    const { served } = await app();
    const res = await prove(served, 'http://127.0.0.1:9999/hub-proof', { nonce: newHubProofNonce() });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
  });

  it('hub proof route - a missing or malformed nonce is INVALID_INPUT naming it', async () => {
    const { served } = await app();
    const cases: Array<[unknown, string, string]> = [
      [{}, 'nonce', 'Invalid nonce'],
      [{ nonce: 'short' }, 'nonce', 'Invalid nonce: a nonce is 32 random bytes in base64url without padding (43 characters)'],
      [{ nonce: newHubProofNonce(), extra: 1 }, 'extra', 'Invalid extra: unknown field'],
    ];
    for (const [body, field, message] of cases) {
      const res = await prove(served, `${APP_BASE}/hub-proof`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'INVALID_INPUT', field, message: expect.stringContaining(message) });
    }
  });
});
