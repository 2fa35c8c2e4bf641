import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { childEnv, startServe, stopHubs, track } from '../helpers/serve.js';
import { ROOT, claimedBlock } from './pages.js';

afterAll(stopHubs);

/** The README's quick start: the shell block that begins by putting `parley` on the PATH. */
function quickStart(): string[] {
  return claimedBlock('quickStart')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

describe('docs', () => {
  it('docs - the README quick start runs literally in a clone: plain `parley` after its PATH step, no npx', async () => {
    const lines = quickStart();
    expect(lines.join('\n')).not.toContain('npx');
    const [pathStep, hubStep, ...commands] = lines;
    expect(pathStep).toMatch(/^export PATH="\$PWD\/bin:\$PATH"/);
    expect(hubStep).toMatch(/^npm start\b/);
    // A user's machine: HOME is theirs (so ~/.parley is the default home and ~/code/my-app their project),
    // and no `parley` is on the PATH until the README's first line puts it there.
    const { home: user, cleanup } = tempHome();
    try {
      fs.mkdirSync(path.join(user, 'code', 'my-app'), { recursive: true });
      const parleyHome = path.join(user, '.parley');
      // `npm start` is `parley serve` on the default home; here on an ephemeral port instead of 7420.
      await startServe(parleyHome);
      const env: NodeJS.ProcessEnv = { ...childEnv(parleyHome, { HOME: user }), PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
      delete env.PARLEY_HOME;
      expect(spawnSync('bash', ['-c', 'command -v parley'], { stdio: ['ignore', 'pipe', 'pipe'], env, encoding: 'utf8' }).status).not.toBe(0);

      const follow = commands.find((line) => line.startsWith('parley tail'))!;
      const oneShots = commands.filter((line) => line !== follow);
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', [pathStep, ...oneShots].join('\n')], { stdio: ['ignore', 'pipe', 'pipe'], cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
      expect(run.stderr).not.toMatch(/error|unknown command/i);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('hi @coder-1');
      expect(run.stdout).toContain('← respond');
      expect(fs.existsSync(path.join(user, 'code', 'my-app', '.mcp.json'))).toBe(true);

      // `parley tail` follows until stopped: it shows the message, then this test ends it.
      const tail = track(spawn('bash', ['-c', `${pathStep}\nexec ${follow.replace(/#.*$/, '')}`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
      let seen = '';
      await new Promise<void>((resolve, reject) => {
        tail.stdout!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('hi @coder-1')) resolve();
        });
        tail.once('exit', (code) => reject(new Error(`parley tail exited with ${code}: ${seen}`)));
      });
      expect(seen).toContain('@human');
    } finally {
      await stopHubs();
      cleanup();
    }
  });
});
