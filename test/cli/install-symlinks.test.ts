import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientEnv, runParley, sandbox, snapshot, type Sandbox } from '../helpers/install.js';
import { BIN, startServe, stopHubs, track, type Json, type RunningHub } from '../helpers/serve.js';

/**
 * `parley install` / `parley uninstall` and symlinks, with real links planted
 * in a sandbox and the CLI run as a child process: a link leading out of the
 * project (or the home folder, for --user) is refused unless
 * --follow-symlinks, one inside it is followed, and the temporary file a
 * write goes through has no name known in advance.
 */
let base: string;
let parleyHome: string;
let hub: RunningHub;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-install-links-'));
  parleyHome = path.join(base, 'parley-home');
  hub = await startServe(parleyHome);
});

afterAll(async () => {
  await stopHubs();
  fs.rmSync(base, { recursive: true, force: true });
});

const hubFlags = (): string[] => ['--home', parleyHome, '--url', hub.url];
const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
const recorded = (root: string): boolean => {
  const ledger = path.join(parleyHome, 'installs.json');
  return fs.existsSync(ledger) && (readJson(ledger).installs as Json[]).some((r) => r.root === root);
};

/** The sandbox with its project's real path (what install records and names), and a folder outside both. */
function linkedSandbox(name: string): Sandbox & { elsewhere: string } {
  const box = sandbox(base, name);
  return { project: fs.realpathSync(box.project), home: box.home, elsewhere: fs.realpathSync(fs.mkdtempSync(path.join(base, `${name}-elsewhere-`))) };
}

/** Moves `inside` out to `outside` and leaves a symlink to it in its place. */
function moveOutAndLink(inside: string, outside: string): void {
  fs.renameSync(inside, outside);
  fs.symlinkSync(outside, inside);
}

/**
 * Runs parley after planting a symlink at `<file>.parley-<pid>.tmp`, the
 * temporary name writes used to take: the shell knows its own pid, and exec
 * keeps it for node.
 */
function runWithPlantedTemp(file: string, leadsTo: string, args: string[], home: string, cwd: string): Promise<{ status: number | null; stderr: string }> {
  const script = 'ln -s "$1" "$2.parley-$$.tmp" && shift 2 && exec "$@"';
  const child = track(spawn('/bin/sh', ['-c', script, 'sh', leadsTo, file, process.execPath, BIN, ...args], { env: clientEnv(home), cwd, stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stderr }));
  });
}

