import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Bindings, difference, trimTrailingBlank, type Step } from './transcript.js';
import { BIN } from '../helpers/serve.js';

/**
 * Runs a page's console transcript as a user would: each command in bash, in a
 * fresh HOME whose default home (~/.parley) is the hub's, with `parley` on the
 * PATH. `parley serve` runs in the background on an ephemeral port (the page
 * shows 7420) until a later `parley stop`; `parley tail` is stopped once it has
 * printed what the page shows. Output is compared with the page after putting
 * back the page's own names for this run's home, user folder and port.
 */
export interface ConsoleRun {
  /** The user's home folder; the page writes it as /home/me. */
  user: string;
  /** The folder the commands run in. */
  cwd: string;
  extraEnv?: NodeJS.ProcessEnv;
}

const PAGE_USER = '/home/me';
const PAGE_URL = 'http://127.0.0.1:7420';

export class ConsoleSession {
  private readonly bindings = new Bindings();
  private readonly background: ChildProcess[] = [];
  private url: string | undefined;
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly run: ConsoleRun) {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PARLEY_')) env[key] = value;
    this.env = { ...env, HOME: run.user, PATH: `${path.dirname(BIN)}:${path.dirname(process.execPath)}:/usr/bin:/bin`, ...run.extraEnv };
  }

  /** Runs one step; the first difference from the page, or undefined. */
  async step(step: Step): Promise<string | undefined> {
    const command = this.bindings.apply(step.command);
    const serve = /\bparley serve\b/.test(command);
    const follows = serve || /\bparley tail\b/.test(command);
    const script = serve ? command.replace(/\bparley serve\b/, 'parley serve --port 0') : command;
    const child = spawn('bash', ['-c', `exec 2>&1\n${script}`], { cwd: this.run.cwd, env: this.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    if (follows) {
      this.background.push(child);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`"${step.command}" printed only:\n${out}`)), 20_000);
        const check = (): void => {
          if (serve) this.url ??= /API:\s+(http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(out)?.[1];
          if (this.lines(out).length >= step.expected.length && (!serve || this.url)) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout!.on('data', check);
        void exited.then(() => {
          clearTimeout(timer);
          check();
          reject(new Error(`"${step.command}" ended early:\n${out}`));
        });
      });
      if (!serve) await this.end(child, exited);
      return difference(this.bindings, step.expected, this.lines(out).slice(0, step.expected.length));
    }
    const code = await exited;
    const diff = difference(this.bindings, step.expected, this.lines(out));
    if (diff) return diff;
    return code === step.exit ? undefined : `exit code ${code}, where the page says ${step.exit}:\n${out}`;
  }

  /** Ends whatever is still running in the background (a hub the page did not stop). */
  async close(): Promise<void> {
    for (const child of this.background.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) await this.end(child, new Promise((resolve) => child.once('close', resolve)));
    }
  }

  private async end(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // The group ended on its own meanwhile.
      }
    }
    await exited;
  }

  /** What a command printed, in the page's own names for this run's folder and address. */
  private lines(out: string): string[] {
    let text = out.replaceAll(this.run.user, PAGE_USER);
    if (this.url) {
      const port = this.url.split(':').at(-1)!;
      text = text.replaceAll(this.url, PAGE_URL).replaceAll(`port ${port}`, 'port 7420');
    }
    return trimTrailingBlank(text.split('\n'));
  }
}
