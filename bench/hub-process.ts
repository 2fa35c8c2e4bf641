import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** A `parley serve` child as the benchmarks drive it: where it serves, and its resident memory. */

/** Resolves with the hub's base URL once it says it is running. */
export function hubUrl(hub: ChildProcess): Promise<string> {
  let out = '';
  return new Promise((resolve, reject) => {
    hub.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(out)?.[1];
      if (out.includes('running') && url) resolve(url);
    });
    hub.stderr!.resume();
    hub.once('exit', (code) => reject(new Error(`the hub exited with ${code}: ${out}`)));
  });
}

export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}
