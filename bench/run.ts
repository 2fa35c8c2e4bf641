import fs from 'node:fs';
import path from 'node:path';
import { ParleyError } from '../src/errors/parley-error.js';
import { USAGE, parseBenchArgs } from './args.js';
import { compareReports, formatComparison, loadReport } from './compare.js';
import { REPORT_FORMAT, evaluate, formatTable, gitCommit, machine, type Report } from './report.js';
import type { Section } from './section.js';
import { CORE_SECTIONS } from './sections-core.js';
import { NET_SECTIONS } from './sections-net.js';

/**
 * `npm run bench`: every figure of bench/figures.ts beside its anchor from the
 * same run, judged against its goal, printed as a table and written as JSON
 * (bench-output/core.json). A benchmark, not a test: it exits 0 whatever the
 * figures, except with --compare, where it exits 1 when a figure got worse by
 * more than 10% than in the saved report. Bad options or a malformed saved
 * report exit 2 before anything is measured.
 */
const SECTIONS: readonly Section[] = [...CORE_SECTIONS, ...NET_SECTIONS];

const log = (message: string): void => void process.stderr.write(`bench: ${message}\n`);

async function main(): Promise<number> {
  const args = parseBenchArgs(process.argv.slice(2), process.env);
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  // Read the earlier report first: a bad file should not cost a run.
  const before = args.compare === undefined ? undefined : loadReport(args.compare);
  const started = performance.now();
  const values: Record<string, number> = {};
  const notes: Record<string, string> = {};
  const details: Record<string, unknown> = {};
  const seconds: Record<string, number> = {};
  for (const name of args.sections) {
    const section = SECTIONS.find((s) => s.name === name);
    if (!section) throw new Error(`no section named ${name}`);
    const sectionStart = performance.now();
    const result = await section.run({ quick: args.quick, log });
    seconds[name] = (performance.now() - sectionStart) / 1000;
    log(`${name}: ${seconds[name].toFixed(1)} s`);
    Object.assign(values, result.values);
    Object.assign(notes, result.notes ?? {});
    details[name] = result.details;
  }
  details.seconds = { ...seconds, total: (performance.now() - started) / 1000 };
  const report: Report = {
    format: REPORT_FORMAT,
    date: new Date().toISOString(),
    quick: args.quick,
    sections: args.sections,
    machine: machine(),
    node: process.version,
    commit: gitCommit(process.cwd()),
    figures: evaluate(args.sections, values, notes),
    details,
  };
  const out = path.resolve(args.json);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${formatTable(report)}`);
  process.stdout.write(`JSON: ${out} (${(performance.now() - started) / 1000 < 60 ? ((performance.now() - started) / 1000).toFixed(1) + ' s' : ((performance.now() - started) / 60_000).toFixed(1) + ' min'})\n`);
  if (!before || args.compare === undefined) return 0;
  const comparison = compareReports(before, report);
  process.stdout.write(`\n${formatComparison(comparison, args.compare, before)}`);
  return comparison.worse.length > 0 ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  if (error instanceof ParleyError && error.code === 'INVALID_INPUT') {
    process.stderr.write(`bench: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
