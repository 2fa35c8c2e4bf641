import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempHome } from './hub.js';
import { restCall, track, type Json, type RunningHub } from './serve.js';

/**
 * For the tests that run a real agent CLI (test/clients): temporary folders,
 * the environment of a user's terminal, a tracked child process with its
 * output, presence as the hub reports it, and a message sent at the moment
 * the agent's stop hook waits for one.
 */

/** Temporary folders made by a test file, all removed by `cleanup()`. */
export function tempDirs(): { make: (prefix: string) => string; cleanup: () => void } {
  const cleanups: Array<() => void> = [];
  return {
    make: (prefix) => {
      const made = tempHome(prefix);
      cleanups.push(made.cleanup);
      return made.home;
    },
    cleanup: () => {
      for (const cleanup of cleanups.splice(0)) cleanup();
    },
  };
}

/**
 * The environment of a user's terminal: no PARLEY_* variable, none of the
 * client's own (`dropped` prefixes), its own HOME, and a temporary folder
 * inside that home (a client's scratch files go when the test removes it).
 */
export function userEnv(home: string, dropped: string[], extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!['PARLEY_', ...dropped].some((prefix) => key.startsWith(prefix))) env[key] = value;
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  return { ...env, HOME: home, TMPDIR: tmp, ...extra };
}

/** A command run to its end (stopped by stopHubs() if the test ends first), with what it printed. */
export function runToEnd(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  started?: (child: ChildProcess) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = track(spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] }));
  started?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** A participant's presence as another participant (`token`) sees it. */
export async function presenceOf(hub: RunningHub, token: string, handle: string): Promise<Json | undefined> {
  const answer = await restCall(hub, token, 'GET', '/presence');
  return (answer.json.presence as Json[]).find((entry) => entry.handle === handle);
}

/**
 * Runs `act` once the agent's first turn has ended and its stop hook waits:
 * `handle` turns from thinking (its prompt and tool hooks) to listening (the
 * stop wait) after the model was called. `stop()` ends the watch and tells
 * whether `act` ran.
 */
export function onStopWait(hub: RunningHub, token: string, handle: string, modelCalled: () => boolean, act: () => Promise<void>): { stop: () => Promise<boolean> } {
  let finished = false;
  let acted = false;
  const watch = (async () => {
    let sawThinking = false;
    while (!finished) {
      const state = (await presenceOf(hub, token, handle))?.state;
      if (state === 'thinking') sawThinking = true;
      if (sawThinking && modelCalled() && state === 'listening') {
        await act();
        acted = true;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    stop: async () => {
      finished = true;
      await watch;
      return acted;
    },
  };
}
