import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * The third-party programs some tests drive (the agent CLIs, the MCP
 * Inspector and conformance suite) live in a package of their own,
 * test/tools, installed when the tests run rather than by `npm install`
 * (test/tools/install.mjs). A test file that drives one waits for that
 * install in its first beforeAll, with TOOLS_WAIT_MS as the hook's timeout.
 */
export const TOOLS = path.resolve(import.meta.dirname, '../tools');

/** How long a file may wait for the install (a fresh `npm ci` of the tools on a busy machine). */
export const TOOLS_WAIT_MS = 600_000;

/** A path inside the tools' node_modules ('.bin/claude'). */
export function toolPath(relative: string): string {
  return path.join(TOOLS, 'node_modules', relative);
}

/** Resolves once the tools are installed (at once when they are); rejects with npm's output when the install fails. */
export function testToolsInstalled(): Promise<void> {
  const child = spawn(process.execPath, [path.join(TOOLS, 'install.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`test/tools/install.mjs exited ${code}: ${output.slice(-2000)}`))));
  });
}
