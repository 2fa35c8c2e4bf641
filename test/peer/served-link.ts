import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { cliAt, joinOver, type Json, type RunningHub } from '../helpers/serve.js';

export interface Served {
  home: string;
  hub: RunningHub;
}

/**
 * Links served hubs as the five steps do: each other hub says who it is, A's
 * operator adds them all to one roster and signs it, each imports it and
 * keeps A as its one peer; the others find each other through A. Returns a
 * token per hub for the agent it hosts (`agents[i]` on `hubs[i]`), A's peer
 * address and each hub's name.
 */
export async function linkServed(served: Served[], agents: string[]): Promise<{ tokens: string[]; addrA: string; names: string[]; keys: string[] }> {
  const tokens: string[] = [];
  for (const [i, { hub }] of served.entries()) tokens.push(await joinOver(hub, { handle: agents[i]!, profile: { kind: 'agent' } }));
  const clis = served.map(({ home, hub }) => cliAt(home, hub.url));
  const [first, ...others] = served;
  const cliA = clis[0]!;
  // 1. keys: each other hub says who it is. 2. roster: A's operator adds them and signs.
  const selves = clis.map((cli) => cli('peer', 'self', '--json').stdout);
  const files = others.map((_, i) => path.join(first!.home, `hub-${i + 1}.json`));
  files.forEach((file, i) => fs.writeFileSync(file, selves[i + 1]!));
  for (const args of [['roster', 'init', '--org', 'acme'], ...files.map((file) => ['roster', 'add', '--from', file]), ['roster', 'sign']]) {
    const run = cliA(...args);
    expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  }
  const self = selves.map((text) => JSON.parse(text) as Json);
  const addrA = self[0]!.addrs[0] as string;
  for (const [i, { home }] of others.entries()) {
    // 3. import: each takes the signed roster. 4. peer add: each keeps A and dials it.
    const rosterFile = path.join(home, 'acme.json');
    fs.copyFileSync(path.join(first!.home, 'roster.json'), rosterFile);
    expect(clis[i + 1]!('roster', 'import', rosterFile).status).toBe(0);
    expect(clis[i + 1]!('peer', 'add', addrA).status).toBe(0);
  }
  // 5. check: every hub sees every other linked (asked over the admin route: polling the CLI would start a process each time).
  const stateOf = async (hub: RunningHub, key: string) => {
    const res = await fetch(`${hub.url}/api/v1/hub/peers`, { headers: { authorization: `Bearer ${hub.adminToken()}` } });
    return ((await res.json()) as { peers: Json[] }).peers.find((peer) => peer.key === key)?.state;
  };
  for (const [i, { hub }] of served.entries()) {
    for (const [j, other] of self.entries()) {
      if (i !== j) await expect.poll(() => stateOf(hub, other.key as string), { timeout: 20_000, interval: 100 }).toBe('connected');
    }
  }
  return { tokens, addrA, names: self.map((other) => other.name as string), keys: self.map((other) => other.key as string) };
}
