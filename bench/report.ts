import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { z } from 'zod';
import { FIGURES, describeGoal, figure, meetsGoal } from './figures.js';

/**
 * The benchmark's report: every figure of the sections that ran, with its
 * anchor from the same run, the ratio to it, the goal and whether it is met;
 * the machine, Node and the commit it ran on. Written as JSON, printed as a
 * table, and read back by --compare (so the schema checks what it reads).
 */
export const REPORT_FORMAT = 'parley-bench/1';

const FigureResultSchema = z.object({
  id: z.string().min(1),
  label: z.string(),
  unit: z.string(),
  better: z.enum(['higher', 'lower']),
  isAnchor: z.boolean(),
  /** null: the section ran but could not measure it (e.g. no chromium). */
  value: z.number().nullable(),
  anchor: z.object({ id: z.string(), value: z.number().nullable() }).nullable(),
  ratio: z.number().nullable(),
  goal: z.string().nullable(),
  ok: z.boolean().nullable(),
  note: z.string().nullable(),
});
export type FigureResult = z.infer<typeof FigureResultSchema>;

export const ReportSchema = z.object({
  format: z.literal(REPORT_FORMAT),
  date: z.string(),
  quick: z.boolean(),
  sections: z.array(z.string()),
  machine: z.object({ cpus: z.number(), model: z.string(), memoryMb: z.number(), platform: z.string(), arch: z.string() }),
  node: z.string(),
  commit: z.object({ sha: z.string().nullable(), dirty: z.boolean().nullable() }),
  figures: z.array(FigureResultSchema),
  /** Sections that threw: their figures are in the report without values. */
  failed: z.array(z.object({ section: z.string(), error: z.string() })),
  details: z.record(z.string(), z.unknown()),
});
export type Report = z.infer<typeof ReportSchema>;

export function machine(): Report['machine'] {
  const cpus = os.cpus();
  return { cpus: cpus.length, model: cpus[0]?.model ?? 'unknown', memoryMb: Math.round(os.totalmem() / 1024 / 1024), platform: process.platform, arch: process.arch };
}

/** The commit the bench ran on and whether the tree had changes; nulls outside a git checkout. */
export function gitCommit(cwd: string): Report['commit'] {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { sha, dirty: status.trim() !== '' };
  } catch {
    // Not a git checkout (an unpacked tarball): the report says so with nulls.
    return { sha: null, dirty: null };
  }
}

const finite = (n: number | undefined): number | null => (n !== undefined && Number.isFinite(n) ? n : null);

/** Every figure of the sections that ran (less those of full runs only in a quick one), in the order of the figures table, judged against its goal. */
export function evaluate(sections: readonly string[], values: Record<string, number>, notes: Record<string, string> = {}, quick = false): FigureResult[] {
  return FIGURES.filter((f) => sections.includes(f.section) && !(quick && f.fullOnly)).map((f) => {
    const value = finite(values[f.id]);
    const anchorValue = f.anchor ? finite(values[f.anchor]) : null;
    const ratio = value !== null && anchorValue !== null && anchorValue !== 0 ? value / anchorValue : null;
    return {
      id: f.id,
      label: f.label,
      unit: f.unit,
      better: f.better,
      isAnchor: f.isAnchor === true,
      value,
      anchor: f.anchor ? { id: f.anchor, value: anchorValue } : null,
      ratio,
      goal: f.goal ? describeGoal(f) : null,
      ok: value === null ? null : meetsGoal(f, value, anchorValue ?? undefined),
      note: notes[f.id] ?? null,
    };
  });
}

export function formatNumber(n: number | null, digits: number): string {
  return n === null ? 'n/a' : n.toFixed(digits);
}

/** The table people read: figure, value, anchor, ratio, goal, and ok or MISSED. */
export function formatTable(report: Report): string {
  const rows = report.figures.map((r) => {
    const digits = figure(r.id)?.digits ?? 3;
    const anchorDigits = r.anchor ? (figure(r.anchor.id)?.digits ?? digits) : digits;
    const label = `${r.label} (${r.unit})${r.note ? ` [${r.note}]` : ''}`;
    return {
      label,
      value: r.value === null ? 'not measured' : formatNumber(r.value, digits),
      anchor: r.isAnchor ? 'anchor' : r.anchor ? formatNumber(r.anchor.value, anchorDigits) : '',
      ratio: r.ratio === null ? '' : `${r.ratio.toFixed(2)}x`,
      goal: r.goal ?? '',
      mark: r.ok === null ? '' : r.ok ? 'ok' : 'MISSED',
    };
  });
  const head = { label: 'figure', value: 'value', anchor: 'anchor', ratio: 'ratio', goal: 'goal', mark: '' };
  const width = (key: keyof typeof head): number => Math.max(...[head, ...rows].map((r) => r[key].length));
  const w = { label: width('label'), value: width('value'), anchor: width('anchor'), ratio: width('ratio'), goal: width('goal') };
  const line = (r: typeof head): string =>
    `${r.label.padEnd(w.label)}  ${r.value.padStart(w.value)}  ${r.anchor.padStart(w.anchor)}  ${r.ratio.padStart(w.ratio)}  ${r.goal.padEnd(w.goal)}  ${r.mark}`.trimEnd();
  const missed = report.figures.filter((r) => r.ok === false).length;
  const goals = report.figures.filter((r) => r.ok !== null).length;
  const commit = report.commit.sha ? `${report.commit.sha.slice(0, 12)}${report.commit.dirty ? ' (with uncommitted changes)' : ''}` : 'not a git checkout';
  const header = `${report.quick ? 'quick run' : 'full run'}, ${report.date}, commit ${commit}, Node ${report.node}, ${report.machine.cpus} x ${report.machine.model}, ${report.machine.memoryMb} MB`;
  const failures = report.failed.map((f) => `section ${f.section} FAILED: ${f.error}`);
  return [header, '', line(head), ...rows.map(line), '', `${goals - missed} of ${goals} goals met${missed ? `, ${missed} missed` : ''}`, ...failures, ''].join('\n');
}
