import type { TrustMode } from '../hub/access-resolver.js';
import { DEFAULT_HUB_QUERY_TIMEOUT_MS } from '../config/defaults.js';
import { readAdminToken } from '../http/admin-token.js';
import type { LiveHub } from './hub-address.js';
import { proveHub } from './hub-proof.js';

/**
 * What the hub running on a home says about itself (GET /api/v1/hub with the
 * home's admin token): `parley status` shows it, and `parley stop` checks
 * that the pid in the lock file is that hub before signalling it.
 */
export interface HubStatus {
  version: string;
  pid: number;
  home: string;
  startedAt: string;
  uptimeSeconds: number;
  connected: Array<{ session: string; handle: string; connection: string; state: string }>;
  /** How permissions are decided (absent from hubs before roles). */
  trust?: TrustMode;
  /** Envelopes signed elsewhere: taken in, and dropped by reason (expired, duplicate…). */
  envelopes?: { accepted: number; dropped: Record<string, number> };
}

export type HubAnswer = { ok: true; status: HubStatus } | { ok: false; reason: string };

/** Asks the hub the home's lock file names, with the home's admin token once the process at its address has proved it is that hub. */
export async function askHub(holder: LiveHub, home: string): Promise<HubAnswer> {
  const token = readAdminToken(home);
  if (!token) return { ok: false, reason: `the home has no admin token (${home}/admin.token) to ask it with` };
  const proof = await proveHub(holder, DEFAULT_HUB_QUERY_TIMEOUT_MS);
  if (!proof.ok) return { ok: false, reason: proof.reason };
  let response: Response;
  try {
    response = await fetch(`${proof.url}/api/v1/hub`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(DEFAULT_HUB_QUERY_TIMEOUT_MS),
    });
  } catch {
    return { ok: false, reason: `nothing answers at ${proof.url}` };
  }
  if (!response.ok) return { ok: false, reason: `${proof.url} answered ${response.status}` };
  return { ok: true, status: (await response.json()) as HubStatus };
}

/** "2h 03m 10s", "4m 05s", "12s". */
export function formatUptime(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m ${pad(s)}s`;
  if (m > 0) return `${m}m ${pad(s)}s`;
  return `${s}s`;
}
