import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, startServe, stopHubs, track } from '../helpers/serve.js';
import { claimedBlock, commandLines } from './pages.js';

afterAll(stopHubs);

/** A page's commands against a hub the test started: its address for the page's 127.0.0.1:7420, and the CLI for `parley`. */
function forHub(block: string, url: string): string {
  return block.replaceAll('http://127.0.0.1:7420', url).replaceAll('$(parley ', `$(${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `);
}

describe('docs', () => {
  it('docs - docs/http-api.md says the OpenAPI document needs a token, and its commands for reading it work as written', async () => {
    const block = claimedBlock('openapi');
    const password = 'read-the-api';
    const { home, cleanup } = tempHome();
    try {
      const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: password } });
      // What the page claims: without credentials, the document is refused, saying how to get a token.
      const bare = await fetch(`${hub.url}/api/v1/openapi.json`);
      expect(bare.status).toBe(401);
      expect(((await bare.json()) as { error: { message: string } }).error.message).toContain('parley join');
      // The page's commands, literally, against this hub: each prints the document.
      // stdin not a socket: bash would read /etc/bash.bashrc as if run by sshd (when SHLVL is unset), and -u fails there.
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', forHub(block, hub.url)], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: childEnv(home, { PARLEY_URL: hub.url, PARLEY_WEBUI_PASSWORD: password }),
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const documents = run.stdout.match(/\{"openapi":"3\.1\.0"/g) ?? [];
      expect(documents).toHaveLength(block.split('\n').filter((line) => line.includes('/api/v1/openapi.json')).length);
    } finally {
      await stopHubs();
      cleanup();
    }
  });

  it('docs - the post and the live stream of docs/http-api.md work as written with the token read before', async () => {
    const block = claimedBlock('postAndStream');
    const [post, stream] = block.split(/\n(?=curl -N)/) as [string, string];
    expect(commandLines(stream)).toHaveLength(1);
    const { home, cleanup } = tempHome();
    try {
      const hub = await startServe(home);
      // The token as the page's OpenAPI commands read it.
      const tokenLine = commandLines(claimedBlock('openapi'))[0]!;
      const env = childEnv(home, { PARLEY_URL: hub.url });
      // The stream follows what comes after it opens (?since=SEQ would replay): open it, then post.
      const follow = track(spawn('bash', ['-euo', 'pipefail', '-c', `${forHub(tokenLine, hub.url)}\nexec ${forHub(stream, hub.url)}`], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
      let seen = '';
      const waitFor = (text: string): Promise<void> =>
        new Promise<void>((resolve, reject) => {
          const check = (): void => {
            if (seen.includes(text)) resolve();
          };
          follow.stdout!.on('data', (chunk: Buffer) => {
            seen += chunk.toString();
            check();
          });
          follow.once('exit', (code) => reject(new Error(`the stream ended with ${code}: ${seen}`)));
          check();
        });
      await waitFor('event: presence');
      const posted = spawnSync('bash', ['-euo', 'pipefail', '-c', `${forHub(tokenLine, hub.url)}\n${forHub(post, hub.url)}`], { stdio: ['ignore', 'pipe', 'pipe'], env, encoding: 'utf8', timeout: 20_000 });
      expect(posted.stderr).toBe('');
      expect(JSON.parse(posted.stdout)).toMatchObject({ seq: expect.any(Number), thread: expect.any(String), truncated: false, redacted: false });
      await waitFor('build is green');
      expect(seen).toMatch(/^event: event$/m);
      expect(seen).toMatch(/^id: \d+$/m);
    } finally {
      await stopHubs();
      cleanup();
    }
  });
});
