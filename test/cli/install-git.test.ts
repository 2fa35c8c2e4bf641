import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCLUDE_BEGIN, EXCLUDE_END } from '../../src/install/git-exclude.js';
import { runParley } from '../helpers/install.js';
import { startServe, stopHubs, type RunningHub } from '../helpers/serve.js';

/**
 * `parley install` in a git work tree, as a user runs it: the files it writes
 * with this machine's paths are listed in the clone's own exclude file
 * (never a committed .gitignore), so `git status` does not offer them; a
 * shared config that was there before stays the user's; uninstall takes the
 * lines out again. Real git, real child processes, a real hub.
 */
let base: string;
let parleyHome: string;
let userHome: string;
let hub: RunningHub;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-install-git-'));
  parleyHome = path.join(base, 'parley-home');
  userHome = path.join(base, 'home');
  fs.mkdirSync(userHome);
  hub = await startServe(parleyHome);
});

afterAll(async () => {
  await stopHubs();
  fs.rmSync(base, { recursive: true, force: true });
});

/** git as the user runs it, with no global or system config of this machine. */
function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.org', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, HOME: userHome, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: path.join(userHome, 'no-gitconfig') },
  });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

function repo(name: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(base, `${name}-`)));
  git(dir, 'init', '-q', '.');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'start');
  return dir;
}

const parley = (dir: string, ...args: string[]) => runParley([...args, '--dir', dir, '--home', parleyHome, ...(args[0] === 'install' ? ['--url', hub.url] : [])], userHome, dir);
const excludeOf = (dir: string): string => path.resolve(dir, git(dir, 'rev-parse', '--git-path', 'info/exclude').trim());
const read = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

describe('parley install in a git work tree', () => {
  it('install git - git status shows none of the files install created; a second install adds no line; uninstall leaves the exclude file as it was', async () => {
    const dir = repo('claude');
    const exclude = excludeOf(dir);
    const original = read(exclude);

    const first = await parley(dir, 'install', 'claude', '--as', 'coder-1');
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(fs.existsSync(path.join(dir, '.mcp.json'))).toBe(true);
    expect(fs.existsSync(path.join(dir, '.claude', 'settings.local.json'))).toBe(true);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(first.stdout).toContain(`Kept out of git (listed in ${exclude}): .mcp.json, .claude/settings.local.json\n`);
    const block = `${EXCLUDE_BEGIN}\n/.mcp.json\n/.claude/settings.local.json\n${EXCLUDE_END}\n`;
    expect(read(exclude)).toBe(`${original ?? ''}${block}`);

    const again = await parley(dir, 'install', 'claude', '--as', 'coder-1');
    expect(again.status).toBe(0);
    expect(read(exclude)).toBe(`${original ?? ''}${block}`);

    const gone = await parley(dir, 'uninstall', 'claude');
    expect(gone.stderr).toBe('');
    expect(gone.status).toBe(0);
    expect(gone.stdout).toContain(`${exclude}: Parley's lines taken out (/.mcp.json /.claude/settings.local.json)`);
    expect(read(exclude)).toBe(original);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('install git - a committed shared config stays the user’s: git still shows Parley’s change to it, and install says so; the personal file is kept out', async () => {
    const dir = repo('shared');
    fs.writeFileSync(path.join(dir, '.mcp.json'), '{\n  "mcpServers": {}\n}\n');
    git(dir, 'add', '.mcp.json');
    git(dir, 'commit', '-q', '-m', 'shared servers');

    const done = await parley(dir, 'install', 'claude', '--as', 'coder-1');
    expect(done.status).toBe(0);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe(' M .mcp.json\n');
    expect(done.stdout).toContain('Kept out of git');
    expect(done.stdout).toContain('Git still shows .mcp.json: it was there before install');
    expect(read(excludeOf(dir))).toContain(`${EXCLUDE_BEGIN}\n/.claude/settings.local.json\n${EXCLUDE_END}\n`);

    expect((await parley(dir, 'uninstall', 'claude')).status).toBe(0);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(read(excludeOf(dir))).not.toContain(EXCLUDE_BEGIN);
  });

  it('install git - in linked worktrees (.git is a file) the shared exclude file is used; a line another worktree’s install needs stays until that one goes', async () => {
    const main = repo('main');
    const other = path.join(path.dirname(main), `${path.basename(main)}-wt`);
    git(main, 'worktree', 'add', '-q', other);
    expect(fs.statSync(path.join(other, '.git')).isFile()).toBe(true);
    const exclude = excludeOf(other);
    expect(exclude).toBe(excludeOf(main));

    for (const dir of [main, other]) expect((await parley(dir, 'install', 'codex', '--as', 'coder-1')).status).toBe(0);
    for (const dir of [main, other]) expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    const block = `${EXCLUDE_BEGIN}\n/.codex/config.toml\n/.codex/hooks.json\n${EXCLUDE_END}\n`;
    expect(read(exclude)?.split(EXCLUDE_BEGIN)).toHaveLength(2);
    expect(read(exclude)).toContain(block);

    expect((await parley(other, 'uninstall', 'codex')).status).toBe(0);
    expect(git(main, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(read(exclude)).toContain(block);
    expect((await parley(main, 'uninstall', 'codex')).status).toBe(0);
    expect(read(exclude)).not.toContain(EXCLUDE_BEGIN);
    git(main, 'worktree', 'remove', '--force', other);
  });
});
