import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN, startServe, stopHubs, track } from '../helpers/serve.js';
import { claimedBlock, commandLines } from './pages.js';

/** docs/trust.md's command blocks, run as written by a user whose default home (~/.parley) runs a hub on an ephemeral port. */
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function userWithHub(): Promise<{ home: string; run: (script: string) => Promise<{ status: number | null; out: string }> }> {
  const made = tempHome('parley-docs-trust-');
  cleanups.push(made.cleanup);
  const home = path.join(made.home, '.parley');
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
  Object.assign(env, { HOME: made.home, PATH: `${path.dirname(BIN)}:${path.dirname(process.execPath)}:/usr/bin:/bin` });
  await startServe(home, { env: { HOME: made.home } });
  const run = (script: string): Promise<{ status: number | null; out: string }> => {
    const child = track(spawn('bash', ['-euo', 'pipefail', '-c', script], { env, cwd: made.home, stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    return new Promise((resolve) => child.once('close', (status) => resolve({ status, out })));
  };
  return { home, run };
}

describe('docs', () => {
  it('docs - the roster commands of docs/trust.md make v1, draft v2, sign it into force and show it', async () => {
    const lines = commandLines(claimedBlock('roster'));
    expect(lines).toHaveLength(5);
    const { home, run } = await userWithHub();
    expect((await run('parley join human --kind human && parley join boss --kind human && parley join coder-1')).status).toBe(0);
    const done = await run(lines.join('\n'));
    expect(done.status, done.out).toBe(0);
    expect(done.out).toContain('made roster my-team v1');
    expect(done.out).toContain('roster my-team v2 is a draft');
    expect(done.out).toContain("signed roster my-team v2 with @boss's key");
    expect(done.out).toContain('the running hub accepted it: roster my-team v2 (4 members) is in force');
    expect(done.out).toContain('nothing to discard (roster my-team v2 stays in force)');
    expect(done.out).toMatch(/^ {2}member {4}ed25519:\S+ {2}@coder-1$/m);
    expect(fs.existsSync(path.join(home, 'roster.draft.json'))).toBe(false);
    const roster = JSON.parse(fs.readFileSync(path.join(home, 'roster.json'), 'utf8')) as { version?: number; org?: string };
    expect(JSON.stringify(roster)).toContain('my-team');
    const whoami = await run('parley whoami --as coder-1');
    expect(whoami.out).toContain('access:  member (roster my-team v2)');
  });

  it('docs - the channel policy command of docs/trust.md sets who reads and writes, as the policy then shows', async () => {
    const [line] = commandLines(claimedBlock('channelPolicy'));
    const { run } = await userWithHub();
    expect((await run('parley join human --kind human && parley join alice --kind human')).status).toBe(0);
    const set = await run(line!);
    expect(set.status, set.out).toBe(0);
    expect(set.out).toMatch(/^access policy recorded: seq \d+$/m);
    const shown = await run('parley channel policy general --as human');
    expect(shown.out).toContain('readers:   @alice, admin+');
    expect(shown.out).toContain('writers:   @alice');
    expect(shown.out).toContain('retention: 24 hours or 10000 messages, whichever keeps less');
  });
});
