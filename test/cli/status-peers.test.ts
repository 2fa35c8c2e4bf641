import { describe, expect, it } from 'vitest';
import { peerSummary } from '../../src/cli/status.js';
import type { PeerLinkInfo } from '../../src/schema/peer-link.js';

const KEY = `ed25519:${'A'.repeat(43)}`;

function peer(over: Partial<PeerLinkInfo>): PeerLinkInfo {
  return { key: KEY, id: 'h_laptop', name: '', addrs: [], state: 'connected', reason: null, lastSeen: null, queued: 0, lagSeconds: 0, drops: {}, configured: true, participants: [], gaps: [], archive: false, ...over };
}

describe('parley status: the peers line', () => {
  it('status - each linked hub by name, with what waits for it, how long, and what it dropped, only where not zero', () => {
    const line = peerSummary([
      peer({ name: 'laptop' }),
      peer({ name: 'build-box', queued: 40, lagSeconds: 3, drops: { 'bad-signature': 1, 'not-hosted': 0 } }),
      peer({ name: '', id: 'h_ci', state: 'refused', drops: { 'other-org': 2 } }),
      peer({ name: 'vm', state: 'offline', queued: 1000, lagSeconds: 95 }),
    ]);
    expect(line).toBe('2 linked: laptop, build-box (40 queued, behind 3 s, dropped 1 bad-signature); 1 refused: h_ci (dropped 2 other-org); 1 offline: vm (1000 queued, behind 95 s)');
  });
});
