import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claude, codex, cursor, gemini } from '../fixtures/client-events.js';
import { clientEnv, runParley, sandbox } from '../helpers/install.js';
import { joinOver, restCall, startServe, stopHubs, type Json, type RunningHub } from '../helpers/serve.js';

/**
 * The hooks `parley install` writes, run exactly as written — through `sh -c`,
 * as the clients run them, from an environment with no PARLEY_* variable —
 * with each client's documented tool-event JSON on stdin: a DM sent to the
 * handle comes back as that client's added context, once; the next run has
 * nothing to add.
 */
let base: string;
let parleyHome: string;
let hub: RunningHub;
let bossToken: string;

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-installed-hooks-'));
  parleyHome = path.join(base, 'parley-home');
  hub = await startServe(parleyHome);
  bossToken = await joinOver(hub, { handle: 'boss', profile: { kind: 'human' } });
});

afterAll(async () => {
  await stopHubs();
  fs.rmSync(base, { recursive: true, force: true });
});

const readJson = (file: string): Json => JSON.parse(fs.readFileSync(file, 'utf8')) as Json;

/** The command of Parley's handler for `event` in a hooks file: grouped (Claude, Codex, Gemini) or not (Cursor). */
function commandFor(file: string, event: string, handle: string): string {
  const items = (readJson(file).hooks as Json)[event] as Json[];
  const handlers = items.flatMap((item) => (Array.isArray(item.hooks) ? (item.hooks as Json[]) : [item]));
  const ours = handlers.find((h) => typeof h.command === 'string' && (h.command as string).includes(` --as ${handle}`));
  if (!ours) throw new Error(`no Parley handler for ${event} in ${file}`);
  return ours.command as string;
}

/** Each client's tool event, its stdin as documented (test/fixtures/client-events.ts), and where its answer carries the added context. */
const CLIENTS = [
  {
    client: 'claude',
    file: '.claude/settings.local.json',
    event: 'PostToolUse',
    stdin: () => claude.postToolUse(),
    context: (out: Json) => (out.hookSpecificOutput as Json | undefined)?.additionalContext,
    nothing: '',
  },
  {
    client: 'codex',
    file: '.codex/hooks.json',
    event: 'PostToolUse',
    stdin: () => codex.postToolUse,
    context: (out: Json) => (out.hookSpecificOutput as Json | undefined)?.additionalContext,
    nothing: '',
  },
  {
    client: 'gemini',
    file: '.gemini/settings.json',
    event: 'AfterTool',
    stdin: () => gemini.afterTool,
    context: (out: Json) => (out.hookSpecificOutput as Json | undefined)?.additionalContext,
    nothing: '',
  },
  {
    client: 'cursor',
    file: '.cursor/hooks.json',
    event: 'postToolUse',
    stdin: () => cursor.postToolUse,
    context: (out: Json) => out.additional_context,
    nothing: '{}',
  },
] as const;

describe('installed hooks', () => {
  it.each(CLIENTS)('hooks - $client: the installed $event hook, run through sh -c with the documented stdin, returns a DM as added context once, then nothing', async ({ client, file, event, stdin, context, nothing }) => {
    const box = sandbox(base, client);
    const handle = `hooked-${client}`;
    const installed = await runParley(['install', client, '--as', handle, '--dir', box.project, '--home', parleyHome, '--url', hub.url], box.home, box.project);
    expect(installed.status, installed.stderr).toBe(0);
    const text = `please look at the ${client} build`;
    expect((await restCall(hub, bossToken, 'POST', '/dm', { to: handle, text })).status).toBe(201);

    const command = commandFor(path.join(box.project, file), event, handle);
    const env: Record<string, string> = clientEnv(box.home);
    for (const key of Object.keys(env)) if (key.startsWith('CURSOR_')) delete env[key];
    if (client === 'cursor') env.CURSOR_VERSION = '2.0.0';
    const run = () => spawnSync('sh', ['-c', command], { input: JSON.stringify(stdin()), env, cwd: box.project, encoding: 'utf8', timeout: 20_000 });

    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.trimStart().startsWith('{'), first.stdout).toBe(true);
    expect(String(context(JSON.parse(first.stdout) as Json))).toContain(text);

    const second = run();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe(nothing);
  });

  it("hooks - a home and project whose paths hold a space and a single quote: the installed hook still reaches that home's hub through sh -c, whatever PARLEY_HOME says", async () => {
    const oddHome = path.join(base, "it's a home");
    const oddHub = await startServe(oddHome);
    const boss = await joinOver(oddHub, { handle: 'boss', profile: { kind: 'human' } });
    const box = sandbox(base, "odd 'project'");
    const installed = await runParley(['install', 'claude', '--as', 'quoted', '--dir', box.project, '--home', oddHome], box.home, box.project);
    expect(installed.status, installed.stderr).toBe(0);
    expect((await restCall(oddHub, boss, 'POST', '/dm', { to: 'quoted', text: 'found you' })).status).toBe(201);

    const command = commandFor(path.join(box.project, '.claude/settings.local.json'), 'PostToolUse', 'quoted');
    expect(command).toContain(`--home '${base}/it'\\''s a home'`);
    const env: Record<string, string> = clientEnv(box.home);
    for (const key of Object.keys(env)) if (key.startsWith('CURSOR_')) delete env[key];
    // The written --home wins over a PARLEY_HOME the client's environment may carry.
    env.PARLEY_HOME = path.join(base, 'some-other-home');
    const run = spawnSync('sh', ['-c', command], { input: JSON.stringify(claude.postToolUse()), env, cwd: box.project, encoding: 'utf8', timeout: 20_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(((JSON.parse(run.stdout) as Json).hookSpecificOutput as Json).additionalContext).toContain('found you');
  });
});
