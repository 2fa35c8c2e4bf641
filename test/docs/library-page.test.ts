import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('docs', () => {
  it('docs - the library example of docs/library.md runs as written', () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs/library.md'), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(page)?.[1];
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

  it('docs - the code docs/middleware-and-agent-loop.md shows is the code of examples/, which the tests run', () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs/middleware-and-agent-loop.md'), 'utf8');
    const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const examples = fs
      .readdirSync(path.join(ROOT, 'examples'))
      .filter((name) => name.endsWith('.ts'))
      .map((name) => fs.readFileSync(path.join(ROOT, 'examples', name), 'utf8'));
    for (const block of blocks) expect(examples.some((code) => code.includes(block)), block).toBe(true);
  });
});
