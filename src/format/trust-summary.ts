import type { TrustMode } from '../schema/views.js';

/** How permissions are decided, in one line for doctor, status and the page. */
export function trustSummary(trust: TrustMode): string {
  if (trust.mode === 'roster') {
    const members = trust.members === undefined ? '' : ` (${trust.members} member${trust.members === 1 ? '' : 's'})`;
    return `roster ${trust.org} v${trust.version}${members}: access from the signed roster`;
  }
  return `local mode (no roster) — humans ${trust.localAccess.human}, agents ${trust.localAccess.agent}`;
}
