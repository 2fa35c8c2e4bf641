/**
 * Console transcripts in the docs: "$ command" lines, each followed by what it
 * prints. A test runs the commands in order and compares their output with the
 * page, line by line. In the expected text, "…" stands for any text, and the
 * values that change from run to run are matched by their shape: times and
 * dates match any time or date; ids, keys and tokens match any of their kind
 * and are then bound, so the same id written again on the page (in output or
 * in a later command) stands for the same value the hub gave.
 */

export interface Step {
  /** The command as the page writes it (comments included: bash ignores them). */
  command: string;
  expected: string[];
  /** The exit code the page says it ends with ("# exit N"), else 0. */
  exit: number;
}

/** Every "$ command" of the page's ```console blocks, in order. */
export function consoleSteps(markdown: string): Step[] {
  const steps: Step[] = [];
  for (const block of markdown.matchAll(/```console\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('$ ')) {
        const command = line.slice(2);
        steps.push({ command, expected: [], exit: Number(/#\s*exit (\d+)/.exec(command)?.[1] ?? 0) });
      } else {
        const step = steps.at(-1);
        if (!step) throw new Error(`a console block starts with output, not a command: ${line}`);
        step.expected.push(line);
      }
    }
  }
  for (const step of steps) step.expected = trimTrailingBlank(step.expected);
  return steps;
}

export function trimTrailingBlank(lines: string[]): string[] {
  const out = lines.map((line) => line.trimEnd());
  while (out.length > 0 && out.at(-1) === '') out.pop();
  return out;
}

/** Values that differ from run to run, by shape. Bound ones keep their value once seen. */
const BOUND = [/\b[0-9A-HJKMNP-TV-Z]{26}\b/, /ed25519:[A-Za-z0-9_-]{43}/, /\bp_[a-z2-7]{26}\b/, /\bh_[a-z2-7]{26}\b/, /\bpt_[A-Za-z0-9_-]{43}/];
const FREE = [/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/, /\b\d{2}:\d{2}:\d{2}\b/];
const SHAPES = new RegExp([...BOUND, ...FREE].map((r) => r.source).join('|'), 'g');

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What the page's values stand for in this run: page value → the hub's value. */
export class Bindings {
  private readonly values = new Map<string, string>();

  /** The command with the page's values replaced by this run's (a request's short id is the end of its id). */
  apply(command: string): string {
    let out = command;
    for (const [page, actual] of this.values) out = out.replaceAll(page, actual);
    return out;
  }

  /** Whether `actual` is what `expected` says, binding the values it sees for the first time. */
  match(expected: string, actual: string): boolean {
    const groups: string[] = [];
    let source = '';
    let last = 0;
    // A short id may come before the id it ends (`request 70AZ85 sent (… full id …70AZ85)`): any short id for now, checked once bound.
    const pending = [...expected.matchAll(new RegExp(BOUND[0]!.source, 'g'))].map((m) => m[0]).filter((id) => !this.values.has(id));
    const take = (text: string): string =>
      text
        .split('…')
        .map((part) => pending.reduce((out, id) => out.replaceAll(id.slice(-6), '[0-9A-HJKMNP-TV-Z]{6}'), escape(this.apply(part))))
        .join('.*?');
    for (const m of expected.matchAll(SHAPES)) {
      source += take(expected.slice(last, m.index));
      const value = m[0];
      const bound = this.values.get(value);
      if (bound !== undefined) source += escape(bound);
      else if (BOUND.some((r) => new RegExp(`^${r.source}$`).test(value))) {
        groups.push(value);
        source += `(${BOUND.find((r) => new RegExp(`^${r.source}$`).test(value))!.source})`;
      } else source += FREE.find((r) => new RegExp(`^${r.source}$`).test(value))!.source;
      last = m.index + value.length;
    }
    source += take(expected.slice(last));
    const found = new RegExp(`^${source}$`).exec(actual);
    if (!found) return false;
    groups.forEach((page, i) => this.bind(page, found[i + 1]!));
    return groups.length === 0 || this.match(expected, actual);
  }

  private bind(page: string, actual: string): void {
    this.values.set(page, actual);
    // A request's short id is the last six characters of its id.
    if (/^[0-9A-HJKMNP-TV-Z]{26}$/.test(page)) this.values.set(page.slice(-6), actual.slice(-6));
  }
}

/** Compares a command's output with the page's lines; the first difference, or undefined. */
export function difference(bindings: Bindings, expected: string[], actual: string[]): string | undefined {
  const n = Math.max(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    const want = expected[i];
    const got = actual[i];
    if (want === undefined || got === undefined || !bindings.match(want, got)) {
      return `line ${i + 1}:\n  page:   ${want ?? '(nothing)'}\n  actual: ${got ?? '(nothing)'}\n--- all it printed:\n${actual.join('\n')}`;
    }
  }
  return undefined;
}
