import type { HistoryGap, PeerLinkInfo } from '../schema/peer-link.js';

/** "1 bad-signature, 2 other-org": the reasons a link dropped frames or events, with their counts; empty when none. */
export function dropCounts(drops: PeerLinkInfo['drops']): string {
  return Object.entries(drops)
    .filter(([, n]) => (n ?? 0) > 0)
    .map(([reason, n]) => `${n} ${reason}`)
    .join(', ');
}

/** "#general misses @cal's events before 2026-…": each gap, by channel and author. */
export function gapsText(gaps: readonly HistoryGap[]): string {
  return gaps.map((gap) => `#${gap.channel} misses @${gap.author}'s events before ${gap.before}${gap.holes > 1 ? ` (${gap.holes} holes)` : ''}`).join(', ');
}
