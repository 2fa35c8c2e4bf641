import '../../src/peer/promise-with-resolvers.js';
import os from 'node:os';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { peerIdFromString } from '@libp2p/peer-id';
import { ping, type Ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { multiaddr } from '@multiformats/multiaddr';
import { createLibp2p, type Libp2p } from 'libp2p';
import { afterEach, describe, expect, it } from 'vitest';
import { hubIdOf, parsePublicKey } from '../../src/trust/node-id.js';
import { tempHomesRemovedAfterEach } from '../helpers/hub.js';
import { cliAt, joinOver, startServe, stopHubs, type Json } from '../helpers/serve.js';

/**
 * `parley serve --peer-port` and `parley peer self`, as an operator runs them:
 * the hub listens for peers over libp2p with its own key as its identity, says
 * where, and refuses every peer while no roster is in force.
 */
// Registered first, so it runs after the hook below has stopped the hubs using the homes.
const home = tempHomesRemovedAfterEach('parley-peer-self-');
const nodes: Array<Libp2p<{ ping: Ping }>> = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
  await stopHubs();
});

/** A libp2p node of a stranger: its own random key, TCP, Noise and yamux, as any hub would dial with. */
async function strangerNode(): Promise<Libp2p<{ ping: Ping }>> {
  const node = await createLibp2p({
    privateKey: await generateKeyPair('Ed25519'),
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { ping: ping() },
  });
  nodes.push(node);
  return node;
}

describe('peer self', () => {
  it('peer self - a hub serving with --peer-port 0 says its key, id, name, where it listens and whom it hosts', async () => {
    const dir = home();
    const hub = await startServe(dir, { args: ['--peer-port', '0', '--peer-host', '127.0.0.1'] });
    await joinOver(hub, { handle: 'coder', profile: { kind: 'agent' } });
    const cli = cliAt(dir, hub.url);
    const run = cli('peer', 'self', '--json');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const self = JSON.parse(run.stdout) as Json;
    expect(self.key).toMatch(/^ed25519:[A-Za-z0-9_-]{43}$/);
    expect(self.id).toBe(hubIdOf(parsePublicKey(self.key)));
    expect(self.name).toBe(os.hostname().split('.')[0]!.replace(/[^A-Za-z0-9_.-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64));
    expect(self.addrs).toHaveLength(1);
    const [addr] = self.addrs as string[];
    expect(addr).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/12D3Koo\w+$/);
    // The peer id in the address is the hub's own key: what a roster lists is what a peer dials.
    const peerId = peerIdFromString(addr!.split('/p2p/')[1]!);
    expect(Buffer.from(peerId.publicKey!.raw).equals(parsePublicKey(self.key))).toBe(true);
    expect(self.participants).toEqual([expect.objectContaining({ handle: 'coder', kind: 'agent', key: expect.stringMatching(/^ed25519:/) })]);
    expect(hub.output()).toContain(`peers:  ${addr}`);

    const text = cli('peer', 'self');
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`key:    ${self.key}`);
    expect(text.stdout).toContain(addr);
    expect(text.stdout).toContain('@coder (agent)');
  }, 60_000);

  it('peer self - in local mode a peer that dials in is refused once Noise has shown its key, and the refusal is logged', async () => {
    const dir = home();
    const hub = await startServe(dir, { args: ['--peer-port', '0', '--peer-host', '127.0.0.1'] });
    const self = JSON.parse(cliAt(dir, hub.url)('peer', 'self', '--json').stdout) as Json;
    const stranger = await strangerNode();
    const dialled = stranger.services.ping.ping(multiaddr(self.addrs[0]), { signal: AbortSignal.timeout(10_000) });
    await expect(dialled).rejects.toThrow();
    await expect.poll(() => hub.output(), { timeout: 10_000 }).toContain('peer link refused');
    expect(hub.output()).toContain(stranger.peerId.toString());
    expect(hub.output()).toContain('local-mode');
  }, 60_000);

  it('peer self - a hub serving without --peer-port listens for no peer and says so', async () => {
    const dir = home();
    const hub = await startServe(dir);
    const cli = cliAt(dir, hub.url);
    const self = JSON.parse(cli('peer', 'self', '--json').stdout) as Json;
    expect(self.addrs).toEqual([]);
    expect(hub.output()).not.toContain('peers:');
    expect(cli('peer', 'self').stdout).toContain('addrs:  none (not listening for peers: parley serve --peer-port PORT)');
  }, 60_000);

  it('peer self - bad peer flags and settings are refused naming them, and no hub starts', async () => {
    const dir = home();
    const cli = cliAt(dir, 'http://127.0.0.1:1');
    const badPort = cli('serve', '--port', '0', '--peer-port', '70000');
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toContain('Invalid --peer-port "70000": give a port from 0 to 65535');
    const hostAlone = cli('serve', '--port', '0', '--peer-host', '127.0.0.1');
    expect(hostAlone.status).toBe(2);
    expect(hostAlone.stderr).toContain('Invalid --peer-host: it says where --peer-port listens; give --peer-port PORT too.');
    const udp = cli('serve', '--port', '0', '--set', 'peers.listen=/ip4/127.0.0.1/udp/9');
    expect(udp.status).toBe(2);
    expect(udp.stderr).toContain('Invalid config key "peers.listen.0" (from --set peers.listen): must be a TCP multiaddr');
    const noHub = cli('peer', 'self');
    expect(noHub.status).toBe(1);
    expect(noHub.stderr).toContain('No hub is running on home');
  }, 60_000);
});
