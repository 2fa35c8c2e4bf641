import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientEnv, expected, expectedFiles, FIXTURES, parseToml, runParley, sandbox, snapshot, type Sandbox } from '../helpers/install.js';
import { BIN, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';

/**
 * `parley install` / `parley uninstall` for the four clients, as a user runs
 * them: a real hub on an ephemeral port with its own home, a project and a
 * HOME that already hold unrelated config for every client, and the files
 * compared byte for byte with the expected ones (test/fixtures/install/
 * expected, written from each client's documented format).
 */
let base: string;
let parleyHome: string;
let hub: RunningHub;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-install-'));
  parleyHome = path.join(base, 'parley-home');
  hub = await startServe(parleyHome);
});

afterAll(async () => {
  await stopHubs();
  fs.rmSync(base, { recursive: true, force: true });
});

const CASES = (['claude', 'codex', 'gemini', 'cursor'] as const).flatMap((client) => (['project', 'user'] as const).map((scope) => ({ client, scope })));

const scopeFlags = (box: Sandbox, scope: 'project' | 'user'): string[] => (scope === 'user' ? ['--user'] : ['--dir', box.project]);
const hubFlags = (): string[] => ['--home', parleyHome, '--url', hub.url];
const ledgerFile = (): string => path.join(parleyHome, 'installs.json');
const readLedger = (): Json[] => (fs.existsSync(ledgerFile()) ? (JSON.parse(fs.readFileSync(ledgerFile(), 'utf8')) as { installs: Json[] }).installs : []);
const both = (box: Sandbox): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(snapshot(box.project)).map(([k, v]) => [`project/${k}`, v])),
  ...Object.fromEntries(Object.entries(snapshot(box.home)).map(([k, v]) => [`home/${k}`, v])),
});

