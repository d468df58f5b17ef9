// How the suite judges its runs: whether a run's figures can be trusted, whether its load generator
// was the limit, and the targets, goals for the service judged on ratios measured side by side in
// one run. Each scenario declares its own targets (load/scenarios/); they are printed as PASS or
// MISS, and are not test assertions. Pure: test/load/generator-limit.test.ts and
// list-target.test.ts run it without a server.

import type { RunResult, TargetResult } from './types.ts';
import { WRK_OK, WRK_OTHER } from './wrk-output.ts';

/** The runs a target is judged on. */
export interface Judged {
  readonly all: readonly RunResult[];
  /** The run labelled `label`. */
  find(label: string): RunResult | undefined;
  /** Why a run's figures cannot be trusted (load/scenarios/index.ts knows what each scenario must answer), or undefined. */
  invalid(run: RunResult): string | undefined;
}

/** A goal, judged on the suite's runs. */
export type Target = (runs: Judged) => TargetResult;

export function judged(runs: readonly RunResult[], invalid: (run: RunResult) => string | undefined): Judged {
  return { all: runs, find: (label) => runs.find((run) => run.label === label), invalid };
}

/** A run that sent no traffic (skipped, or the memory and storage probes): no requests, no latency. */
export function quietRun(
  scenario: string,
  label: string,
  extra: Pick<RunResult, 'skipped' | 'memory' | 'storage' | 'startup' | 'starts'>,
): RunResult {
  return {
    scenario,
    variant: 'service',
    label,
    connections: 0,
    offeredRate: null,
    seconds: 0,
    requests: 0,
    rps: 0,
    latency: { mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 },
    statuses: {},
    errors: 0,
    cpu: { client: 0, server: null },
    ...extra,
  };
}

/**
 * Why a run's figures cannot be trusted, or undefined when they can: a run with a status other than
 * `answers` (its scenario's; any, when there are none) or a connection error is not a valid figure.
 */
export function untrusted(run: RunResult, answers: readonly string[] | undefined): string | undefined {
  if (run.skipped !== undefined) return run.skipped;
  if (run.requests === 0) return 'no responses';
  if (run.errors > 0) return `${run.errors} connection errors or timeouts`;
  if (answers === undefined) return undefined;
  const expected = run.generator === 'wrk' ? answers.map((s) => (/^[23]/.test(s) ? WRK_OK : WRK_OTHER)) : answers;
  const other = Object.entries(run.statuses).filter(([status, n]) => n > 0 && !expected.includes(status));
  return other.length === 0 ? undefined : `unexpected statuses ${other.map(([s, n]) => `${s}×${n}`).join(', ')}`;
}

const GENERATOR_CPU_LIMIT = 0.9;
/** Within this of the ceiling, above or below: further above, the ceiling (one Node core against wrk) capped nothing. */
const CEILING_MARGIN = 0.1;

/**
 * Why a run measured its load generator rather than its server, or undefined: the generator used
 * 90 % of its core or more, or the run came within 10 % of the ceiling run (the generator against
 * a server that does no HTTP work; `ceiling`, when its figures can be trusted) measured by the
 * same generator, when that ceiling was the generator's own (its CPU at 90 % or more): wrk can
 * outrun the one-core Node ceiling server, and on a busy machine neither side gets its core.
 * Paced runs are not judged.
 */
export function generatorLimit(run: RunResult, ceiling: RunResult | undefined): string | undefined {
  if (run.skipped !== undefined || run.requests === 0 || run.offeredRate !== null || run.generator === undefined) return undefined;
  const reasons: string[] = [];
  if (run.cpu.client >= GENERATOR_CPU_LIMIT) reasons.push(`${run.generator} at ${Math.round(run.cpu.client * 100)} % of its core`);
  if (
    ceiling !== undefined &&
    ceiling !== run &&
    ceiling.generator === run.generator &&
    ceiling.cpu.client >= GENERATOR_CPU_LIMIT &&
    Math.abs(run.rps / ceiling.rps - 1) <= CEILING_MARGIN
  )
    reasons.push(`${(run.rps / ceiling.rps).toFixed(2)}× the ceiling run`);
  return reasons.length === 0 ? undefined : reasons.join(', ');
}

/** The runs, each marked when its generator was the limit (against the run labelled 'ceiling', if it can be trusted). */
export function markLimited(runs: Judged): RunResult[] {
  const found = runs.find('ceiling');
  const ceiling = found !== undefined && runs.invalid(found) === undefined ? found : undefined;
  return runs.all.map((run) => {
    const limit = generatorLimit(run, ceiling);
    return limit === undefined ? run : { ...run, generatorLimited: limit };
  });
}

