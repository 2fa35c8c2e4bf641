import { spawn } from 'node:child_process';
import { BIN, track } from '../helpers/serve.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `bin/parley` without blocking this process, unlike spawnSync: a hub
 * started by the test is this process's child, and only a running event loop
 * collects it when it exits (which `parley stop` waits for).
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const child = track(spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
