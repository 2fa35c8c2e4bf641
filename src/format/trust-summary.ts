import type { TrustMode } from '../hub/access-resolver.js';

/** How permissions are decided, in one line for doctor, status and the page. */
export function trustSummary(trust: TrustMode): string {
  if (trust.mode === 'roster') return `roster ${trust.org} v${trust.version} (access from the signed roster)`;
  return `local mode (no roster) — humans ${trust.localAccess.human}, agents ${trust.localAccess.agent}`;
}
