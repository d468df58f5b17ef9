// Percentiles of latencies, nearest rank: the load suite's runs and the fleet test's seconds and
// faults read them the same way. Pure, so that the fleet's checks import it without a load generator.

import type { Latency } from './types.ts';

/** Percentiles of every response's latency, to the microsecond. */
export function percentiles(ms: readonly number[]): Latency {
  const sorted = Float64Array.from(ms).sort();
  const at = (q: number) => roundTo(sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0, 3);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    mean: roundTo(sum / Math.max(1, sorted.length), 3),
    p50: at(0.5),
    p90: at(0.9),
    p95: at(0.95),
    p99: at(0.99),
    p999: at(0.999),
    max: at(1),
  };
}

export function roundTo(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** The median of `values` (the lower middle of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** How widely `values` spread: (max − min) ÷ median. */
export function spreadOf(values: readonly number[]): number {
  return (Math.max(...values) - Math.min(...values)) / median(values);
}