describe('parley install: symlinks', () => {
  it('install - a config file that is a symlink out of the project is refused, naming the link and --follow-symlinks; nothing is written anywhere (dry run too)', async () => {
    const box = linkedSandbox('file-link');
    const mcpFile = path.join(box.project, '.mcp.json');
    const outside = path.join(box.elsewhere, 'mcp.json');
    moveOutAndLink(mcpFile, outside);
    const before = { project: snapshot(box.project), elsewhere: snapshot(box.elsewhere) };
    for (const extra of [['--dry-run'], []]) {
      const result = await runParley(['install', 'claude', '--as', 'linked', '--dir', box.project, ...hubFlags(), ...extra], box.home, box.project);
      expect(result.status, extra.join(' ')).toBe(1);
      expect(result.stderr).toContain(`Cannot change ${mcpFile}: ${mcpFile} is a symlink to ${outside}, outside ${box.project}.`);
      expect(result.stderr).toContain('run the command again with --follow-symlinks. Nothing was changed.');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
      expect({ project: snapshot(box.project), elsewhere: snapshot(box.elsewhere) }).toEqual(before);
    }
    expect(recorded(box.project)).toBe(false);
  });

  it('install - a folder on the way that is a symlink out of the project (.claude) is refused; neither it nor the project gets a byte', async () => {
    const box = linkedSandbox('folder-link');
    const claudeDir = path.join(box.project, '.claude');
    const outside = path.join(box.elsewhere, 'claude');
    moveOutAndLink(claudeDir, outside);
    const before = { project: snapshot(box.project), elsewhere: snapshot(box.elsewhere) };
    const result = await runParley(['install', 'claude', '--as', 'linked', '--dir', box.project, ...hubFlags()], box.home, box.project);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(`Cannot change ${path.join(claudeDir, 'settings.local.json')}: ${claudeDir} is a symlink to ${outside}, outside ${box.project}.`);
    expect({ project: snapshot(box.project), elsewhere: snapshot(box.elsewhere) }).toEqual(before);
    expect(recorded(box.project)).toBe(false);
  });

  it('install - with --follow-symlinks the file the link leads to is changed and the link kept; uninstall refuses it without the flag and restores it with', async () => {
    const box = linkedSandbox('follow');
    const mcpFile = path.join(box.project, '.mcp.json');
    const outside = path.join(box.elsewhere, 'mcp.json');
    moveOutAndLink(mcpFile, outside);
    const original = fs.readFileSync(outside, 'utf8');
    const installed = await runParley(['install', 'claude', '--as', 'linked', '--dir', box.project, '--follow-symlinks', ...hubFlags()], box.home, box.project);
    expect(installed.status, installed.stderr).toBe(0);
    expect(fs.readlinkSync(mcpFile)).toBe(outside);
    expect(readJson(outside).mcpServers).toMatchObject({ docs: { command: 'npx' }, parley: { command: process.execPath } });

    const written = fs.readFileSync(outside, 'utf8');
    const refused = await runParley(['uninstall', 'claude', '--dir', box.project, '--home', parleyHome], box.home, box.project);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${mcpFile} is a symlink to ${outside}`);
    expect(fs.readFileSync(outside, 'utf8')).toBe(written);
    expect(recorded(box.project)).toBe(true);

    const undone = await runParley(['uninstall', 'claude', '--dir', box.project, '--follow-symlinks', '--home', parleyHome], box.home, box.project);
    expect(undone.status, undone.stderr).toBe(0);
    expect(fs.readFileSync(outside, 'utf8')).toBe(original);
    expect(fs.readlinkSync(mcpFile)).toBe(outside);
  });

  it('install - a symlink that stays inside the project is followed without the flag: the file it leads to is changed, the link kept', async () => {
    const box = linkedSandbox('inside-link');
    const mcpFile = path.join(box.project, '.mcp.json');
    const kept = path.join(box.project, 'config', 'mcp.json');
    fs.mkdirSync(path.dirname(kept));
    fs.renameSync(mcpFile, kept);
    fs.symlinkSync(path.join('config', 'mcp.json'), mcpFile);
    const original = fs.readFileSync(kept, 'utf8');
    const installed = await runParley(['install', 'claude', '--as', 'linked', '--dir', box.project, ...hubFlags()], box.home, box.project);
    expect(installed.status, installed.stderr).toBe(0);
    expect(fs.readlinkSync(mcpFile)).toBe(path.join('config', 'mcp.json'));
    expect(readJson(kept).mcpServers.parley).toMatchObject({ command: process.execPath });
    const undone = await runParley(['uninstall', 'claude', '--dir', box.project, '--home', parleyHome], box.home, box.project);
    expect(undone.status, undone.stderr).toBe(0);
    expect(fs.readFileSync(kept, 'utf8')).toBe(original);
  });

  it('install --user - the home folder is the scope: a link into dotfiles inside it is followed, a link out of it is refused', async () => {
    const box = linkedSandbox('user-links');
    const claudeJson = path.join(box.home, '.claude.json');
    const dotfiles = path.join(box.home, 'dotfiles', 'claude.json');
    fs.mkdirSync(path.dirname(dotfiles));
    moveOutAndLink(claudeJson, dotfiles);
    const inside = await runParley(['install', 'claude', '--as', 'linked', '--user', ...hubFlags()], box.home, box.project);
    expect(inside.status, inside.stderr).toBe(0);
    expect(readJson(dotfiles).mcpServers.parley).toMatchObject({ command: process.execPath });
    expect((await runParley(['uninstall', 'claude', '--user', '--home', parleyHome], box.home, box.project)).status).toBe(0);

    const outside = path.join(box.elsewhere, 'claude.json');
    fs.rmSync(claudeJson);
    fs.renameSync(dotfiles, outside);
    fs.symlinkSync(outside, claudeJson);
    const before = { home: snapshot(box.home), elsewhere: snapshot(box.elsewhere) };
    const refused = await runParley(['install', 'claude', '--as', 'linked', '--user', ...hubFlags()], box.home, box.project);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`Cannot change ${claudeJson}: ${claudeJson} is a symlink to ${outside}, outside ${box.home}.`);
    expect({ home: snapshot(box.home), elsewhere: snapshot(box.elsewhere) }).toEqual(before);
  });

  it('install - a symlink planted at the old predictable temporary name (<file>.parley-<pid>.tmp) is not followed: the file it leads to is untouched', async () => {
    const box = linkedSandbox('planted-temp');
    const mcpFile = path.join(box.project, '.mcp.json');
    const victim = path.join(box.elsewhere, 'victim.txt');
    fs.writeFileSync(victim, 'not a config\n');
    const result = await runWithPlantedTemp(mcpFile, victim, ['install', 'claude', '--as', 'planted', '--dir', box.project, ...hubFlags()], box.home, box.project);
    expect(result.status, result.stderr).toBe(0);
    expect(fs.readFileSync(victim, 'utf8')).toBe('not a config\n');
    expect(fs.lstatSync(mcpFile).isFile()).toBe(true);
    expect(readJson(mcpFile).mcpServers.parley).toMatchObject({ command: process.execPath });
    // The planted link is left alone, and no temporary file of the install's is left beside it.
    const temporaries = fs.readdirSync(box.project).filter((name) => name.endsWith('.tmp'));
    expect(temporaries.map((name) => fs.readlinkSync(path.join(box.project, name)))).toEqual([victim]);
  });

  it('uninstall - a folder replaced after install by a symlink out of the project is refused: the file there is neither restored nor removed', async () => {
    const box = linkedSandbox('uninstall-link');
    const installed = await runParley(['install', 'claude', '--as', 'linked', '--dir', box.project, ...hubFlags()], box.home, box.project);
    expect(installed.status, installed.stderr).toBe(0);
    // What install left in .claude/ now lies outside, where uninstall would restore its original over it.
    const claudeDir = path.join(box.project, '.claude');
    const outside = path.join(box.elsewhere, 'claude');
    moveOutAndLink(claudeDir, outside);
    const before = { project: snapshot(box.project), elsewhere: snapshot(box.elsewhere) };
    const refused = await runParley(['uninstall', 'claude', '--dir', box.project, '--home', parleyHome], box.home, box.project);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`${claudeDir} is a symlink to ${outside}, outside ${box.project}.`);
    expect({ project: snapshot(box.project), elsewhere: snapshot(box.elsewhere) }).toEqual(before);
    expect(recorded(box.project)).toBe(true);
  });
});
