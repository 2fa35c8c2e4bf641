import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runParley, sandbox, snapshot, type Sandbox } from '../helpers/install.js';
import { startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';

/**
 * `parley install` beyond the happy path: bad input refused with nothing
 * written, entries that are not Parley's never overwritten, the user's edits
 * after install kept by uninstall, and a hub started when none runs.
 */
let base: string;
let parleyHome: string;
let hub: RunningHub;
const startedHubs: number[] = [];

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-install-edits-'));
  parleyHome = path.join(base, 'parley-home');
  hub = await startServe(parleyHome);
});

afterAll(async () => {
  await stopHubs();
  // A hub the no-hub test started, should that test have failed before stopping it.
  for (const pid of startedHubs.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(base, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const hubFlags = (): string[] => ['--home', parleyHome, '--url', hub.url];
const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, 'utf8')) as Json;
const state = (box: Sandbox): Json => ({ project: snapshot(box.project), home: snapshot(box.home), parley: ['installs.json', 'credentials.json', 'install-backups'].map((f) => snapshot(parleyHome)[f] ?? fs.existsSync(path.join(parleyHome, f))) });

describe('parley install: refusals and edits', () => {
  it('install - bad input is refused with an error naming the flag or file, and nothing is written anywhere', async () => {
    const box = sandbox(base, 'refusals');
    fs.writeFileSync(path.join(box.project, '.gemini', 'settings.json'), '{ "ui": { "theme": "GitHub", } ');
    fs.appendFileSync(path.join(box.home, '.codex', 'config.toml'), '\n\n[mcp_servers.parley]\ncommand = "parley"\n');
    const mcp = readJson(path.join(box.project, '.mcp.json'));
    mcp.mcpServers.parley = { command: 'npx', args: ['parley', 'mcp', '--as', 'mine'] };
    fs.writeFileSync(path.join(box.project, '.mcp.json'), JSON.stringify(mcp));
    const blocked = fs.mkdtempSync(path.join(base, 'blocked-'));
    fs.writeFileSync(path.join(blocked, '.codex'), 'not a folder');
    const before = state(box);
    const refusals: Array<[string[], number, RegExp]> = [
      [['install', 'vscode', '--as', 'x', '--dir', box.project], 2, /one client, claude, codex, gemini, cursor \(got "vscode"\)/],
      [['install', 'claude', '--dir', box.project], 2, /install needs --as HANDLE/],
      [['install', 'claude', '--as', 'bad handle!', '--dir', box.project], 2, /Invalid --as "bad handle!"/],
      [['install', 'claude', '--as', 'x', '--session', 'a b'], 2, /Invalid --session/],
      [['install', 'claude', '--as', 'x', '--dir', path.join(box.project, 'nowhere')], 2, /Invalid --dir: .*nowhere is not an existing folder/],
      [['install', 'claude', '--as', 'x', '--dir', box.project, '--user'], 2, /--dir \(a project\) or --user/],
      [['install', 'gemini', '--as', 'x', '--dir', box.project], 2, new RegExp(`${path.join(box.project, '.gemini', 'settings.json')} is not valid JSON`)],
      [['install', 'codex', '--as', 'x', '--user'], 1, new RegExp(`${path.join(box.home, '.codex', 'config.toml')} already defines \\[mcp_servers.parley\\] outside Parley's managed block`)],
      [['install', 'claude', '--as', 'x', '--dir', box.project], 1, /\.mcp\.json already has an MCP server named "parley" that "parley install" did not write/],
      [['uninstall', 'cursor', '--dir', box.project], 1, /No install for Cursor \(project .*\) is recorded/],
      [['install', 'codex', '--as', 'x', '--dir', blocked], 2, new RegExp(`Cannot write ${path.join(blocked, '.codex', 'config.toml')}: ${path.join(blocked, '.codex')} is a file, not a folder`)],
    ];
    for (const [args, status, message] of refusals) {
      const result = await runParley([...args, ...(args[0] === 'install' ? hubFlags() : ['--home', parleyHome])], box.home, box.project);
      expect(result.status, args.join(' ')).toBe(status);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stdout).toBe('');
      expect(state(box), args.join(' ')).toEqual(before);
    }
    expect(snapshot(blocked)).toEqual({ '.codex': 'not a folder' });
  });

  it("uninstall - a file edited after install keeps the user's edits and loses only Parley's entries; an approval the user had stays; the original is never replaced by a later run's text", async () => {
    const box = sandbox(base, 'edits');
    const settingsFile = path.join(box.project, '.claude', 'settings.local.json');
    const mcpFile = path.join(box.project, '.mcp.json');
    const seeded = readJson(settingsFile);
    fs.writeFileSync(settingsFile, `${JSON.stringify({ ...seeded, enabledMcpjsonServers: ['docs'] }, null, 2)}\n`);
    const originalSettings = fs.readFileSync(settingsFile, 'utf8');
    const originalMcp = fs.readFileSync(mcpFile, 'utf8');
    const args = ['install', 'claude', '--as', 'editor', '--dir', box.project, ...hubFlags()];
    expect((await runParley(args, box.home, box.project)).status).toBe(0);
    expect(readJson(settingsFile).enabledMcpjsonServers).toEqual(['docs', 'parley']);

    // The user edits both files, then installs again: the originals kept are still the first ones.
    const settings = readJson(settingsFile);
    settings.env = { DEBUG: '1' };
    settings.hooks.PostToolUse.push({ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo ran' }] });
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
    const mcp = readJson(mcpFile);
    mcp.mcpServers.lint = { command: 'lint-server' };
    fs.writeFileSync(mcpFile, JSON.stringify(mcp, null, 4));
    expect((await runParley(args, box.home, box.project)).status).toBe(0);
    const record = (readJson(path.join(parleyHome, 'installs.json')).installs as Json[]).find((r) => r.root === box.project)!;
    const backups = Object.fromEntries((record.files as Json[]).map((f) => [f.path, fs.readFileSync(f.backup as string, 'utf8')]));
    expect(backups).toEqual({ [mcpFile]: originalMcp, [settingsFile]: originalSettings });

    const undo = await runParley(['uninstall', 'claude', '--dir', box.project, '--home', parleyHome], box.home, box.project);
    expect(undo.status).toBe(0);
    expect(undo.stdout).toContain("Parley's entries removed, your later edits kept");
    expect(readJson(mcpFile)).toEqual({ mcpServers: { docs: { command: 'npx', args: ['-y', 'docs-server'] }, lint: { command: 'lint-server' } } });
    expect(readJson(settingsFile)).toEqual({
      ...seeded,
      enabledMcpjsonServers: ['docs'],
      hooks: { PostToolUse: [...(seeded.hooks.PostToolUse as Json[]), { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo ran' }] }] },
      env: { DEBUG: '1' },
    });
    for (const file of record.files as Json[]) expect(fs.existsSync(file.backup as string)).toBe(false);
  });

  it('uninstall - a file install created keeps what the user added to it since (and the keys its format needs); an untouched one goes', async () => {
    const box = sandbox(base, 'created');
    const args = ['install', 'cursor', '--as', 'cursor-user', '--user', ...hubFlags()];
    expect((await runParley(args, box.home, box.project)).status).toBe(0);
    const hooksFile = path.join(box.home, '.cursor', 'hooks.json');
    const hooks = readJson(hooksFile);
    hooks.hooks.afterFileEdit = [{ command: 'fmt' }];
    fs.writeFileSync(hooksFile, JSON.stringify(hooks, null, 2));
    expect((await runParley(['uninstall', 'cursor', '--user', '--home', parleyHome], box.home, box.project)).status).toBe(0);
    expect(fs.existsSync(path.join(box.home, '.cursor', 'mcp.json'))).toBe(false);
    expect(readJson(hooksFile)).toEqual({ version: 1, hooks: { afterFileEdit: [{ command: 'fmt' }] } });

    // The folder was there before this install, so it stays (a folder install made goes: see install.test.ts, user scope).
    fs.rmSync(hooksFile);
    const before = snapshot(box.home);
    expect((await runParley(args, box.home, box.project)).status).toBe(0);
    expect((await runParley(['uninstall', 'cursor', '--user', '--home', parleyHome], box.home, box.project)).status).toBe(0);
    expect(snapshot(box.home)).toEqual(before);
  });

  it('uninstall - in a folder outside git, with another install recorded, it takes out its own files and exits 0', async () => {
    const box = sandbox(base, 'no-git-two');
    const seeded = fs.readFileSync(path.join(box.project, '.mcp.json'), 'utf8');
    const install = (client: string, handle: string): string[] => ['install', client, '--as', handle, '--dir', box.project, ...hubFlags()];
    expect((await runParley(install('claude', 'nogit-claude'), box.home, box.project)).status).toBe(0);
    expect((await runParley(install('cursor', 'nogit-cursor'), box.home, box.project)).status).toBe(0);
    const removed = await runParley(['uninstall', 'claude', '--dir', box.project, '--home', parleyHome], box.home, box.project);
    expect(removed.stderr).toBe('');
    expect(removed.status).toBe(0);
    expect(fs.readFileSync(path.join(box.project, '.mcp.json'), 'utf8')).toBe(seeded);
    // The other install is untouched, and goes as cleanly.
    expect(readJson(path.join(box.project, '.cursor', 'mcp.json')).mcpServers.parley).toBeDefined();
    expect((await runParley(['uninstall', 'cursor', '--dir', box.project, '--home', parleyHome], box.home, box.project)).status).toBe(0);
  });

  it('install - installing again as another handle is refused until the first is uninstalled', async () => {
    const box = sandbox(base, 'rehandle');
    expect((await runParley(['install', 'gemini', '--as', 'first', '--dir', box.project, ...hubFlags()], box.home, box.project)).status).toBe(0);
    const before = state(box);
    const second = await runParley(['install', 'gemini', '--as', 'second', '--dir', box.project, ...hubFlags()], box.home, box.project);
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/already installed for Gemini CLI here as @first; uninstall it first/);
    expect(state(box)).toEqual(before);
  });

  it('install - with no hub running, install starts one in the background on the home (as parley mcp does) and joins the handle there', async () => {
    const box = sandbox(base, 'nohub');
    const home = path.join(base, 'fresh-home');
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runParley(['install', 'codex', '--as', 'early', '--dir', box.project, '--home', home, '--url', url], box.home, box.project);
    const lock = path.join(home, 'hub.lock.json');
    if (fs.existsSync(lock)) startedHubs.push((readJson(lock) as { pid: number }).pid);
    expect(result.stderr).toContain(`no hub answered at ${url}; started one`);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Joined @early');
    expect(readJson(path.join(home, 'credentials.json'))).toHaveProperty(['default/early']);
    expect((await fetch(`${url}/healthz`)).ok).toBe(true);
    const pid = startedHubs.pop()!;
    process.kill(pid, 'SIGTERM');
    await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
  });

  it("install - the client-side timeouts come from the home's config (install.*), and a bad value there is refused naming the key", async () => {
    const box = sandbox(base, 'timeouts');
    const home = fs.mkdtempSync(path.join(base, 'configured-home-'));
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ install: { hookTimeoutSeconds: 20, stopTimeoutMarginSeconds: 45, mcpStartupTimeoutSeconds: 50 } }));
    const dry = await runParley(['install', 'codex', '--as', 'timed', '--dir', box.project, '--home', home, '--dry-run'], box.home, box.project);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('startup_timeout_sec = 50');
    expect(dry.stdout.match(/"timeout": \d+/g)).toEqual(['"timeout": 5', '"timeout": 345', '"timeout": 20', '"timeout": 20', '"timeout": 20']);
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ install: { hookTimeoutSeconds: 0 } }));
    const before = state(box);
    const bad = await runParley(['install', 'codex', '--as', 'timed', '--dir', box.project, '--home', home], box.home, box.project);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('install.hookTimeoutSeconds');
    expect(state(box)).toEqual(before);
  });
});
