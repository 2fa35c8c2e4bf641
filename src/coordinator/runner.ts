/**
 * Runs one adapter command: the argv as given (no shell), the messages on its
 * stdin, its stdout kept (up to a cap) as the answer. It runs in a process
 * group of its own, so a timeout or a stop ends everything it started, not
 * only the first process.
 */

import { spawn } from 'node:child_process';
import { COORDINATOR_KILL_GRACE_MS } from '../config/defaults.js';

export interface AdapterRun {
  argv: readonly string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  /** Output past this many characters is dropped (`cut` says so). */
  maxOutputChars: number;
  /** Aborting kills the run (the coordinator is stopping). */
  signal?: AbortSignal;
}

export type RunOutcome =
  | { kind: 'exited'; output: string; cut: boolean; elapsedMs: number }
  | { kind: 'failed'; exitCode: number | null; exitSignal: string | null; stderr: string; elapsedMs: number }
  | { kind: 'not-started'; reason: string; elapsedMs: number }
  | { kind: 'timed-out'; elapsedMs: number }
  | { kind: 'stopped'; elapsedMs: number };

/** The last characters of stderr worth showing in a failure notice. */
const STDERR_TAIL_CHARS = 300;

/**
 * The process groups of the adapters running now. Each runs detached (a group
 * of its own), so nothing would end them with this process: however it exits,
 * they are killed on the way out (synchronously, as 'exit' requires).
 */
const liveGroups = new Set<number>();
let killedOnExit = false;

function trackGroup(pid: number): void {
  if (!killedOnExit) {
    killedOnExit = true;
    process.on('exit', () => {
      for (const group of liveGroups) killGroupOf(group, 'SIGKILL');
    });
  }
  liveGroups.add(pid);
}

function killGroupOf(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

export function runAdapter(run: AdapterRun): Promise<RunOutcome> {
  const started = Date.now();
  const elapsed = (): number => Date.now() - started;
  const [program, ...args] = run.argv;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program!, args, { cwd: run.cwd, env: run.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (error) {
      resolve({ kind: 'not-started', reason: (error as Error).message, elapsedMs: elapsed() });
      return;
    }
    let output = '';
    let cut = false;
    let stderr = '';
    let ending: 'timed-out' | 'stopped' | undefined;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    if (child.pid !== undefined) trackGroup(child.pid);
    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid !== undefined) killGroupOf(child.pid, signal);
    };
    const end = (how: 'timed-out' | 'stopped'): void => {
      if (ending || settled) return;
      ending = how;
      killGroup('SIGTERM');
      graceTimer = setTimeout(() => killGroup('SIGKILL'), COORDINATOR_KILL_GRACE_MS);
    };
    const timer = setTimeout(() => end('timed-out'), run.timeoutMs);
    const onAbort = (): void => end('stopped');
    run.signal?.addEventListener('abort', onAbort, { once: true });
    if (run.signal?.aborted) onAbort();

    const finish = (outcome: RunOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      run.signal?.removeEventListener('abort', onAbort);
      // Whatever the adapter left behind in its group goes with it.
      killGroup('SIGKILL');
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      resolve(outcome);
    };

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (output.length + chunk.length <= run.maxOutputChars) output += chunk;
      else {
        output += chunk.slice(0, Math.max(0, run.maxOutputChars - output.length));
        cut = true;
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    // An adapter that does not read its stdin must not fail the run.
    child.stdin.on('error', () => undefined);
    child.stdin.end(run.stdin);

    child.once('error', (error) => finish({ kind: 'not-started', reason: error.message, elapsedMs: elapsed() }));
    child.once('exit', () => {
      if (!ending) return;
      // Killed: its pipes may stay open in a stray descendant; do not wait for them.
      child.stdout.destroy();
      child.stderr.destroy();
      finish({ kind: ending, elapsedMs: elapsed() });
    });
    child.once('close', (code, signal) => {
      if (ending) {
        finish({ kind: ending, elapsedMs: elapsed() });
        return;
      }
      if (code === 0) finish({ kind: 'exited', output, cut, elapsedMs: elapsed() });
      else finish({ kind: 'failed', exitCode: code, exitSignal: signal, stderr: stderr.trim(), elapsedMs: elapsed() });
    });
  });
}
