import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect } from 'vitest';
import { tempHome } from '../helpers/hub.js';
import { BIN, childEnv, restCall, startServe, stopHubs, track, type Json, type RunningHub } from '../helpers/serve.js';
import { runCli, type CliRun } from './run-cli.js';

/**
 * A real hub (`parley serve` on a temporary home, on an ephemeral port) for
 * the tests of one file or describe block, and `bin/parley` run against it as
 * a user in another terminal would. Started in beforeAll, with the
 * participants given joined through `parley join`; stopped, and its home
 * removed, in afterAll.
 */
export interface ServedCliSetup {
  /** Participants to join before the tests, as `parley join HANDLE [--kind KIND]`. */
  join?: ReadonlyArray<readonly [handle: string, kind?: 'agent' | 'human']>;
  /** The hub's own environment and arguments. */
  serve?: { env?: NodeJS.ProcessEnv; args?: string[] };
  /** Variables every CLI run gets besides PARLEY_HOME and PARLEY_URL (NO_COLOR, say). */
  env?: NodeJS.ProcessEnv;
  /** The CLI finds the hub as it does with no address given: through the home's lock file, not PARLEY_URL. */
  throughHome?: true;
  /** The temporary home's name prefix. */
  prefix?: string;
  /** What to do to the home before the hub starts on it (a store left as an attacker would leave it, say). */
  prepare?: (home: string) => Promise<void>;
}

/** A command that keeps running (`parley tail`), read as it prints. */
export interface Followed {
  child: ChildProcess;
  /** What it has printed so far. */
  output(): string;
  /** Resolves once what it printed holds `text`; rejects when it exits first. */
  until(text: string): Promise<void>;
}

export interface ServedCli {
  readonly hub: RunningHub;
  readonly home: string;
  /** The environment of a CLI run: the home, PARLEY_URL naming the hub (unless throughHome), and the setup's variables. */
  readonly env: NodeJS.ProcessEnv;
  /** `parley ARGS` against the hub. */
  cli: (...args: string[]) => Promise<CliRun>;
  /** `parley ARGS`, which must exit 0 with nothing on stderr: what it printed. */
  ok: (...args: string[]) => Promise<string>;
  /** The token `parley join` printed for a participant of the setup. */
  token: (handle: string) => string;
  /** One REST call as a participant of the setup: the status and the JSON answer. */
  rest: (handle: string, method: string, route: string, body?: unknown) => Promise<{ status: number; json: Json }>;
  /** `parley ARGS` left running, to be read as it prints and stopped with a signal (stopped in afterAll at the latest). */
  follow: (...args: string[]) => Followed;
}

export function servedCli(setup: ServedCliSetup = {}): ServedCli {
  let home: string | undefined;
  let hub: RunningHub | undefined;
  let cleanup: () => void = () => undefined;
  const tokens = new Map<string, string>();
  const running = (): { home: string; hub: RunningHub } => {
    if (home === undefined || hub === undefined) throw new Error('servedCli: used before its beforeAll started the hub');
    return { home, hub };
  };
  const served: ServedCli = {
    get hub() {
      return running().hub;
    },
    get home() {
      return running().home;
    },
    get env() {
      const { home: dir, hub: started } = running();
      return childEnv(dir, { ...(setup.throughHome ? {} : { PARLEY_URL: started.url }), ...setup.env });
    },
    cli: (...args) => runCli(args, served.env),
    async ok(...args) {
      const run = await served.cli(...args);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.status, args.join(' ')).toBe(0);
      return run.stdout;
    },
    token(handle) {
      const token = tokens.get(handle);
      if (token === undefined) throw new Error(`servedCli: @${handle} is not among the participants the setup joined`);
      return token;
    },
    rest: (handle, method, route, body) => restCall(running().hub, served.token(handle), method, route, body),
    follow: (...args) => follow(spawn(process.execPath, [BIN, ...args], { env: served.env, stdio: ['ignore', 'pipe', 'pipe'] })),
  };
  beforeAll(async () => {
    ({ home, cleanup } = tempHome(setup.prefix));
    await setup.prepare?.(home);
    hub = await startServe(home, setup.serve ?? {});
    for (const [handle, kind] of setup.join ?? []) {
      const joined = await served.cli('join', handle, ...(kind ? ['--kind', kind] : []), '--json');
      expect(joined.status, joined.stderr).toBe(0);
      tokens.set(handle, (JSON.parse(joined.stdout) as { token: string }).token);
    }
  }, 120_000);
  afterAll(async () => {
    await stopHubs();
    cleanup();
  });
  return served;
}

/** What a command printed, line by line, without the time that starts each event line. */
export const linesOf = (out: string): string[] =>
  out
    .trim()
    .split('\n')
    .map((line) => line.replace(/^\d\d:\d\d:\d\d /, ''));

function follow(child: ChildProcess): Followed {
  track(child);
  let printed = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    printed += chunk;
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    output: () => printed,
    until: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!printed.includes(text)) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
        exited.then(
          (code) => reject(new Error(`it exited with ${code} before printing "${text}": ${printed}`)),
          reject,
        );
      }),
  };
}
