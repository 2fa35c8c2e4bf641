import { expect } from 'vitest';
import type { Actor, HubOptions } from '../../src/hub/index.js';
import { PeerLinks } from '../../src/peer/index.js';
import type { Roster } from '../../src/schema/roster.js';
import { formatPublicKey } from '../../src/trust/node-id.js';
import { signRoster } from '../../src/trust/roster.js';
import { createMemoryLogger, type MemoryLogger } from '../../src/util/logger.js';
import type { TestHub, TestHubs } from './hub.js';

/** A hub of a linked test team: the hub, its links (on loopback TCP), its log. */
export interface PeerHub {
  t: TestHub;
  links: PeerLinks;
  logger: MemoryLogger;
  key: string;
  /** Its first listening address (ends in its peer id). */
  addr: string;
}

/** How quickly the test links redial: fast, so a test waits on the links, not on back-off. */
export const TEST_REDIAL_MS = 50;

/**
 * A roster of `org` listing each hub as a hub member (the first an admin,
 * the others members), and any extra members, signed by the first hub's key.
 */
export function rosterOfHubs(hubs: TestHub[], org = 'team', version = 1, extra: Roster['members'] = [], archives: number[] = []): Roster {
  const [first] = hubs;
  if (!first) throw new Error('rosterOfHubs needs a hub');
  const members = hubs.map((h, i) => ({
    pubkey: formatPublicKey(h.hub.internals.ctx.keys.hub().raw),
    role: i === 0 ? ('admin' as const) : ('member' as const),
    kind: 'hub' as const,
    ...(archives.includes(i) ? { archive: true } : {}),
  }));
  return signRoster({ org_id: org, version, timestamp: `2026-11-27T12:00:${String(version % 60).padStart(2, '0')}Z`, members: [...members, ...extra], signatures: [] }, first.hub.internals.ctx.keys.hub().privateKey);
}

/** Starts a hub's links on loopback, stopped after the test. */
export async function startLinks(hubs: TestHubs, t: TestHub, options: { helloTimeoutMs?: number } = {}): Promise<PeerHub> {
  const logger = createMemoryLogger();
  const links = await PeerLinks.start({ hub: t.hub, home: t.home, listen: ['/ip4/127.0.0.1/tcp/0'], logger, redialMs: TEST_REDIAL_MS, maxRedialMs: 500, ...options });
  hubs.defer(() => links.stop());
  t.hub.attachPeerLinks(links);
  const [addr] = links.addrs();
  if (!addr) throw new Error('the links listen nowhere');
  return { t, links, logger, key: formatPublicKey(t.hub.internals.ctx.keys.hub().raw), addr };
}

/** Opens `n` hubs under one roster (org `org`) and starts their links; none linked yet. */
export async function openPeerHubs(hubs: TestHubs, n: number, org = 'team'): Promise<PeerHub[]> {
  const opened: TestHub[] = [];
  for (let i = 0; i < n; i++) opened.push(await hubs.open());
  const roster = rosterOfHubs(opened, org);
  for (const t of opened) await t.hub.acceptRoster(roster);
  const started: PeerHub[] = [];
  for (const t of opened) started.push(await startLinks(hubs, t));
  return started;
}

/** The state of the link from `from` to `to`, as `parley peer list` shows it. */
export function linkState(from: PeerHub, to: PeerHub): string | undefined {
  return from.links.list().find((peer) => peer.key === to.key)?.state;
}

/** A linked hub with the participants it hosts, each joined to the default session. */
export interface TeamHub extends PeerHub {
  actors: Record<string, Actor>;
}

/**
 * `hosted.length` hubs (opened with `options.hub`, named hub-a, hub-b, … or `options.names`) under one roster that also lists every participant
 * (`hosted[i]` are hub i's: agents as operators, a handle starting with
 * "human" as an admin human), every hub linked to the first (and so to each
 * other), once every link is up both ways; the last `options.unlinked` hubs
 * are left unlinked, for the test to link later.
 */
export async function linkedTeam(hubs: TestHubs, hosted: string[][], options: { org?: string; hub?: Partial<HubOptions>; names?: string[]; unlinked?: number; extraMembers?: Roster['members']; archives?: number[] } = {}): Promise<TeamHub[]> {
  const opened: TestHub[] = [];
  const actors: Array<Record<string, Actor>> = [];
  for (const [i, handles] of hosted.entries()) {
    // Each its own name (hub-a, hub-b, …), as on machines of their own, unless the test names them.
    const name = options.names?.[i] ?? `hub-${String.fromCharCode(97 + i)}`;
    const t = await hubs.open({ ...options.hub, config: { ...options.hub?.config, peers: { ...options.hub?.config?.peers, name } } });
    opened.push(t);
    const mine: Record<string, Actor> = {};
    for (const handle of handles) mine[handle] = await t.hub.join({ handle, profile: { kind: handle.startsWith('human') ? 'human' : 'agent' } });
    actors.push(mine);
  }
  const members = opened.flatMap((t) =>
    t.hub.participantsWithAccess().map((p) => ({ pubkey: p.pubkey, role: p.profile.kind === 'human' ? ('admin' as const) : ('operator' as const) })),
  );
  const roster = rosterOfHubs(opened, options.org ?? 'team', 1, [...members, ...(options.extraMembers ?? [])], options.archives);
  for (const t of opened) await t.hub.acceptRoster(roster);
  const team: TeamHub[] = [];
  for (const [i, t] of opened.entries()) team.push({ ...(await startLinks(hubs, t)), actors: actors[i]! });
  // The last `unlinked` hubs listen, but neither dial nor are dialled: the test links them later (peer add).
  const linked = team.slice(0, team.length - (options.unlinked ?? 0));
  const [first, ...rest] = linked;
  for (const other of rest) await other.links.add(first!.addr);
  for (const a of linked) for (const b of linked) if (a !== b) await expect.poll(() => linkState(a, b), { timeout: 10_000 }).toBe('connected');
  return team;
}
