import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN } from '../helpers/serve.js';
import { ConsoleSession } from './run-console.js';
import { claimedBlocks } from './pages.js';
import { consoleSteps } from './transcript.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const page = (): string => fs.readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8');

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('docs', () => {
  it('docs - every command of "parley --help" has a row in docs/cli.md', () => {
    const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' }).stdout;
    // Command lines of the help: two spaces, the command's name, its words; group lines name their subcommands.
    const commands = [...help.matchAll(/^ {2}([a-z][a-z-]*)(?: ([a-z][a-z-]*(?:\|[a-z-]+)*))?/gm)].flatMap(([, name, subs]) =>
      subs ? subs.split('|').map((sub) => `${name} ${sub}`) : [name!],
    );
    expect(commands).toContain('serve');
    expect(commands).toContain('roster sign');
    const rows = [...page().matchAll(/^\| `([^`]+)`(?:, `([^`]+)`)? \|/gm)].flatMap(([, a, b]) => [a!, b].filter(Boolean) as string[]);
    const named = new Set(rows.map((row) => row.split(' ').filter((word) => /^[a-z][a-z-]*$/.test(word)).join(' ')));
    for (const command of commands) expect(named, `docs/cli.md has no row for "parley ${command}"`).toContain(command);
  });

  it('docs - the session in docs/cli.md runs as written and prints what the page shows', async () => {
    // Every console block of the page, in order, is one session (the blocks claimed as 'cliSession').
    const steps = consoleSteps(page());
    expect(steps.length).toBe(claimedBlocks('cliSession').reduce((n, block) => n + block.body.split('\n').filter((line) => line.startsWith('$ ')).length, 0));
    expect(steps.length).toBeGreaterThan(40);
    expect(steps[0]!.command).toMatch(/\bparley serve$/);
    expect(steps.at(-2)!.command).toBe('parley stop');
    const { home: user, cleanup } = tempHome('parley-cli-page-');
    const cwd = path.join(user, 'work');
    fs.mkdirSync(cwd);
    const session = new ConsoleSession({ user, cwd });
    cleanups.push(cleanup, () => session.close());
    for (const step of steps) {
      const diff = await session.step(step);
      expect(diff, `$ ${step.command}`).toBeUndefined();
    }
    // The page's export went to the folder it ran in; nothing else was written there.
    expect(fs.readdirSync(cwd)).toEqual(['general.jsonl']);
  }, 180_000);
});