export function notApplicable(name: string, detail: string): TargetResult {
  return { name, value: '—', verdict: 'N/A', detail };
}

const rps = (run: RunResult) => run.rps;

/** Requests answered per second of the server's CPU: the inverse of its CPU per request. */
export const perCpuSecond = (run: RunResult): number =>
  run.cpu.server === null || run.cpu.server === 0 ? Number.NaN : run.rps / run.cpu.server;

/** Under this share of its core a server was not saturated: its rate is not what it can do. */
export const SATURATED_SERVER_CPU = 0.9;

/**
 * Why a run's server was not saturated (under 90 % of its core), or undefined: its rate then says
 * more about the load generator than the server, and only its figure per second of server CPU is
 * fair. Paced runs, runs without a server CPU reading and runs without requests are not judged.
 */
export function unsaturated(run: RunResult): string | undefined {
  const cpu = run.cpu.server;
  if (run.skipped !== undefined || run.requests === 0 || run.offeredRate !== null || cpu === null) return undefined;
  return cpu < SATURATED_SERVER_CPU ? `server at ${Math.round(cpu * 100)} % of its core` : undefined;
}

/** The runs labelled `first` and `second`, when both are there and can be trusted; else target `name` N/A, saying why. */
export function bothRuns(runs: Judged, name: string, first: string, second: string): [RunResult, RunResult] | TargetResult {
  const a = runs.find(first);
  const b = runs.find(second);
  if (a === undefined || b === undefined) return notApplicable(name, `needs the runs "${first}" and "${second}"`);
  const problem = runs.invalid(a) ?? runs.invalid(b);
  return problem === undefined ? [a, b] : notApplicable(name, problem);
}

/** "`top` ≥ `goal` × `bottom`", on the runs so labelled: by their rates, or by what `pick` reads of them. */
export function ratio(name: string, top: string, bottom: string, goal: number, pick = rps): Target {
  return (runs) => {
    const both = bothRuns(runs, name, top, bottom);
    if (!Array.isArray(both)) return both;
    const [a, b] = both;
    const value = pick(a) / pick(b);
    const limited = [a, b].filter((r) => r.generatorLimited !== undefined && pick === rps).map((r) => r.label);
    return {
      name,
      value: `${value.toFixed(2)}×`,
      verdict: value >= goal ? 'PASS' : 'MISS',
      // A lower bound over a lower bound is no bound at all: say which side it is.
      ...(limited.length === 0
        ? {}
        : { detail: `generator-limited: ${limited.map((l) => `"${l}"`).join(' and ')} (its rate is a lower bound)` }),
    };
  };
}

/**
 * "`top` ≥ `goal` × `bottom`" per second of server CPU (perCpuSecond): the per-core figure, fair
 * whether or not the load generator could saturate each server. Says which server was not saturated.
 */
export function perCoreRatio(name: string, top: string, bottom: string, goal: number): Target {
  return (runs) => {
    const both = bothRuns(runs, name, top, bottom);
    if (!Array.isArray(both)) return both;
    const [a, b] = both;
    const unread = [a, b].filter((run) => !Number.isFinite(perCpuSecond(run))).map((run) => `"${run.label}"`);
    if (unread.length > 0) return notApplicable(name, `no reading of the server's CPU for ${unread.join(' and ')}`);
    const value = perCpuSecond(a) / perCpuSecond(b);
    const loose = [a, b].flatMap((run) => {
      const why = unsaturated(run);
      return why === undefined ? [] : [`"${run.label}": ${why}`];
    });
    return {
      name,
      value: `${value.toFixed(2)}×`,
      verdict: value >= goal ? 'PASS' : 'MISS',
      ...(loose.length === 0 ? {} : { detail: `not saturated, ${loose.join('; ')}` }),
    };
  };
}

/** The target with `detail` (context: what a baseline reached beside it), unless it has a detail of its own. */
export function withDetail(target: TargetResult, detail: string | undefined): TargetResult {
  return detail === undefined || target.detail !== undefined ? target : { ...target, detail };
}

/** Server CPU per request of two runs (µs), when both were read: finer than their rates on a noisy machine. */
export function serverCpuPerRequest(runs: Judged, a: RunResult | undefined, b: RunResult | undefined): string | undefined {
  if (a === undefined || b === undefined || runs.invalid(a) !== undefined || runs.invalid(b) !== undefined) return undefined;
  const perRequest = (r: RunResult) => (r.cpu.server === null || r.rps === 0 ? null : (r.cpu.server / r.rps) * 1e6);
  const [x, y] = [perRequest(a), perRequest(b)];
  return x === null || y === null ? undefined : `server CPU per request ${x.toFixed(1)} µs against ${y.toFixed(1)} µs`;
}