describe('parley install', () => {
  it.each(CASES)('install - $client ($scope scope): the dry run writes nothing; install writes the documented entries beside the unrelated ones and keeps the originals; a second run changes no byte; uninstall (after its own dry run, which writes nothing) restores every byte', async ({ client, scope }) => {
    const box = sandbox(base, `${client}-${scope}`);
    const root = scope === 'user' ? box.home : box.project;
    const original = both(box);
    const ledgerBefore = fs.existsSync(ledgerFile()) ? fs.readFileSync(ledgerFile(), 'utf8') : undefined;
    const credentialsBefore = fs.readFileSync(path.join(parleyHome, 'credentials.json'), { flag: 'a+' }).toString();
    const args = ['install', client, '--as', 'coder-1', ...scopeFlags(box, scope), ...hubFlags()];

    const dry = await runParley([...args, '--dry-run'], box.home, box.project);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('Dry run: nothing is written');
    for (const rel of expectedFiles(client, scope)) expect(dry.stdout).toContain(path.join(scope === 'user' ? box.home : box.project, rel.split('/').slice(1).join('/')));
    expect(both(box)).toEqual(original);
    expect(fs.existsSync(ledgerFile()) ? fs.readFileSync(ledgerFile(), 'utf8') : undefined).toBe(ledgerBefore);
    expect(fs.readFileSync(path.join(parleyHome, 'credentials.json'), 'utf8')).toBe(credentialsBefore);

    const first = await runParley(args, box.home, box.project);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const installed = both(box);
    const files = expectedFiles(client, scope);
    // Exactly the expected files changed, each to the expected bytes; everything else is as it was.
    const changed = Object.keys(installed).filter((rel) => !rel.endsWith('/') && installed[rel] !== original[rel]);
    expect(changed.sort()).toEqual([...files].sort());
    for (const rel of files) {
      expect(installed[rel], rel).toBe(expected(path.join(FIXTURES, 'expected', `${client}-${scope}`, rel), { home: parleyHome, url: hub.url }));
    }
    if (client === 'codex') {
      const toml = parseToml(path.join(root, '.codex', 'config.toml'));
      expect(toml.model).toBe('gpt-5-codex');
      expect((toml.mcp_servers as Json).parley).toEqual({ command: process.execPath, args: expect.arrayContaining(['mcp', '--as', 'coder-1']), startup_timeout_sec: 30 });
    }
    // The original of every file install changed is kept in the home, byte for byte.
    const record = readLedger().find((r) => r.client === client && r.root === root)!;
    expect(record).toMatchObject({ scope, handle: 'coder-1' });
    for (const file of record.files as Json[]) {
      const rel = path.relative(path.dirname(root), file.path as string).replace(/^[^/]+/, scope === 'user' ? 'home' : 'project');
      if (original[rel] === undefined) expect(file.created, rel).toBe(true);
      else expect(fs.readFileSync(file.backup as string, 'latin1'), rel).toBe(original[rel]);
    }
    // Joined by the first install that ran against the home; its token is where `parley mcp --as` and `parley hook --as` look.
    expect(first.stdout).toMatch(/Joined @coder-1|@coder-1 was already joined/);
    expect(JSON.parse(fs.readFileSync(path.join(parleyHome, 'credentials.json'), 'utf8'))).toHaveProperty(['default/coder-1']);

    const ledgerAfterFirst = fs.readFileSync(ledgerFile(), 'utf8');
    const again = await runParley(args, box.home, box.project);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('already joined');
    expect(both(box)).toEqual(installed);
    expect(fs.readFileSync(ledgerFile(), 'utf8')).toBe(ledgerAfterFirst);

    const undoArgs = ['uninstall', client, ...scopeFlags(box, scope), '--home', parleyHome];
    const dryUndo = await runParley([...undoArgs, '--dry-run'], box.home, box.project);
    expect(dryUndo.status).toBe(0);
    expect(dryUndo.stdout).toContain('Dry run: nothing is changed');
    expect(both(box)).toEqual(installed);
    expect(fs.readFileSync(ledgerFile(), 'utf8')).toBe(ledgerAfterFirst);

    const undo = await runParley(undoArgs, box.home, box.project);
    expect(undo.stderr).toBe('');
    expect(undo.status).toBe(0);
    expect(both(box)).toEqual(original);
    expect(readLedger().some((r) => r.client === client && r.root === root)).toBe(false);
    for (const file of record.files as Json[]) if (file.backup) expect(fs.existsSync(file.backup as string)).toBe(false);
  });

  it('install - each MCP server command, started exactly as the written config says from an environment with no PARLEY_* variable, answers whoami as its handle', async () => {
    const box = sandbox(base, 'mcp');
    const configs: Record<string, () => Json> = {
      claude: () => (JSON.parse(fs.readFileSync(path.join(box.project, '.mcp.json'), 'utf8')) as Json).mcpServers.parley,
      codex: () => (parseToml(path.join(box.project, '.codex', 'config.toml')).mcp_servers as Json).parley,
      gemini: () => (JSON.parse(fs.readFileSync(path.join(box.project, '.gemini', 'settings.json'), 'utf8')) as Json).mcpServers.parley,
      cursor: () => (JSON.parse(fs.readFileSync(path.join(box.project, '.cursor', 'mcp.json'), 'utf8')) as Json).mcpServers.parley,
    };
    for (const [client, read] of Object.entries(configs)) {
      const handle = `agent-${client}`;
      const done = await runParley(['install', client, '--as', handle, '--dir', box.project, ...hubFlags()], box.home, box.project);
      expect(done.status, done.stderr).toBe(0);
      const entry = read();
      const transport = new StdioClientTransport({ command: entry.command as string, args: entry.args as string[], env: clientEnv(box.home), cwd: box.project, stderr: 'pipe' });
      const mcp = new Client({ name: `${client}-as-installed`, version: '1.0.0' });
      await mcp.connect(transport);
      try {
        const result = (await mcp.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ type: string; text?: string }>; isError?: boolean };
        expect(result.isError ?? false).toBe(false);
        expect(JSON.parse(result.content[0]!.text!)).toMatchObject({ handle, session: 'default' });
      } finally {
        await mcp.close();
      }
    }
    // It reached the test's hub through the --home/--url the config names: nothing fell back to a hub on the sandbox's default home.
    expect(fs.existsSync(path.join(box.home, '.parley'))).toBe(false);
  });

  it("install - the examples of docs/agent-clis.md are what --dry-run prints for each client with the default home and hub", async () => {
    const page = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/agent-clis.md'), 'utf8');
    const box = sandbox(base, 'readme');
    const empty = fs.mkdtempSync(path.join(base, 'empty-project-'));
    for (const client of ['claude', 'codex', 'gemini', 'cursor']) {
      const dry = await runParley(['install', client, '--as', 'coder-1', '--dry-run'], box.home, empty);
      expect(dry.status, dry.stderr).toBe(0);
      const printed = dry.stdout.replaceAll(BIN, '/opt/parley/bin/parley').replaceAll(process.execPath, '/usr/local/bin/node').replaceAll(`${empty}/`, '').replaceAll(path.join(box.home, '.parley'), '/home/me/.parley');
      const files = [...printed.matchAll(/^--- create (\S+):\n([\s\S]*?)(?=^--- |^record the install)/gm)];
      expect(files.length).toBeGreaterThan(0);
      for (const [, file, body] of files) expect(page, `${client} ${file}`).toContain(`\`${file}\`:\n\n\`\`\`${file!.endsWith('.toml') ? 'toml' : 'json'}\n${body}\`\`\``);
    }
  });
});
