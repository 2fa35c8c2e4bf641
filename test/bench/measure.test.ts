import { describe, expect, it } from 'vitest';
import { measure } from '../../bench/measure.js';
import type { Section } from '../../bench/section.js';

describe('running the bench sections', () => {
  it('measure - a section that throws is recorded as failed and the sections after it still run', async () => {
    const ran: string[] = [];
    const sections: Section[] = [
      { name: 'delivery', run: () => { ran.push('delivery'); return Promise.resolve({ values: { 'delivery.p99': 2 }, details: { samples: 3 } }); } },
      { name: 'mcp', run: () => { ran.push('mcp'); return Promise.reject(new Error('MCP load generator: TypeError: fetch failed')); } },
      { name: 'sse', run: () => { ran.push('sse'); return Promise.resolve({ values: { 'sse.p99': 4 }, notes: { 'sse.p99': 'n' }, details: null }); } },
    ];
    const lines: string[] = [];
    const measured = await measure(sections, ['delivery', 'mcp', 'sse'], { quick: true, log: (line) => lines.push(line) });
    expect(ran).toEqual(['delivery', 'mcp', 'sse']);
    expect(measured.values).toEqual({ 'delivery.p99': 2, 'sse.p99': 4 });
    expect(measured.notes).toEqual({ 'sse.p99': 'n' });
    expect(measured.failed).toEqual([{ section: 'mcp', error: 'MCP load generator: TypeError: fetch failed' }]);
    expect(measured.details).toEqual({ delivery: { samples: 3 }, mcp: { error: 'MCP load generator: TypeError: fetch failed' }, sse: null });
    expect(lines).toContain('mcp FAILED: MCP load generator: TypeError: fetch failed; its figures are not measured, the run goes on');
    expect(Object.keys(measured.seconds)).toEqual(['delivery', 'mcp', 'sse', 'total']);
  });
});
