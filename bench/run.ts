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

/**
 * CPU seconds of this process and of the children it has reaped (hubs, load
 * generators, CLI runs): on a shared machine, what a section would take on a
 * quiet one is nearer this than its wall time. Linux only; elsewhere this process alone.
 */
function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command's closing parenthesis start at field 3; cutime and cstime are fields 16 and 17, in ticks of 1/100 s.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // No /proc: this process's own time only.
  }
  return (own.user + own.system) / 1e6 + children;
}

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
  const seconds: Record<string, { wall: number; cpu: number }> = {};
  const cpuStart = cpuSeconds();
  for (const name of args.sections) {
    const section = SECTIONS.find((s) => s.name === name);
    if (!section) throw new Error(`no section named ${name}`);
    const sectionStart = performance.now();
    const sectionCpu = cpuSeconds();
    const result = await section.run({ quick: args.quick, log });
    const spent = { wall: (performance.now() - sectionStart) / 1000, cpu: cpuSeconds() - sectionCpu };
    seconds[name] = spent;
    log(`${name}: ${spent.wall.toFixed(1)} s (${spent.cpu.toFixed(1)} s of CPU with its child processes)`);
    Object.assign(values, result.values);
    Object.assign(notes, result.notes ?? {});
    details[name] = result.details;
  }
  const total = { wall: (performance.now() - started) / 1000, cpu: cpuSeconds() - cpuStart };
  details.seconds = { ...seconds, total };
  const report: Report = {
    format: REPORT_FORMAT,
    date: new Date().toISOString(),
    quick: args.quick,
    sections: args.sections,
    machine: machine(),
    node: process.version,
    commit: gitCommit(process.cwd()),
    figures: evaluate(args.sections, values, notes, args.quick),
    details,
  };
  const out = path.resolve(args.json);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\n${formatTable(report)}`);
  process.stdout.write(`JSON: ${out}\nmeasured in ${total.wall.toFixed(0)} s (${total.cpu.toFixed(0)} s of CPU with the child processes)\n`);
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
