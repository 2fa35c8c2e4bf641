import { describe, expect, it } from 'vitest';
import { heavyReaderAttack } from '../../bench/heavy-reader.js';
import { DEFAULT_MCP_MAX_BATCH_SIZE } from '../../src/config/defaults.js';

/**
 * One participant reading as hard as it can — four concurrent exports and
 * JSON-RPC batches of chat_history {limit: 500} over a thread of 30,000
 * messages of about 4 KB — must neither balloon the hub's memory nor hold up
 * another participant's posts. A real hub process (see bench/heavy-reader.ts).
 * Runs alone (test/load).
 *
 * The goals (≤ 100 MB over resting RSS, post p99 ≤ 50 ms) are measured by
 * `npm run bench`, not here: this test must hold on a loaded machine and on
 * every supported Node, so its bounds sit far above the goals and far below
 * what an unbounded reader does (4.5 GB and a 10 s p99 before reads were
 * bounded and exports streamed).
 */
const MESSAGES = 30_000;
const RSS_GROWTH_CEILING_MB = 400;
const VICTIM_P99_CEILING_MS = 1_000;

describe('one heavy reader', () => {
  it('heavy reader - concurrent exports and history batches neither balloon hub RSS nor hold up another participant\'s posts', async () => {
    const result = await heavyReaderAttack({ messages: MESSAGES, batchSize: DEFAULT_MCP_MAX_BATCH_SIZE });
    const { rssMb, victim } = result;
    console.log(
      `heavy reader: rest ${rssMb.rest.toFixed(0)} MB, peak ${rssMb.peak.toFixed(0)} MB (+${(rssMb.peak - rssMb.rest).toFixed(0)} MB); ` +
        `victim posts ${victim.count}, p50 ${victim.p50.toFixed(1)} ms, p99 ${victim.p99.toFixed(1)} ms`,
    );
    // A batch far over the limit was refused before any of it ran; the batches within it were answered in full.
    expect(result.oversizedBatchStatus).toBe(400);
    expect(result.batchAnswers).toBe(4 * 3 * DEFAULT_MCP_MAX_BATCH_SIZE);
    expect(result.batchErrors).toBe(0);
    // Every export held the whole thread: its creation, the messages and the victim's warm-up posts at least.
    expect(result.exportLines).toHaveLength(4);
    for (const lines of result.exportLines) expect(lines).toBeGreaterThan(MESSAGES + 20);
    expect(rssMb.peak - rssMb.rest).toBeLessThanOrEqual(RSS_GROWTH_CEILING_MB);
    expect(victim.p99).toBeLessThanOrEqual(VICTIM_P99_CEILING_MS);
  }, 300_000);
});
