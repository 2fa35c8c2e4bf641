/** Percentiles over latency samples in milliseconds. */
export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

/**
 * Milliseconds on the machine's monotonic clock (CLOCK_MONOTONIC, which
 * process.hrtime reads), the same in every process of the machine: a time one
 * process took can be set against another's. performance.now() cannot be,
 * since each process counts it from its own start.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
