import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { afterEach, describe, expect, it } from 'vitest';
import { addToPeerBook, parsePeerAddr, readPeerBook, removeFromPeerBook } from '../../src/home/peer-book.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { keyOfPeerId } from '../../src/trust/peer-id.js';
import { caught } from '../helpers/hub.js';

/** The peers a home keeps (peers.json), as `parley peer add|remove` edit them with no hub running. */
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

function home(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-peer-book-'));
  homes.push(dir);
  return dir;
}

async function hubAddr(port = 4001): Promise<{ addr: string; key: string }> {
  const privateKey = await generateKeyPair('Ed25519');
  const peerId = peerIdFromPrivateKey(privateKey);
  return { addr: `/ip4/127.0.0.1/tcp/${port}/p2p/${peerId.toString()}`, key: formatPublicKey(privateKey.publicKey.raw) };
}

describe('peer book', () => {
  it('peer book - a peer id is read back to the key libp2p made it from; anything else is not a hub key', async () => {
    for (let i = 0; i < 20; i++) {
      const privateKey = await generateKeyPair('Ed25519');
      const raw = keyOfPeerId(peerIdFromPrivateKey(privateKey).toString());
      expect(raw && Buffer.from(raw).equals(Buffer.from(privateKey.publicKey.raw))).toBe(true);
    }
    const secp = peerIdFromPrivateKey(await generateKeyPair('secp256k1')).toString();
    expect(keyOfPeerId(secp)).toBeUndefined();
    expect(keyOfPeerId('')).toBeUndefined();
    expect(keyOfPeerId('12D3KooW0OIl')).toBeUndefined();
  });

  it('peer book - peers are kept in peers.json (0600), once each, and removed by key or by address', async () => {
    const dir = home();
    const first = await hubAddr(4001);
    const second = await hubAddr(4002);
    expect(readPeerBook(dir)).toEqual([]);
    expect(addToPeerBook(dir, first.addr).added).toBe(true);
    expect(addToPeerBook(dir, ` ${first.addr} `).added).toBe(false);
    const other = `/ip4/10.0.0.2/tcp/4001/p2p/${first.addr.split('/p2p/')[1]}`;
    expect(addToPeerBook(dir, other).entry.key).toBe(first.key);
    addToPeerBook(dir, second.addr);
    expect(readPeerBook(dir).map((p) => [p.addr, p.key])).toEqual([
      [first.addr, first.key],
      [other, first.key],
      [second.addr, second.key],
    ]);
    expect(fs.statSync(path.join(dir, 'peers.json')).mode & 0o777).toBe(0o600);
    expect(removeFromPeerBook(dir, first.key).map((p) => p.addr)).toEqual([first.addr, other]);
    expect(removeFromPeerBook(dir, second.addr).map((p) => p.addr)).toEqual([second.addr]);
    expect(removeFromPeerBook(dir, second.addr)).toEqual([]);
    expect(readPeerBook(dir)).toEqual([]);
  });

  it('peer book - a bad address names the field and says what to give; a damaged file says how to mend it, and nothing is written', async () => {
    const dir = home();
    const { addr } = await hubAddr();
    for (const bad of ['', '/ip4/127.0.0.1/tcp/4001', '/ip4/127.0.0.1/udp/4001/p2p/' + addr.split('/p2p/')[1], 'hub.example:4001', 42]) {
      const error = await caught(() => parsePeerAddr(bad));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.field).toBe('addr');
      expect(error.message).toMatch(/peer self/);
    }
    const secp = peerIdFromPrivateKey(await generateKeyPair('secp256k1')).toString();
    expect((await caught(() => addToPeerBook(dir, `/ip4/127.0.0.1/tcp/1/p2p/${secp}`))).message).toMatch(/not a hub's/);
    expect(fs.existsSync(path.join(dir, 'peers.json'))).toBe(false);
    fs.writeFileSync(path.join(dir, 'peers.json'), '{"peers":[{"addr":"nope"}]}');
    const damaged = await caught(() => addToPeerBook(dir, addr));
    expect(damaged.code).toBe('CONFIG_INVALID');
    expect(damaged.message).toMatch(/peers\.json: Invalid peers\.peers\.0\.addr.*parley peer add/);
    expect(fs.readFileSync(path.join(dir, 'peers.json'), 'utf8')).toBe('{"peers":[{"addr":"nope"}]}');
  });
});
