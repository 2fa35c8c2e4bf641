import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, startServe, stopHubs } from '../helpers/serve.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

afterAll(stopHubs);

describe('docs', () => {
  it('docs - the README library example runs as written', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const { home, cleanup } = tempHome();
    try {
      const entry = pathToFileURL(path.join(ROOT, 'dist/src/index.js')).href;
      const script = block!
        .replace("from 'parley'", `from ${JSON.stringify(entry)}`)
        .replace("'/tmp/parley-demo'", JSON.stringify(home))
        .replace('{ timeout_ms: 25_000 }', '{ timeout_ms: 50 }');
      const file = path.join(home, 'example.mjs');
      fs.writeFileSync(file, `${script}\nconsole.log(JSON.stringify({ items: items.length, events: events.length, newPointer, next: next.items.length, status: 'done' }));\n`);
      const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}');
      expect(out).toMatchObject({ items: 1, status: 'done' });
      expect(out.newPointer).toBeGreaterThan(0);
    } finally {
      cleanup();
    }
  });

  it('docs - the code the README shows for agents in TypeScript is the code of examples/, which the tests run', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const start = readme.indexOf('## Agents in TypeScript');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const examples = fs
      .readdirSync(path.join(ROOT, 'examples'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => fs.readFileSync(path.join(ROOT, 'examples', name), 'utf8'));
    for (const block of blocks) expect(examples.some((code) => code.includes(block)), block).toBe(true);
  });

  it('docs - the README says the OpenAPI document needs a token, and its commands for reading it work as written', async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('/api/v1/openapi.json'));
    expect(block).toBeDefined();
    const password = 'read-the-api';
    const { home, cleanup } = tempHome();
    try {
      const hub = await startServe(home, { env: { PARLEY_WEBUI_PASSWORD: password } });
      // What the README claims: without credentials, the document is refused, saying how to get a token.
      const bare = await fetch(`${hub.url}/api/v1/openapi.json`);
      expect(bare.status).toBe(401);
      expect(((await bare.json()) as { error: { message: string } }).error.message).toContain('parley join');
      // The README's commands, literally, against this hub: each prints the document.
      const script = block!.replaceAll('http://127.0.0.1:7420', hub.url).replaceAll('$(parley ', `$(${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} `);
      const run = spawnSync('bash', ['-euo', 'pipefail', '-c', script], {
        env: childEnv(home, { PARLEY_URL: hub.url, PARLEY_WEBUI_PASSWORD: password }),
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      const documents = run.stdout.match(/\{"openapi":"3\.1\.0"/g) ?? [];
      expect(documents).toHaveLength(block!.split('\n').filter((line) => line.includes('/api/v1/openapi.json')).length);
    } finally {
      await stopHubs();
      cleanup();
    }
  });
});
