// What one wrk run printed, as figures: the `wrk-json` line that the suite's Lua `done()` writes
// (load/wrk.ts), or, when that line is missing, wrk's own text report (`--latency`). Pure, so
// that test/load/wrk-output.test.ts holds it to real captured output.

import type { Latency } from './types.ts';

/** The statuses of a wrk run, counted as wrk counts them: a response's status is 2xx/3xx or it is not. */
export const WRK_OK = '2xx/3xx';
export const WRK_OTHER = 'not 2xx/3xx';

/** Latency quantiles of one run, in milliseconds: [percentile (0-100], value]. */
export type Quantiles = readonly (readonly [number, number])[];

export interface WrkFigures {
  readonly requests: number;
  /** wrk's own measured duration of the run. */
  readonly seconds: number;
  /** Responses whose status was not 2xx or 3xx: wrk counts them, but not by status. */
  readonly non2xx3xx: number;
  readonly socketErrors: { readonly connect: number; readonly read: number; readonly write: number; readonly timeout: number };
  readonly latency: Latency;
  /** Enough of the distribution to merge runs by (empty when only the text report was there). */
  readonly quantiles: Quantiles;
}

interface DoneLine {
  durationUs: number;
  requests: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { mean: number; max: number; quantiles: [number, number][] };
}

const DONE_PREFIX = 'wrk-json ';

export function parseWrkOutput(stdout: string): WrkFigures {
  const line = stdout.split('\n').find((l) => l.startsWith(DONE_PREFIX));
  return line === undefined ? parseText(stdout) : parseDone(JSON.parse(line.slice(DONE_PREFIX.length)) as DoneLine);
}

function parseDone(done: DoneLine): WrkFigures {
  const ms = (us: number) => roundTo(us / 1000, 3);
  const quantiles = done.latencyUs.quantiles.map(([q, us]): [number, number] => [q, ms(us)]);
  const at = (q: number) => quantiles.find(([p]) => p >= q)?.[1] ?? 0;
  const { connect, read, write, timeout, status } = done.errors;
  return {
    requests: done.requests,
    seconds: done.durationUs / 1e6,
    non2xx3xx: status,
    socketErrors: { connect, read, write, timeout },
    latency: { mean: ms(done.latencyUs.mean), p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max: ms(done.latencyUs.max) },
    quantiles,
  };
}

const DURATION_UNITS: Readonly<Record<string, number>> = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** "450.00us", "1.43ms", "2.01s", "1.00m" → milliseconds. */
function toMs(value: string, unit: string): number {
  return roundTo(Number(value) * (DURATION_UNITS[unit] ?? Number.NaN) * 1000, 3);
}

// wrk's text report, e.g. "  125797 requests in 1.30s, 10.52MB read" and "     99%    1.43ms".
function parseText(stdout: string): WrkFigures {
  const total = /^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),/m.exec(stdout);
  if (total === null) throw new Error(`not a wrk report: ${JSON.stringify(stdout.slice(0, 300))}`);
  const latencyRow = /^\s*Latency\s+([\d.]+)(us|ms|s|m|h)\s+[\d.]+(?:us|ms|s|m|h)\s+([\d.]+)(us|ms|s|m|h)/m.exec(stdout);
  const quantiles: [number, number][] = [];
  for (const [, q, value, unit] of stdout.matchAll(/^\s+(\d+(?:\.\d+)?)%\s+([\d.]+)(us|ms|s|m|h)\s*$/gm)) {
    quantiles.push([Number(q), toMs(value ?? '', unit ?? '')]);
  }
  const at = (q: number) => quantiles.find(([p]) => p >= q)?.[1] ?? 0;
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const count = (i: number) => Number(socket?.[i] ?? 0);
  const max = latencyRow === null ? 0 : toMs(latencyRow[3] ?? '', latencyRow[4] ?? '');
  return {
    requests: Number(total[1]),
    seconds: toMs(total[2] ?? '', total[3] ?? '') / 1000,
    non2xx3xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    socketErrors: { connect: count(1), read: count(2), write: count(3), timeout: count(4) },
    latency: {
      mean: latencyRow === null ? 0 : toMs(latencyRow[1] ?? '', latencyRow[2] ?? ''),
      p50: at(50),
      p90: at(90),
      p99: at(99),
      // --latency prints no 99.9th percentile: the maximum stands in for it, an upper bound.
      p999: max,
      max,
    },
    // Too coarse to merge by: percentiles of merged runs then come from the requests-weighted runs.
    quantiles: [],
  };
}

/**
 * The latency of several runs taken together: each run's quantiles stand for the requests
 * between them (a step at each quantile's value), weighted by the run's requests, and the
 * merged percentiles are read from that weighted distribution. One run gives back its own.
 */
export function mergeLatency(
  parts: readonly { readonly requests: number; readonly latency: Latency; readonly quantiles: Quantiles }[],
): Latency {
  const counted = parts.filter((p) => p.requests > 0);
  const total = counted.reduce((sum, p) => sum + p.requests, 0);
  if (total === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  const mean = roundTo(counted.reduce((sum, p) => sum + p.latency.mean * p.requests, 0) / total, 3);
  const max = Math.max(...counted.map((p) => p.latency.max));
  if (counted.some((p) => p.quantiles.length === 0)) {
    const weighted = (pick: (l: Latency) => number) =>
      roundTo(counted.reduce((sum, p) => sum + pick(p.latency) * p.requests, 0) / total, 3);
    return {
      mean,
      p50: weighted((l) => l.p50),
      p90: weighted((l) => l.p90),
      p99: weighted((l) => l.p99),
      p999: weighted((l) => l.p999),
      max,
    };
  }
  const steps: [number, number][] = [];
  for (const part of counted) {
    let below = 0;
    for (const [q, value] of part.quantiles) {
      steps.push([value, ((q - below) / 100) * part.requests]);
      below = q;
    }
  }
  steps.sort((a, b) => a[0] - b[0]);
  const at = (q: number): number => {
    // A hair below the rank, so that a single run's own quantile is not missed by rounding.
    const rank = (q / 100) * total * (1 - 1e-9);
    let seen = 0;
    for (const [value, weight] of steps) {
      seen += weight;
      if (seen >= rank) return value;
    }
    return max;
  };
  return { mean, p50: at(50), p90: at(90), p99: at(99), p999: at(99.9), max };
}

function roundTo(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
