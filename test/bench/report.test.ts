import { describe, expect, it } from 'vitest';
import { FIGURES, SECTION_NAMES } from '../../bench/figures.js';
import { REPORT_FORMAT, ReportSchema, evaluate, formatTable, type Report } from '../../bench/report.js';

const byId = (figures: ReturnType<typeof evaluate>, id: string) => figures.find((f) => f.id === id);

describe('the figures table and the report made from it', () => {
  it('figures - every id is unique, every anchor is a figure of the same section, every section is known', () => {
    const ids = FIGURES.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const f of FIGURES) {
      expect(SECTION_NAMES).toContain(f.section);
      if (f.anchor) expect(FIGURES.find((a) => a.id === f.anchor)).toMatchObject({ isAnchor: true, section: f.section });
      if (f.goal && f.goal.kind !== 'value') expect(f.anchor, `${f.id} has a goal against an anchor`).toBeDefined();
    }
  });

  it('evaluate - gives each figure its anchor, ratio and verdict for each kind of goal', () => {
    const figures = evaluate(['post', 'prune', 'delivery'], {
      'raw.normal': 40_000,
      'post.concurrent': 30_000,
      'post.signedRatio.concurrent': 0.95,
      'prune.idle.p99': 5,
      'prune.during.p99': 13.5,
      'delivery.p99': 4,
    });
    expect(byId(figures, 'post.concurrent')).toMatchObject({ value: 30_000, anchor: { id: 'raw.normal', value: 40_000 }, ratio: 0.75, goal: '>= 1.0x raw SQLite', ok: false });
    expect(byId(figures, 'post.signedRatio.concurrent')).toMatchObject({ anchor: null, ratio: null, goal: '>= 0.9', ok: true });
    expect(byId(figures, 'prune.during.p99')).toMatchObject({ ratio: 2.7, goal: '<= idle + 8', ok: false });
    expect(byId(figures, 'delivery.p99')).toMatchObject({ goal: '<= 5', ok: true });
    expect(byId(figures, 'raw.normal')).toMatchObject({ isAnchor: true, ok: null });
    // Measured by the section but not this time: present, without a value or a verdict.
    expect(byId(figures, 'post.durable')).toMatchObject({ value: null, ratio: null, ok: null });
    expect(figures.some((f) => f.id.startsWith('rest.'))).toBe(false);
  });

  it('evaluate - a quick run leaves out the figures of full runs only', () => {
    expect(evaluate(['readnew'], {}, {}, true).map((f) => f.id)).not.toContain('readnew.e1000000.p99');
    expect(evaluate(['readnew'], {}, {}, false).map((f) => f.id)).toContain('readnew.e1000000.p99');
  });

  it('formatTable - prints value, anchor, ratio, goal and MISSED on one line per figure', () => {
    const report: Report = {
      format: REPORT_FORMAT,
      date: '2026-01-01T00:00:00.000Z',
      quick: true,
      sections: ['post'],
      machine: { cpus: 2, model: 'test cpu', memoryMb: 4096, platform: 'linux', arch: 'x64' },
      node: 'v20.0.0',
      commit: { sha: 'b'.repeat(40), dirty: true },
      figures: evaluate(['post'], { 'raw.normal': 40_000, 'post.concurrent': 30_000 }, { 'post.concurrent': 'avg batch 99.0' }, true),
      failed: [{ section: 'mcp', error: 'MCP load generator: TypeError: fetch failed' }],
      details: {},
    };
    expect(ReportSchema.parse(JSON.parse(JSON.stringify(report)))).toEqual(report);
    const lines = formatTable(report).split('\n');
    expect(lines[0]).toBe(`quick run, 2026-01-01T00:00:00.000Z, commit ${'b'.repeat(12)} (with uncommitted changes), Node v20.0.0, 2 x test cpu, 4096 MB`);
    expect(lines.find((l) => l.startsWith('post 1 KB, 100 posters, signed (msg/s) [avg batch 99.0]'))).toMatch(/30000\s+40000\s+0\.75x\s+>= 1\.0x raw SQLite\s+MISSED$/);
    expect(lines.find((l) => l.startsWith('post 1 KB, 100 posters, store.synchronous=full'))).toMatch(/not measured\s+n\/a$/);
    expect(lines.slice(-3)).toEqual(['0 of 1 goals met, 1 missed', 'section mcp FAILED: MCP load generator: TypeError: fetch failed', '']);
  });
});
