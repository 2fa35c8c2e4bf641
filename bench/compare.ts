import fs from 'node:fs';
import { ParleyError } from '../src/errors/parley-error.js';
import { figure } from './figures.js';
import { ReportSchema, formatNumber, type FigureResult, type Report } from './report.js';

/**
 * This run against a saved earlier report: per figure, before / after / change,
 * and every figure that got worse by more than `threshold` (higher- or
 * lower-is-better per figure) marked. A figure with an anchor is judged on its
 * ratio to the anchor, measured in the same run, so that a busier machine (which
 * slows the anchor too) is not taken for a slower Parley; anchors themselves are
 * shown, never marked.
 */
export const REGRESSION_THRESHOLD = 0.1;

export type ComparisonStatus = 'compared' | 'worse' | 'anchor' | 'new' | 'not measured' | 'gone';

export interface ComparisonRow {
  id: string;
  label: string;
  unit: string;
  before: number | null;
  after: number | null;
  /** What the change is judged on: the ratio to the anchor when both runs have it, else the value. */
  basis: 'ratio' | 'value';
  beforeJudged: number | null;
  afterJudged: number | null;
  /** (after - before) / |before| of the judged quantity; null when it cannot be computed. */
  change: number | null;
  status: ComparisonStatus;
}

export interface Comparison {
  rows: ComparisonRow[];
  worse: ComparisonRow[];
  notes: string[];
}

/** Reads and checks a saved report; a missing, non-JSON or malformed file is an INVALID_INPUT error naming the file and what is wrong. */
export function loadReport(file: string): Report {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ParleyError('INVALID_INPUT', `--compare: cannot read ${file}: ${(error as Error).message}`, { field: '--compare' });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ParleyError('INVALID_INPUT', `--compare: ${file} is not JSON: ${(error as Error).message}`, { field: '--compare' });
  }
  if (typeof json === 'object' && json !== null && !('format' in json) && 'machine' in json) {
    throw new ParleyError('INVALID_INPUT', `--compare: ${file} was written by an earlier bench, before its figures table; run npm run bench on that commit again to compare with it`, { field: '--compare' });
  }
  const parsed = ReportSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`);
    throw new ParleyError('INVALID_INPUT', `--compare: ${file} is not a bench report (bench-output/core.json of npm run bench): ${issues.join('; ')}`, { field: '--compare' });
  }
  return parsed.data;
}

function judged(r: FigureResult, useRatio: boolean): number | null {
  return useRatio ? r.ratio : r.value;
}

export function compareReports(before: Report, after: Report, threshold = REGRESSION_THRESHOLD): Comparison {
  const old = new Map(before.figures.map((r) => [r.id, r]));
  const rows: ComparisonRow[] = after.figures.map((now) => {
    const was = old.get(now.id);
    const useRatio = was !== undefined && was.ratio !== null && now.ratio !== null;
    const beforeJudged = was ? judged(was, useRatio) : null;
    const afterJudged = judged(now, useRatio);
    const change = beforeJudged !== null && afterJudged !== null && beforeJudged !== 0 ? (afterJudged - beforeJudged) / Math.abs(beforeJudged) : null;
    // A hair over the threshold is float rounding (2.0 -> 2.2 is +10.000000000000009%), not a regression.
    const getsWorse = change !== null && (now.better === 'higher' ? change < -threshold - 1e-9 : change > threshold + 1e-9);
    const status: ComparisonStatus = !was || was.value === null ? 'new' : now.value === null ? 'not measured' : now.isAnchor ? 'anchor' : getsWorse ? 'worse' : 'compared';
    return { id: now.id, label: now.label, unit: now.unit, before: was?.value ?? null, after: now.value, basis: useRatio ? 'ratio' : 'value', beforeJudged, afterJudged, change, status };
  });
  const measured = new Set(after.figures.map((r) => r.id));
  for (const was of before.figures) {
    // A figure of a section this run measured that it no longer reports; sections left out with --only are not listed.
    if (measured.has(was.id) || !after.sections.includes(sectionOf(was.id, before)) || (after.quick && figure(was.id)?.fullOnly)) continue;
    rows.push({ id: was.id, label: was.label, unit: was.unit, before: was.value, after: null, basis: 'value', beforeJudged: was.value, afterJudged: null, change: null, status: 'gone' });
  }
  const notes: string[] = [];
  if (before.quick !== after.quick) notes.push(`the earlier report is a ${before.quick ? 'quick' : 'full'} run and this one a ${after.quick ? 'quick' : 'full'} run: their call counts differ`);
  if (before.machine.model !== after.machine.model || before.machine.cpus !== after.machine.cpus) {
    notes.push(`the machines differ (${before.machine.cpus} x ${before.machine.model} before, ${after.machine.cpus} x ${after.machine.model} now): compare the ratios`);
  }
  return { rows, worse: rows.filter((r) => r.status === 'worse'), notes };
}

function sectionOf(id: string, report: Report): string {
  return figure(id)?.section ?? report.sections.find((s) => id.startsWith(`${s}.`)) ?? '';
}

function formatChange(change: number | null): string {
  if (change === null) return '';
  const pct = change * 100;
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

/** The comparison people read: before / after / change per figure, WORSE on each that fell by more than the threshold. */
export function formatComparison(comparison: Comparison, beforeFile: string, before: Report): string {
  const rows = comparison.rows.map((r) => {
    const digits = figure(r.id)?.digits ?? 3;
    const ratios = r.basis === 'ratio' ? ` (${formatNumber(r.beforeJudged, 2)}x -> ${formatNumber(r.afterJudged, 2)}x)` : '';
    const mark = { worse: 'WORSE', anchor: 'anchor', new: 'new', 'not measured': 'not measured', gone: 'not reported', compared: '' }[r.status];
    return {
      label: `${r.label} (${r.unit})`,
      before: formatNumber(r.before, digits),
      after: formatNumber(r.after, digits),
      change: `${formatChange(r.change)}${r.change === null ? '' : r.basis === 'ratio' ? ' of ratio' : ''}${ratios}`,
      mark,
    };
  });
  const head = { label: 'figure', before: 'before', after: 'after', change: 'change', mark: '' };
  const width = (key: keyof typeof head): number => Math.max(...[head, ...rows].map((r) => r[key].length));
  const w = { label: width('label'), before: width('before'), after: width('after'), change: width('change') };
  const line = (r: typeof head): string => `${r.label.padEnd(w.label)}  ${r.before.padStart(w.before)}  ${r.after.padStart(w.after)}  ${r.change.padEnd(w.change)}  ${r.mark}`.trimEnd();
  const threshold = `${(REGRESSION_THRESHOLD * 100).toFixed(0)}%`;
  const verdict =
    comparison.worse.length === 0
      ? `no figure got worse by more than ${threshold}`
      : `${comparison.worse.length} figure(s) got worse by more than ${threshold}: ${comparison.worse.map((r) => r.id).join(', ')}`;
  const commit = before.commit.sha ? ` (commit ${before.commit.sha.slice(0, 12)}${before.commit.dirty ? ', with uncommitted changes' : ''})` : '';
  return [`compared with ${beforeFile}${commit}, ${before.date}`, ...comparison.notes.map((n) => `note: ${n}`), '', line(head), ...rows.map(line), '', verdict, ''].join('\n');
}
