import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519Backend, ed25519Sign, ed25519Verify } from '../../src/trust/ed25519.mjs';

const moduleUrl = new URL('../../src/trust/ed25519.mjs', import.meta.url).href;

/** Signs and checks in a fresh Node process, with `env` added (the backend is chosen when the module loads). */
function inChild(env: Record<string, string>, pem: string, bytes: string): { backend: string; sig: string; verifies: boolean } {
  const script = `
    import crypto from 'node:crypto';
    const { ed25519Backend, ed25519Sign, ed25519Verify } = await import(${JSON.stringify(moduleUrl)});
    const key = crypto.createPrivateKey(${JSON.stringify(pem)});
    const bytes = Buffer.from(${JSON.stringify(bytes)}, 'hex');
    const sig = ed25519Sign(bytes, key);
    process.stdout.write(JSON.stringify({ backend: ed25519Backend, sig: sig.toString('hex'), verifies: ed25519Verify(bytes, crypto.createPublicKey(key), sig) }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ...env }, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as { backend: string; sig: string; verifies: boolean };
}

describe('Ed25519 signatures', () => {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const bytes = crypto.randomBytes(300);

  it('ed25519 - libsodium signs here, and its signature is the one node:crypto makes and accepts', () => {
    expect(ed25519Backend).toBe('libsodium');
    const sig = ed25519Sign(bytes, privateKey);
    expect(sig).toHaveLength(64);
    expect(sig.equals(crypto.sign(null, bytes, privateKey))).toBe(true);
    expect(crypto.verify(null, bytes, publicKey, sig)).toBe(true);
    expect(ed25519Verify(bytes, publicKey, crypto.sign(null, bytes, privateKey))).toBe(true);
  });

  it('ed25519 - a changed byte, another key or a malformed signature does not verify, and nothing throws', () => {
    const sig = ed25519Sign(bytes, privateKey);
    const changed = Buffer.from(bytes);
    changed[7] = (changed[7] ?? 0) ^ 1;
    expect(ed25519Verify(changed, publicKey, sig)).toBe(false);
    expect(ed25519Verify(bytes, crypto.generateKeyPairSync('ed25519').publicKey, sig)).toBe(false);
    expect(ed25519Verify(bytes, publicKey, sig.subarray(0, 63))).toBe(false);
    expect(ed25519Verify(bytes, publicKey, Buffer.alloc(64))).toBe(false);
    expect(ed25519Verify(bytes, publicKey, Buffer.alloc(64, 0xff))).toBe(false);
  });

  it('ed25519 - a key that is not Ed25519 is refused with a clear error', () => {
    const { privateKey: x25519 } = crypto.generateKeyPairSync('x25519');
    expect(() => ed25519Sign(bytes, x25519)).toThrow(/Ed25519 private key/);
  });

  it('ed25519 - with PARLEY_ED25519=node, node:crypto signs, and makes the same signature', () => {
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const fallback = inChild({ PARLEY_ED25519: 'node' }, pem, bytes.toString('hex'));
    const fast = inChild({}, pem, bytes.toString('hex'));
    expect(fallback.backend).toBe('node:crypto');
    expect(fast.backend).toBe('libsodium');
    expect(fallback.sig).toBe(fast.sig);
    expect(fallback.verifies && fast.verifies).toBe(true);
    expect(fast.sig).toBe(ed25519Sign(bytes, privateKey).toString('hex'));
  });
});
