import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { stubRuns, writeStub } from '../helpers/coordinator.js';
import { tempHome } from '../helpers/hub.js';
import { BIN, joinOver, restCall, startServe, stopHubs, track, type Json, type RunningHub } from '../helpers/serve.js';
import { claimedBlock, commandLines } from './pages.js';

/**
 * The agent-facing pages' command blocks, run as written by a user whose home
 * folder is a temp folder (so ~/.parley is the default home) with `parley` on
 * the PATH, against a hub on an ephemeral port.
 */
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await stopHubs();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function user(): { user: string; home: string; env: NodeJS.ProcessEnv } {
  const made = tempHome('parley-docs-user-');
  cleanups.push(made.cleanup);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_') && key !== 'CODEX_HOME') env[key] = value;
  env.HOME = made.home;
  env.PATH = `${path.dirname(BIN)}:${path.dirname(process.execPath)}:/usr/bin:/bin`;
  return { user: made.home, home: path.join(made.home, '.parley'), env };
}

/** Runs shell lines without blocking this process (a hub may be its child), in `cwd`. */
function bash(script: string, env: NodeJS.ProcessEnv, cwd: string): Promise<{ status: number | null; out: string }> {
  const child = track(spawn('bash', ['-euo', 'pipefail', '-c', script], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, out })));
}

async function answersTo(hub: RunningHub, token: string, dm: Json): Promise<Json[]> {
  const { json } = await restCall(hub, token, 'GET', `/threads/${encodeURIComponent('@coder-1')}/history?limit=50`);
  return (json.events as Json[]).filter((e) => e.author === 'coder-1' && e.meta?.reply_to === dm.id);
}

