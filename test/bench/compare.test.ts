import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { compareReports, formatComparison, loadReport } from '../../bench/compare.js';
import { REPORT_FORMAT, evaluate, type Report } from '../../bench/report.js';
import { ParleyError } from '../../src/errors/parley-error.js';

// The built entry, as npm run bench runs it (npm run build first).
const RUN = fileURLToPath(new URL('../../dist/bench/run.js', import.meta.url));

function report(sections: string[], values: Record<string, number>, quick = false): Report {
  return {
    format: REPORT_FORMAT,
    date: '2026-01-01T00:00:00.000Z',
    quick,
    sections,
    machine: { cpus: 2, model: 'test cpu', memoryMb: 4096, platform: 'linux', arch: 'x64' },
    node: 'v20.0.0',
    commit: { sha: 'a'.repeat(40), dirty: false },
    figures: evaluate(sections, values, {}, quick),
    failed: [],
    details: {},
  };
}

const row = (comparison: ReturnType<typeof compareReports>, id: string) => comparison.rows.find((r) => r.id === id);

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
function tempFile(name: string, text: string): string {
  dir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-compare-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('comparing a bench run with a saved report', () => {
  it('compare - marks a higher-is-better figure that fell by more than 10%, not one that fell by exactly 10%', () => {
    const before = report(['delivery', 'post'], { 'post.signedRatio.concurrent': 1.0, 'post.signedRatio.sequential': 1.0 });
    const after = report(['delivery', 'post'], { 'post.signedRatio.concurrent': 0.89, 'post.signedRatio.sequential': 0.9 });
    const comparison = compareReports(before, after);
    expect(row(comparison, 'post.signedRatio.concurrent')).toMatchObject({ status: 'worse', basis: 'value', before: 1.0, after: 0.89 });
    expect(row(comparison, 'post.signedRatio.concurrent')?.change).toBeCloseTo(-0.11, 10);
    expect(row(comparison, 'post.signedRatio.sequential')?.status).toBe('compared');
    expect(comparison.worse.map((r) => r.id)).toEqual(['post.signedRatio.concurrent']);
  });

  it('compare - marks a lower-is-better figure that rose by more than 10%, and never marks an improvement', () => {
    const before = report(['delivery'], { 'delivery.p50': 2.0, 'delivery.p99': 2.0 });
    const after = report(['delivery'], { 'delivery.p50': 2.2, 'delivery.p99': 2.3 });
    const comparison = compareReports(before, after);
    expect(row(comparison, 'delivery.p99')).toMatchObject({ status: 'worse', before: 2.0, after: 2.3 });
    expect(row(comparison, 'delivery.p50')?.status).toBe('compared');
    const better = compareReports(after, before);
    expect(better.worse).toEqual([]);
    expect(row(better, 'delivery.p99')?.change).toBeCloseTo(-0.3 / 2.3, 10);
  });

  it('compare - judges a figure with an anchor on its ratio to the anchor of the same run', () => {
    const before = report(['post'], { 'raw.normal': 40_000, 'post.concurrent': 20_000 });
    // A busier machine: both halve, the ratio holds.
    const busier = report(['post'], { 'raw.normal': 20_000, 'post.concurrent': 10_000 });
    const slowerParley = report(['post'], { 'raw.normal': 40_000, 'post.concurrent': 17_000 });
    const onBusier = compareReports(before, busier);
    expect(row(onBusier, 'post.concurrent')).toMatchObject({ status: 'compared', basis: 'ratio', beforeJudged: 0.5, afterJudged: 0.5, change: 0 });
    // The anchor itself fell by half: shown, never marked.
    expect(row(onBusier, 'raw.normal')).toMatchObject({ status: 'anchor', change: -0.5 });
    expect(onBusier.worse).toEqual([]);
    const onSlower = compareReports(before, slowerParley);
    expect(row(onSlower, 'post.concurrent')).toMatchObject({ status: 'worse', basis: 'ratio', beforeJudged: 0.5, afterJudged: 0.425 });
  });

  it('compare - a figure missing from the earlier report is new, not worse; one this run could not measure is not marked', () => {
    const before = report(['delivery'], { 'delivery.p99': 2.0 });
    const after = report(['delivery', 'post'], { 'delivery.p99': 2.0, 'post.signedRatio.concurrent': 0.5 });
    const comparison = compareReports(before, after);
    expect(row(comparison, 'delivery.p50')).toMatchObject({ status: 'new', before: null, after: null });
    expect(row(comparison, 'post.signedRatio.concurrent')).toMatchObject({ status: 'new', before: null, after: 0.5, change: null });
    expect(comparison.worse).toEqual([]);
    const lost = compareReports(after, report(['delivery', 'post'], { 'delivery.p99': 2.0 }));
    expect(row(lost, 'post.signedRatio.concurrent')).toMatchObject({ status: 'not measured', before: 0.5, after: null });
    expect(lost.worse).toEqual([]);
  });

  it('compare - leaves out sections the run skipped with --only and says when a quick run meets a full one', () => {
    const before = report(['delivery', 'post'], { 'delivery.p99': 2.0, 'post.signedRatio.concurrent': 0.9 });
    const after = report(['delivery'], { 'delivery.p99': 2.0 }, true);
    const comparison = compareReports(before, after);
    expect(comparison.rows.some((r) => r.id.startsWith('post.'))).toBe(false);
    expect(comparison.notes).toEqual(['the earlier report is a full run and this one a quick run: their call counts differ']);
    // A quick run does not measure the largest store: not listed as missing.
    const full = report(['readnew'], { 'readnew.e1000000.p99': 0.5, 'readnew.e10000.p99': 0.5 });
    const quick = report(['readnew'], { 'readnew.e10000.p99': 0.5 }, true);
    expect(compareReports(full, quick).rows.map((r) => r.id)).not.toContain('readnew.e1000000.p99');
  });

  it('compare - prints before, after and change per figure, WORSE on the regression and a verdict naming it', () => {
    const before = report(['delivery'], { 'delivery.p50': 1.0, 'delivery.p99': 2.0 });
    const after = report(['delivery'], { 'delivery.p50': 1.0, 'delivery.p99': 3.0 });
    const text = formatComparison(compareReports(before, after), 'old.json', before);
    const line = text.split('\n').find((l) => l.startsWith('post-to-inbox delivery, 100 participants, p99'));
    expect(line).toMatch(/2\.000\s+3\.000\s+\+50\.0%\s+WORSE$/);
    expect(text).toContain('1 figure(s) got worse by more than 10%: delivery.p99');
    expect(text.split('\n')[0]).toBe(`compared with old.json (commit ${'a'.repeat(12)}), 2026-01-01T00:00:00.000Z`);
  });
});

describe('reading a saved report', () => {
  it('loadReport - reads back a report as written', () => {
    const saved = report(['delivery'], { 'delivery.p50': 1.0, 'delivery.p99': 2.0 });
    expect(loadReport(tempFile('ok.json', JSON.stringify(saved)))).toEqual(saved);
  });

  it('loadReport - a malformed file is an INVALID_INPUT error naming the file and what is wrong', () => {
    const notJson = tempFile('not-json.json', '{"format": ');
    expect(() => loadReport(notJson)).toThrow(ParleyError);
    expect(() => loadReport(notJson)).toThrow(new RegExp(`^--compare: ${notJson} is not JSON: `));
    const saved = report(['delivery'], { 'delivery.p99': 2.0 });
    const wrongValue = tempFile('wrong.json', JSON.stringify({ ...saved, figures: [{ ...saved.figures[0], value: 'fast' }] }));
    expect(() => loadReport(wrongValue)).toThrow(`--compare: ${wrongValue} is not a bench report (bench-output/core.json of npm run bench): figures.0.value: `);
    const other = tempFile('other.json', JSON.stringify({ name: 'parley' }));
    expect(() => loadReport(other)).toThrow(/format: /);
    const older = tempFile('older.json', JSON.stringify({ machine: { cpus: 2 }, date: '2026-01-01', postThroughput: {} }));
    expect(() => loadReport(older)).toThrow(`--compare: ${older} was written by an earlier bench, before its figures table; run npm run bench on that commit again to compare with it`);
    const missing = path.join(path.dirname(other), 'missing.json');
    expect(() => loadReport(missing)).toThrow(`--compare: cannot read ${missing}: ENOENT`);
  });

  it('npm run bench -- --compare FILE - exits 2 on a malformed file before measuring anything', () => {
    const bad = tempFile('bad.json', '[1, 2');
    const run = spawnSync(process.execPath, [RUN, '--compare', bad, '--only', 'post'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`bench: --compare: ${bad} is not JSON: `);
    expect(run.stderr).not.toContain('raw better-sqlite3');
    expect(run.stdout).toBe('');
  });

  it('npm run bench -- --only NAME - exits 2 naming an unknown section and the known ones', () => {
    const run = spawnSync(process.execPath, [RUN, '--only', 'posts'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^bench: --only: unknown section "posts"; the sections are startup, middleware, post, /);
  });
});
