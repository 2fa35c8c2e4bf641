import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHub } from '../../src/hub/hub.js';
import { createSilentLogger } from '../../src/util/logger.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { runCli } from '../cli/run-cli.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { cliAt } from '../helpers/serve.js';
import { servedHubsPerTest } from '../helpers/served-hub.js';

const scratch = tempHomesRemovedAfterEach('parley-keygen-');
const served = servedHubsPerTest();

describe('parley keygen', () => {
  it('keygen - makes the hub key once (0600 in a 0700 keys/), prints the same key again, and the hub then signs as that key', async () => {
    const parent = scratch();
    const home = path.join(parent, 'new-home');
    const env = { ...process.env, PARLEY_HOME: home };
    const first = await runCli(['keygen', '--json'], env);
    expect(first.status, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout) as { id: string; pubkey: string; file: string; created: boolean };
    expect(made).toMatchObject({ created: true, file: path.join(home, 'keys', 'hub.key') });
    expect(made.pubkey).toMatch(/^ed25519:[A-Za-z0-9_-]{43}$/);
    expect(made.id).toMatch(/^h_[a-z2-7]{26}$/);
    expect(fs.statSync(made.file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(home, 'keys')).mode & 0o777).toBe(0o700);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);

    const again = await runCli(['keygen', '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual({ ...made, created: false });
    const text = await runCli(['keygen'], env);
    expect(text.stdout).toContain(`pubkey  ${made.pubkey}`);

    // The hub started on that home uses the key keygen made.
    const hub = await openHub({ home, logger: createSilentLogger() });
    expect(formatPublicKey(hub.internals.ctx.keys.hub().raw)).toBe(made.pubkey);
    await hub.close();
  });
});

describe('parley whoami', () => {
  it('whoami - shows handle, id and access apart from profile roles; --key adds the public key and where this home keeps the private one, never the key', async () => {
    const home = served.home('parley-whoami-');
    const { hub } = await served.serve(home);
    const cli = cliAt(home, hub.url);
    expect(cli('join', 'coder-1', '--role', 'reviewer').status).toBe(0);
    const plain = cli('whoami', '--as', 'coder-1');
    expect(plain.stderr).toBe('');
    expect(plain.stdout).toMatch(/^@coder-1 · p_[a-z2-7]{26} \(agent, session "default"\)\naccess: {2}operator \(local mode \(no roster\)\)\nprofile roles: reviewer \(descriptive; they grant nothing\)\n$/);
    const keyed = JSON.parse(cli('whoami', '--as', 'coder-1', '--key', '--json').stdout) as { participant: { id: string; publicKey: string }; pubkey: string; keyFile: string; access: string };
    expect(keyed.access).toBe('operator');
    expect(keyed.pubkey).toBe(`ed25519:${Buffer.from(keyed.participant.publicKey, 'base64').toString('base64url')}`);
    expect(keyed.keyFile).toBe(path.join(home, 'keys', 'participants', `${keyed.participant.id}.key`));
    const text = cli('whoami', '--as', 'coder-1', '--key').stdout;
    expect(text).toContain(`pubkey:  ${keyed.pubkey}`);
    expect(text).toContain("held by this home's hub, which signs for you");
    expect(text).not.toMatch(/PRIVATE KEY/);
  });
});
