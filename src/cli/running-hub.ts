import type { PeerLinkInfo } from '../schema/peer-link.js';
import type { TrustMode } from '../schema/views.js';
import { DEFAULT_HUB_QUERY_TIMEOUT_MS } from '../config/defaults.js';
import { readAdminToken } from '../home/admin-token.js';
import { proveHub } from '../client/hub-proof.js';
import type { LiveHub } from '../client/live-hub.js';
import type { PeerSelf } from '../hub/index.js';

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
  /** The hubs this one links to (absent from hubs before peer links; empty when it runs none). */
  peers?: PeerLinkInfo[];
}

export type HubAnswer = { ok: true; status: HubStatus } | { ok: false; reason: string };

/** Asks the hub the home's lock file names, with the home's admin token once the process at its address has proved it is that hub. */
export async function askHub(holder: LiveHub, home: string): Promise<HubAnswer> {
  const answer = await askAdminRoute(holder, home, '/api/v1/hub');
  return answer.ok ? { ok: true, status: answer.body as HubStatus } : answer;
}

/** The settings the hub runs with (GET /api/v1/hub/config), secrets left out; the caller checks the parts it reads. */
export interface HubSettings {
  pid: number;
  config: Record<string, unknown>;
}

export type HubSettingsAnswer = { ok: true; settings: HubSettings } | { ok: false; reason: string };

export async function askHubSettings(holder: LiveHub, home: string): Promise<HubSettingsAnswer> {
  const answer = await askAdminRoute(holder, home, '/api/v1/hub/config');
  if (!answer.ok) return answer;
  const body = answer.body as Partial<HubSettings> | null;
  if (typeof body?.pid !== 'number' || body.config === null || typeof body.config !== 'object') return { ok: false, reason: 'it did not say its settings (a hub of an older Parley?)' };
  return { ok: true, settings: { pid: body.pid, config: body.config } };
}

export type PeerSelfAnswer = { ok: true; self: PeerSelf } | { ok: false; reason: string };

/** This hub as its peers know it (GET /api/v1/hub/peers/self): key, id, name, listening addresses, hosted participants. */
export async function askPeerSelf(holder: LiveHub, home: string): Promise<PeerSelfAnswer> {
  const answer = await askAdminRoute(holder, home, '/api/v1/hub/peers/self');
  if (!answer.ok) return answer;
  const body = answer.body as Partial<PeerSelf> | null;
  if (typeof body?.key !== 'string' || !Array.isArray(body.addrs) || !Array.isArray(body.participants)) return { ok: false, reason: 'it did not say who it is to its peers (a hub of a Parley without peer links?)' };
  return { ok: true, self: body as PeerSelf };
}

async function askAdminRoute(holder: LiveHub, home: string, route: string): Promise<{ ok: true; body: unknown } | { ok: false; reason: string }> {
  const token = readAdminToken(home);
  if (!token) return { ok: false, reason: `the home has no admin token (${home}/admin.token) to ask it with` };
  const proof = await proveHub(holder, DEFAULT_HUB_QUERY_TIMEOUT_MS);
  if (!proof.ok) return { ok: false, reason: proof.reason };
  let response: Response;
  try {
    response = await fetch(`${proof.url}${route}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(DEFAULT_HUB_QUERY_TIMEOUT_MS),
    });
  } catch {
    return { ok: false, reason: `nothing answers at ${proof.url}` };
  }
  if (!response.ok) return { ok: false, reason: `${proof.url} answered ${response.status}` };
  try {
    return { ok: true, body: (await response.json()) as unknown };
  } catch {
    return { ok: false, reason: `${proof.url} answered something that is not JSON` };
  }
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
