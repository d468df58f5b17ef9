// The suite's targets: goals for the service, judged on ratios measured side by side in one run.
// They are printed as PASS or MISS; they are not test assertions.

import type { RunResult, TargetResult } from './types.ts';

export const SCENARIOS = [
  'ceiling',
  'baseline',
  'hot',
  'redis',
  'postgres',
  'not-found',
  'create',
  'mixed',
  'latency',
  'metrics',
  'memory',
  'storage',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** A run that sent no traffic (skipped, or the memory and storage probes): no requests, no latency. */
export function quietRun(scenario: Scenario, label: string, extra: Pick<RunResult, 'skipped' | 'memory' | 'storage'>): RunResult {
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

/** What each scenario must answer; a run with any other status (or a connection error) is not a valid figure. */
const EXPECTED_STATUSES: Readonly<Record<string, readonly string[]>> = {
  ceiling: ['302'],
  baseline: ['302'],
  hot: ['302'],
  redis: ['302'],
  postgres: ['302'],
  'not-found': ['404'],
  create: ['201'],
  mixed: ['302', '201'],
  latency: ['302'],
  metrics: ['302'],
};

/** Why a run's figures cannot be trusted, or undefined when they can. */
export function invalidRun(run: RunResult): string | undefined {
  if (run.skipped !== undefined) return run.skipped;
  if (run.requests === 0) return 'no responses';
  if (run.errors > 0) return `${run.errors} connection errors or timeouts`;
  const expected = EXPECTED_STATUSES[run.scenario];
  if (expected === undefined) return undefined;
  const other = Object.entries(run.statuses).filter(([status, n]) => n > 0 && !expected.includes(status));
  return other.length === 0 ? undefined : `unexpected statuses ${other.map(([s, n]) => `${s}×${n}`).join(', ')}`;
}

const LATENCY_P99_GOAL_MS = 2;
const MEMORY_GOAL_MB = 350;

export function judgeTargets(runs: readonly RunResult[]): TargetResult[] {
  const find = (label: string) => runs.find((run) => run.label === label);
  const ratio = (name: string, top: string, bottom: string, goal: number, pick = (r: RunResult) => r.rps): TargetResult => {
    const a = find(top);
    const b = find(bottom);
    if (a === undefined || b === undefined) return { name, value: '—', verdict: 'N/A', detail: `needs the runs "${top}" and "${bottom}"` };
    const problem = invalidRun(a) ?? invalidRun(b);
    if (problem !== undefined) return { name, value: '—', verdict: 'N/A', detail: problem };
    const value = pick(a) / pick(b);
    return { name, value: `${value.toFixed(2)}×`, verdict: value >= goal ? 'PASS' : 'MISS' };
  };

  // Context for two targets: what the baseline reaches under the same traffic.
  const notFoundBase = find('not-found · baseline');
  const base = find('baseline');
  const latencyBase = find('latency · baseline');
  const redis = find('redis');
  const pipelined = find('redis · auto-pipelining');
  const withDetail = (target: TargetResult, detail: string | undefined): TargetResult =>
    detail === undefined || target.detail !== undefined ? target : { ...target, detail };

  const targets = [
    ratio('hot ≥ 0.90 × baseline', 'hot', 'baseline', 0.9),
    // Against the hot path measured in the same rounds when there is one (not on an embedded database).
    ratio('redis ≥ 0.80 × hot', 'redis', find('redis · hot reference') === undefined ? 'hot' : 'redis · hot reference', 0.8),
    withDetail(
      ratio('redis ≥ 1.5 × one GET per request', 'redis', 'redis · one GET per request', 1.5),
      redis !== undefined && pipelined !== undefined && invalidRun(redis) === undefined && invalidRun(pipelined) === undefined
        ? `${(redis.rps / pipelined.rps).toFixed(2)}× ioredis auto-pipelining`
        : undefined,
    ),
    ratio('postgres ≥ 2.5 × one SELECT per request', 'postgres', 'postgres · one SELECT per request', 2.5),
    // What /metrics costs the hot path: the same service with METRICS_ENABLED=false, in the same rounds.
    ratio('metrics on ≥ 0.95 × off', 'metrics', 'metrics · off', 0.95),
    withDetail(
      ratio('not-found ≥ 0.80 × hot', 'not-found', 'hot', 0.8),
      notFoundBase !== undefined && base !== undefined && invalidRun(notFoundBase) === undefined
        ? `baseline: its 404s ${(notFoundBase.rps / base.rps).toFixed(2)}× its 302s; service 404s ${(
            (find('not-found')?.rps ?? 0) / notFoundBase.rps
          ).toFixed(2)}× baseline 404s`
        : undefined,
    ),
    ratio('create 400 ≥ 3 × one INSERT per request', 'create 400', 'create 400 · one INSERT per request', 3),
    // Inverted so that "≥ 3" reads the same way: the naive p99 over ours.
    ratio('create 400 p99 ≤ ⅓ of one INSERT per request', 'create 400 · one INSERT per request', 'create 400', 3, (r) => r.latency.p99),
  ];

  const latency = find('latency');
  const latencyProblem = latency === undefined ? 'the latency run did not happen' : invalidRun(latency);
  targets.push(
    latency === undefined || latencyProblem !== undefined
      ? { name: `latency p99 ≤ ${LATENCY_P99_GOAL_MS} ms at ½ max rate`, value: '—', verdict: 'N/A', detail: latencyProblem ?? '' }
      : {
          name: `latency p99 ≤ ${LATENCY_P99_GOAL_MS} ms at ½ max rate`,
          value: `${latency.latency.p99} ms (p50 ${latency.latency.p50}, p99.9 ${latency.latency.p999})`,
          verdict: latency.latency.p99 <= LATENCY_P99_GOAL_MS ? 'PASS' : 'MISS',
          ...(latencyBase === undefined || invalidRun(latencyBase) !== undefined
            ? {}
            : { detail: `baseline at the same rate: p99 ${latencyBase.latency.p99} ms (p50 ${latencyBase.latency.p50})` }),
        },
  );

  const memory = find('memory')?.memory;
  targets.push(
    memory === undefined
      ? { name: `memory: 1M cached links ≤ ${MEMORY_GOAL_MB} MB RSS`, value: '—', verdict: 'N/A', detail: 'the memory run did not happen' }
      : {
          name: `memory: 1M cached links ≤ ${MEMORY_GOAL_MB} MB RSS`,
          value: `${memory.rssMb} MB for ${memory.links.toLocaleString('en-US')} links (${memory.bytesPerLink} B/link)`,
          // Judged only at the full million: a smaller probe (smoke runs) says nothing about the goal.
          verdict: memory.links < 1_000_000 ? 'N/A' : memory.rssMb <= MEMORY_GOAL_MB ? 'PASS' : 'MISS',
        },
  );
  return targets;
}
