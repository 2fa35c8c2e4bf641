import { TRUNCATION_MARKER } from '../config/defaults.js';

export interface TruncationResult {
  text: string;
  truncated: boolean;
}

/**
 * Cuts `text` so that, marker included, it is at most `maxChars` UTF-16 code
 * units long, and ends it with ` … [truncated]`. Never splits a surrogate pair.
 */
export function truncateText(text: string, maxChars: number, marker: string = TRUNCATION_MARKER): TruncationResult {
  if (text.length <= maxChars) return { text, truncated: false };
  let keep = Math.max(0, maxChars - marker.length);
  // Do not leave a lone high surrogate at the cut.
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1;
  return { text: text.slice(0, keep) + marker, truncated: true };
}
