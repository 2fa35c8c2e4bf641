import fs from 'node:fs';
import type { Report } from './report.js';
import type { Section, SectionContext, SectionResult } from './section.js';

/**
 * CPU seconds of this process and of the children it has reaped (hubs, load
 * generators, CLI runs): on a shared machine, what a section would take on a
 * quiet one is nearer this than its wall time. Linux only; elsewhere this process alone.
 */
export function cpuSeconds(): number {
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

export interface Measured {
  values: Record<string, number>;
  notes: Record<string, string>;
  details: Record<string, unknown>;
  failed: Report['failed'];
  seconds: Record<string, { wall: number; cpu: number }>;
}

/** Runs the named sections in turn; one that throws is recorded as failed and the others still run. */
export async function measure(sections: readonly Section[], names: readonly string[], ctx: SectionContext): Promise<Measured> {
  const out: Measured = { values: {}, notes: {}, details: {}, failed: [], seconds: {} };
  const started = performance.now();
  const cpuStart = cpuSeconds();
  for (const name of names) {
    const section = sections.find((s) => s.name === name);
    if (!section) throw new Error(`no section named ${name}`);
    const sectionStart = performance.now();
    const sectionCpu = cpuSeconds();
    let result: SectionResult;
    try {
      result = await section.run(ctx);
    } catch (error) {
      // One section's failure must not cost the others' figures: it is reported, the run goes on, and the bench exits 1.
      const message = error instanceof Error ? error.message : String(error);
      ctx.log(`${name} FAILED: ${message}; its figures are not measured, the run goes on`);
      out.failed.push({ section: name, error: message });
      result = { values: {}, details: { error: message } };
    }
    const spent = { wall: (performance.now() - sectionStart) / 1000, cpu: cpuSeconds() - sectionCpu };
    out.seconds[name] = spent;
    ctx.log(`${name}: ${spent.wall.toFixed(1)} s (${spent.cpu.toFixed(1)} s of CPU with its child processes)`);
    Object.assign(out.values, result.values);
    Object.assign(out.notes, result.notes ?? {});
    out.details[name] = result.details;
  }
  out.seconds.total = { wall: (performance.now() - started) / 1000, cpu: cpuSeconds() - cpuStart };
  return out;
}
