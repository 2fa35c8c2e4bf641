import fs from 'node:fs';
import path from 'node:path';
import { ParleyError } from '../src/errors/parley-error.js';
import { USAGE, parseBenchArgs } from './args.js';
import { compareReports, formatComparison, loadReport } from './compare.js';
import { measure } from './measure.js';
import { REPORT_FORMAT, evaluate, formatTable, gitCommit, machine, type Report } from './report.js';
import type { Section } from './section.js';
import { CORE_SECTIONS } from './sections-core.js';
import { NET_SECTIONS } from './sections-net.js';

/**
 * `npm run bench`: every figure of bench/figures.ts beside its anchor from the
 * same run, judged against its goal, printed as a table and written as JSON
 * (bench-output/core.json). A benchmark, not a test: it exits 0 whatever the
 * figures, and 1 when a section failed or, with --compare, when a figure got
 * worse by more than 10% than in the saved report. Bad options or a malformed
 * saved report exit 2 before anything is measured.
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
  const measured = await measure(SECTIONS, args.sections, { quick: args.quick, peerRssSeconds: args.peerRssSeconds, log });
  const report: Report = {
    format: REPORT_FORMAT,
    date: new Date().toISOString(),
    quick: args.quick,
    sections: args.sections,
    machine: machine(),
    node: process.version,
    commit: gitCommit(process.cwd()),
    figures: evaluate(args.sections, measured.values, measured.notes, args.quick),
    failed: measured.failed,
    details: { ...measured.details, seconds: measured.seconds },
  };
  const out = path.resolve(args.json);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${formatTable(report)}`);
  const total = measured.seconds.total!;
  process.stdout.write(`JSON: ${out}\nmeasured in ${total.wall.toFixed(0)} s (${total.cpu.toFixed(0)} s of CPU with the child processes)\n`);
  const failed = report.failed.length > 0;
  if (!before || args.compare === undefined) return failed ? 1 : 0;
  const comparison = compareReports(before, report);
  process.stdout.write(`\n${formatComparison(comparison, args.compare, before)}`);
  return comparison.worse.length > 0 || failed ? 1 : 0;
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
