import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';

/**
 * Which modules a Node process loads: the cause of a command's start-up
 * time, and the proof of which layers a program reaches. A loader hook
 * appends each file URL it loads to the file named by LOAD_LOG_FILE. Hooks
 * run on their own thread: written to stderr, the last lines can be lost
 * when the process exits (seen on Node 24), while a synchronous append is
 * done before the module it names is even evaluated.
 */
export const LOG_LOADS = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:') || url.startsWith('node:')) appendFileSync(process.env.LOAD_LOG_FILE, url + '\\\\n');
  return next(url, context);
}\`));
`)}`;

/** The files (under dist/ or node_modules/) `node ARGS` loads, and the built-ins it imports ("node:…"). */
export function modulesLoaded(nodeArgs: string[], env: NodeJS.ProcessEnv): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-loads-'));
  const log = path.join(dir, 'loads.txt');
  try {
    fs.writeFileSync(log, '');
    const run = spawnSync(process.execPath, ['--import', LOG_LOADS, ...nodeArgs], { env: { ...env, LOAD_LOG_FILE: log }, encoding: 'utf8', timeout: 20_000 });
    expect(run.error).toBeUndefined();
    return modulesInLog(log);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What a LOAD_LOG_FILE (LOG_LOADS) lists: the built-ins ("node:…"), then every module whose code was
 * loaded, as dist/… or node_modules/… (a part of the command's bundle stands for the modules in it).
 */
export function modulesInLog(log: string): string[] {
  const lines = fs.readFileSync(log, 'utf8').split('\n');
  const files = lines.filter((line) => line.startsWith('file://')).flatMap((line) => sourcesOf(line.slice('file://'.length)));
  return lines.filter((line) => line.startsWith('node:')).concat(files.map((file) => file.replace(/^.*?\/(dist|node_modules)\//, '$1/')));
}

/**
 * The modules a loaded file holds: itself, or for a part of the command's bundle (dist/src/bundle,
 * scripts/bundle-cli.mjs) the modules bundled into it, as its source map names them.
 */
function sourcesOf(file: string): string[] {
  if (!/\/dist\/src\/bundle\/[^/]+\.js$/.test(file)) return [file];
  // The bundler's own runtime (a few helpers) comes from no module.
  if (/\/rolldown-runtime-[^/]+\.js$/.test(file)) return [];
  const map = JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((source) => path.resolve(path.dirname(file), source));
}
