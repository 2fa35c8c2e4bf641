import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { BIN, track } from './serve.js';

/**
 * For the `parley install` tests: sandboxes that already hold unrelated
 * config for every client (test/fixtures/install/seed), byte snapshots of
 * folder trees, the expected files with their placeholders filled, and the
 * CLI run as a user runs it (HOME pointed at the sandbox, no PARLEY_*).
 */
export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/install');

export interface Sandbox {
  project: string;
  home: string;
}

export function sandbox(base: string, name: string): Sandbox {
  const root = fs.mkdtempSync(path.join(base, `${name}-`));
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  fs.cpSync(path.join(FIXTURES, 'seed', 'project'), project, { recursive: true });
  fs.cpSync(path.join(FIXTURES, 'seed', 'home'), home, { recursive: true });
  return { project, home };
}

/**
 * Every file (its bytes), folder (a trailing "/"), symlink ("-> " its target, not followed) and
 * socket ("(socket)": a running hub's hub.sock, which has no bytes to read) under `dir`, by relative path.
 */
export function snapshot(dir: string): Record<string, string> {
  const tree: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const rel = path.relative(dir, full);
      if (entry.isSymbolicLink()) tree[rel] = `-> ${fs.readlinkSync(full)}`;
      else if (entry.isSocket()) tree[rel] = '(socket)';
      else if (entry.isDirectory()) {
        tree[`${rel}/`] = '';
        walk(full);
      } else tree[rel] = fs.readFileSync(full, 'latin1');
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return tree;
}

/** This process's environment without any PARLEY_* variable, with HOME pointed at the sandbox's home. */
export function clientEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_') && value !== undefined) env[key] = value;
  return { ...env, HOME: home };
}

export function runParley(args: string[], home: string, cwd?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = track(spawn(process.execPath, [BIN, ...args], { env: clientEnv(home), cwd: cwd ?? home, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** An expected file with its placeholders filled: node, this checkout's bin/parley, the Parley home and the hub's URL. */
export function expected(file: string, values: { home: string; url: string }): string {
  return fs
    .readFileSync(file, 'utf8')
    .replaceAll('<NODE>', process.execPath)
    .replaceAll('<PARLEY>', BIN)
    .replaceAll('<PARLEY_HOME>', values.home)
    .replaceAll('<HUB_URL>', values.url);
}

/** The expected files of one install, as paths relative to the sandbox ("project/.mcp.json", "home/.claude.json"). */
export function expectedFiles(client: string, scope: string): string[] {
  const dir = path.join(FIXTURES, 'expected', `${client}-${scope}`);
  return Object.keys(snapshot(dir)).filter((rel) => !rel.endsWith('/'));
}

/** A TOML file parsed by a TOML 1.0 parser (smol-toml, which throws on anything else): proof that the text is valid TOML. */
export function parseToml(file: string): Record<string, unknown> {
  return parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}
