import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A `parley serve` child as the benchmarks drive it: where it serves, and its resident memory. */

/** `bin/parley` of this checkout, found from here whether this runs compiled (dist/bench) or from source (bench). */
export const PARLEY_BIN = ((): string => {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const bin = path.join(dir, 'bin', 'parley');
    if (fs.existsSync(bin)) return bin;
    if (path.dirname(dir) === dir) throw new Error('bin/parley not found above the benchmark');
  }
})();

/** Node flags the hub runs with, as `npm start` and bin/parley's own first line give them. */
export const HUB_NODE_FLAGS = ['--max-semi-space-size=2'];

/** Resolves with the hub's base URL once it says it is running. */
export function hubUrl(hub: ChildProcess): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    hub.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(out)?.[1];
      if (out.includes('running') && url) resolve(url);
    });
    // Its warnings and errors go into the message if it exits before running.
    hub.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    hub.once('exit', (code) => reject(new Error(`the hub exited with ${code}: ${out}`)));
  });
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}