describe('docs', () => {
  it('docs - the stdio command of docs/agents-and-mcp.md serves MCP as coder-1 and starts the home\'s hub on its configured port', async () => {
    const [line] = commandLines(claimedBlock('mcpStdio'));
    const command = line!.split(' -- ')[1]!;
    expect(command).toBe('parley mcp --as coder-1');
    const { user: folder, home, env } = user();
    fs.mkdirSync(home, { mode: 0o700 });
    fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ server: { port: 0 } }));
    const transport = new StdioClientTransport({ command: 'bash', args: ['-c', `exec ${command}`], env: env as Record<string, string>, cwd: folder, stderr: 'pipe' });
    const client = new Client({ name: 'docs-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text?: string }> };
      expect(JSON.parse(result.content[0]!.text!)).toMatchObject({ handle: 'coder-1', session: 'default' });
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(['whoami', 'room_load', 'wait', 'chat_post', 'chat_read']));
      expect(tools).not.toContain('meeting_say');
    } finally {
      await client.close();
      // The hub it started in the background runs on: `parley stop` ends it.
      const stopped = await runCli(['stop'], { ...env });
      expect(stopped.stdout).toContain('Parley hub stopped');
    }
  });

  it('docs - the install commands of docs/agent-clis.md write, print and take out what the page says', async () => {
    const lines = commandLines(claimedBlock('install'));
    expect(lines).toHaveLength(5);
    const { user: folder, home, env } = user();
    const project = path.join(folder, 'code', 'my-app');
    fs.mkdirSync(project, { recursive: true });
    // A project is a git work tree: install keeps the files it writes with this machine's paths out of git.
    expect((await bash('git init -q', env, project)).status).toBe(0);
    await startServe(home, { env: { HOME: folder } });
    const run = await bash(lines.join('\n'), env, project);
    expect(run.status, run.out).toBe(0);
    // Claude Code in the project, then taken out again: install created its files, so uninstall removes them.
    expect(fs.existsSync(path.join(project, '.mcp.json'))).toBe(false);
    expect(fs.existsSync(path.join(project, '.claude'))).toBe(false);
    // Codex for the user, every project.
    const toml = fs.readFileSync(path.join(folder, '.codex', 'config.toml'), 'utf8');
    expect(toml).toContain('# BEGIN parley (managed by "parley install"');
    expect(toml).toContain('"--as", "coder-2"');
    expect(fs.existsSync(path.join(folder, '.codex', 'hooks.json'))).toBe(true);
    // Gemini: printed, nothing written.
    expect(run.out).toContain(`--- create ${project}/.gemini/settings.json:`);
    expect(fs.existsSync(path.join(project, '.gemini'))).toBe(false);
    // Cursor in the project, in session my-project.
    const cursor = JSON.parse(fs.readFileSync(path.join(project, '.cursor', 'mcp.json'), 'utf8')) as Json;
    expect(cursor.mcpServers.parley.args).toEqual(expect.arrayContaining(['--as', 'coder-4', '--session', 'my-project']));
    // Git: Cursor's files stay listed in the clone's exclude file; Claude Code's lines went with its uninstall.
    const exclude = fs.readFileSync(path.join(project, '.git', 'info', 'exclude'), 'utf8');
    expect(exclude).toContain('# BEGIN parley');
    expect(exclude).toContain('.cursor/mcp.json');
    expect(exclude).not.toContain('.claude/settings.local.json');
    const record = JSON.parse(fs.readFileSync(path.join(home, 'installs.json'), 'utf8')) as unknown;
    expect(JSON.stringify(record)).toContain('cursor');
  });

  it('docs - both ways docs/coordinator.md runs the coordinator answer a DM as the agent', async () => {
    const [beside, inside] = commandLines(claimedBlock('coordinate'));
    expect(beside).toBe('parley coordinate');
    expect(inside).toMatch(/^parley serve --set coordinator\.enabled=true$/);
    for (const line of [beside!, inside!]) {
      const { user: folder, home, env } = user();
      fs.mkdirSync(home, { mode: 0o700 });
      const stub = writeStub(home);
      fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ coordinator: { pollMs: 50, agents: { 'coder-1': { command: stub.command, env: { STUB_LOG: stub.log, STUB_REPLY: 'on it' } } } } }));
      const hub = line === beside ? await startServe(home, { env: { HOME: folder } }) : await startServe(home, { env: { HOME: folder }, args: line.split(' ').slice(2) });
      const human = await joinOver(hub, { handle: 'human', profile: { kind: 'human' } });
      await joinOver(hub, { handle: 'coder-1' });
      let out = '';
      if (line === beside) {
        const child = track(spawn('bash', ['-c', `exec ${line}`], { env, cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] }));
        child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
        await expect.poll(() => out, { timeout: 20_000 }).toContain('Parley coordinator running');
      }
      const dm = (await restCall(hub, human, 'POST', '/dm', { to: 'coder-1', text: 'are you there?' })).json;
      await expect.poll(() => answersTo(hub, human, dm), { timeout: 20_000, interval: 50 }).toMatchObject([{ content: 'on it' }]);
      expect(stubRuns(stub.log).filter((r) => r.at === 'start')).toHaveLength(1);
      await stopHubs();
    }
  });

  it('docs - the hub that docs/web.md starts with a password offers sign-in, and the password signs the human in', async () => {
    const [line] = commandLines(claimedBlock('webPassword'));
    const password = /^PARLEY_WEBUI_PASSWORD='([^']+)' npm start$/.exec(line!)?.[1];
    expect(password).toBe('pick-one');
    const { user: folder, home } = user();
    // npm start is `parley serve` on the default home (test/docs/readme-page.test.ts checks the script).
    const hub = await startServe(home, { env: { HOME: folder, PARLEY_WEBUI_PASSWORD: password! } });
    expect(await (await fetch(`${hub.url}/api/v1/login`)).json()).toEqual({ passwordSet: true, signedIn: false });
    const page = await fetch(`${hub.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    const wrong = await fetch(`${hub.url}/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'guess' }) });
    expect(wrong.status).toBe(401);
    const login = await fetch(`${hub.url}/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
    expect(login.status).toBe(200);
    expect(((await login.json()) as Json).participant).toMatchObject({ handle: 'human' });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    expect(await (await fetch(`${hub.url}/api/v1/login`, { headers: { cookie } })).json()).toEqual({ passwordSet: true, signedIn: true });
  });
});
