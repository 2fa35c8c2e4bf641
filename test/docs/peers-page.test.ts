import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN, startServe, stopHubs, track } from '../helpers/serve.js';
import { claimedBlock } from './pages.js';

/**
 * docs/peers.md's five steps, run as written on two "machines": two users
 * with their own default home (~/.parley), each line on the machine its
 * comment names, the files the comments say to copy copied between them.
 */
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Machine {
  name: 'A' | 'B';
  dir: string;
  home: string;
  run: (script: string, extra?: NodeJS.ProcessEnv) => Promise<{ status: number | null; out: string }>;
}

function machine(name: 'A' | 'B'): Machine {
  const made = tempHome(`parley-docs-peers-${name}-`);
  cleanups.push(made.cleanup);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
  Object.assign(env, { HOME: made.home, PATH: `${path.dirname(BIN)}:${path.dirname(process.execPath)}:/usr/bin:/bin` });
  const run = (script: string, extra: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; out: string }> => {
    const child = track(spawn('bash', ['-euo', 'pipefail', '-c', script], { env: { ...env, ...extra }, cwd: made.home, stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    return new Promise((resolve) => child.once('close', (status) => resolve({ status, out })));
  };
  return { name, dir: made.home, home: path.join(made.home, '.parley'), run };
}

/** The block's steps: each comment line names the machines that run the lines under it. */
function steps(block: string): Array<{ on: Array<'A' | 'B'>; comment: string; lines: string[] }> {
  const out: Array<{ on: Array<'A' | 'B'>; comment: string; lines: string[] }> = [];
  for (const line of block.split('\n').filter((l) => l.trim() !== '')) {
    const heading = /^# on (A and on B|A|B)\b(.*)$/.exec(line);
    if (heading) out.push({ on: heading[1] === 'A and on B' ? ['A', 'B'] : [heading[1] as 'A' | 'B'], comment: heading[2]!, lines: [] });
    else out[out.length - 1]!.lines.push(line);
  }
  return out;
}

describe('docs', () => {
  it('docs - the five steps of docs/peers.md link two hubs, and a message said on B is read on A', async () => {
    const [first, ...rest] = steps(claimedBlock('peers'));
    const machines = { A: machine('A'), B: machine('B') };
    // Step 1 starts each hub: on ephemeral ports, and on loopback only, here (with the page's password set, as doctor asks,
    // and a name of its own, as two machines' host names would give them).
    expect(first).toMatchObject({ on: ['A', 'B'], lines: ['parley serve --peer-port 7421'] });
    for (const m of Object.values(machines)) await startServe(m.home, { env: { HOME: m.dir, PARLEY_WEBUI_PASSWORD: 'a password for the page', PARLEY_PEERS_NAME: `machine-${m.name.toLowerCase()}` }, args: ['--peer-port', '0', '--peer-host', '127.0.0.1'] });
    // Each machine's people, joined before the roster is made (so it lists them).
    expect((await machines.A.run('parley join ann')).status).toBe(0);
    expect((await machines.B.run('parley join bea')).status).toBe(0);
    let addressOfA = '';
    for (const step of rest) {
      // What the comments say to copy from one machine to the other.
      if (step.comment.includes('3. import')) fs.copyFileSync(path.join(machines.A.home, 'roster.json'), path.join(machines.B.dir, 'acme-roster.json'));
      if (step.comment.includes('2. roster')) fs.copyFileSync(path.join(machines.B.dir, 'build-box.json'), path.join(machines.A.dir, 'build-box.json'));
      for (const name of step.on) {
        const m = machines[name];
        const script = step.lines.join('\n');
        const waits = step.comment.includes('5. check') || step.lines.some((l) => l.startsWith('parley read'));
        const deadline = Date.now() + 20_000;
        for (;;) {
          const done = await m.run(script, { ADDRESS_OF_A: addressOfA });
          const settled = step.comment.includes('5. check') ? /^connected /m.test(done.out) : step.lines.some((l) => l.startsWith('parley read')) ? done.out.includes('build 1234 is green') : true;
          if (done.status === 0 && settled) {
            if (step.lines.includes('parley peer self')) addressOfA = /\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/\w+/.exec(done.out)![0];
            if (step.comment.includes('5. check')) {
              expect(done.out, `${name}: status`).toMatch(/^ +peers: +1 linked/m);
              expect(done.out, `${name}: doctor`).toMatch(/^ok +peers +.*1 linked/m);
            }
            break;
          }
          if (!waits || Date.now() > deadline) throw new Error(`on ${name}: ${script}\n${done.out}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    }
    expect(addressOfA).not.toBe('');
  }, 120_000);
});
