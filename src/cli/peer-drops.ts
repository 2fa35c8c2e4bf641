import type { PeerLinkInfo } from '../schema/peer-link.js';

/** "1 bad-signature, 2 other-org": the reasons a link dropped frames or events, with their counts; empty when none. */
export function dropCounts(drops: PeerLinkInfo['drops']): string {
  return Object.entries(drops)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
}
