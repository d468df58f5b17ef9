// The suite's targets: goals for the service, judged on ratios measured side by side in one run.
// They are printed as PASS or MISS; they are not test assertions.

import type { RunResult, TargetResult } from './types.ts';
import { WRK_OK, WRK_OTHER } from './wrk-output.ts';

export const SCENARIOS = [
  'ceiling',
  'baseline',
  'hot',
  'hot-domain',
  'hot-slow',
  'go',
  'cluster',
  'redis',
  'postgres',
  'not-found',
  'create',
  'mixed',
  'latency',
  'metrics',
  'dashboard',
  'analytics',
  'stream',
  'rules',
  'memory',
  'storage',
  'list',
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
  'hot-domain': ['302'],
  'hot-slow': ['302'],
  go: ['302'],
  cluster: ['302'],
  redis: ['302'],
  postgres: ['302'],
  'not-found': ['404'],
  create: ['201'],
  mixed: ['302', '201'],
  latency: ['302'],
  metrics: ['302'],
  dashboard: ['302'],
  analytics: ['302'],
  stream: ['302'],
  // Links with rules answer the split's 302 or a target's; the plain run beside them 302.
  rules: ['302'],
  list: ['200'],
};

/** Why a run's figures cannot be trusted, or undefined when they can. */
export function invalidRun(run: RunResult): string | undefined {
  if (run.skipped !== undefined) return run.skipped;
  if (run.requests === 0) return 'no responses';
  if (run.errors > 0) return `${run.errors} connection errors or timeouts`;
  const statuses = EXPECTED_STATUSES[run.scenario];
  if (statuses === undefined) return undefined;
  const expected = run.generator === 'wrk' ? statuses.map((s) => (/^[23]/.test(s) ? WRK_OK : WRK_OTHER)) : statuses;
  const other = Object.entries(run.statuses).filter(([status, n]) => n > 0 && !expected.includes(status));
  return other.length === 0 ? undefined : `unexpected statuses ${other.map(([s, n]) => `${s}×${n}`).join(', ')}`;
}

/**
 * Why a run measured its load generator rather than its server, or undefined: the generator used
 * 90 % of its core or more, or the run came within 10 % of the ceiling run (the generator against
 * a server that does no HTTP work) measured by the same generator, when that ceiling was the
 * generator's own (its CPU at 90 % or more): wrk can outrun the one-core Node ceiling server, and
 * on a busy machine neither side gets its core. Paced runs are not judged.
 */
export function generatorLimit(run: RunResult, ceiling: RunResult | undefined): string | undefined {
  if (run.skipped !== undefined || run.requests === 0 || run.offeredRate !== null || run.generator === undefined) return undefined;
  const reasons: string[] = [];
  if (run.cpu.client >= GENERATOR_CPU_LIMIT) reasons.push(`${run.generator} at ${Math.round(run.cpu.client * 100)} % of its core`);
  if (
    ceiling !== undefined &&
    ceiling !== run &&
    ceiling.generator === run.generator &&
    invalidRun(ceiling) === undefined &&
    ceiling.cpu.client >= GENERATOR_CPU_LIMIT &&
    Math.abs(run.rps / ceiling.rps - 1) <= CEILING_MARGIN
  )
    reasons.push(`${(run.rps / ceiling.rps).toFixed(2)}× the ceiling run`);
  return reasons.length === 0 ? undefined : reasons.join(', ');
}

const GENERATOR_CPU_LIMIT = 0.9;
/** Within this of the ceiling, above or below: further above, the ceiling (one Node core against wrk) capped nothing. */
const CEILING_MARGIN = 0.1;

/** The runs, each marked when its generator was the limit (against the run labelled 'ceiling'). */
export function markGeneratorLimits(runs: readonly RunResult[]): RunResult[] {
  const ceiling = runs.find((run) => run.label === 'ceiling');
  return runs.map((run) => {
    const limit = generatorLimit(run, ceiling);
    return limit === undefined ? run : { ...run, generatorLimited: limit };
  });
}

const LATENCY_P99_GOAL_MS = 2;
/** The link list's goal, from its issue: "p99 under 50 ms with 1M links". */
const LIST_P99_GOAL_MS = 50;
/**
 * The dashboard's goal for the hot path: at least 0.97× without it. Shown, not judged: runs of
 * one variant differ by ±5 % on these two shared cores (the metrics runs in the README; the
 * dashboard's own gave 1.24×, 1.11× and, one after the other on the embedded engine, 0.65×).
 */
const DASHBOARD_ON_OVER_OFF = 0.97;
const MEMORY_GOAL_MB = 350;
const HOT_OVER_BASELINE = 1.4;
const HOT_OVER_GO = 0.85;
/** Plain links within 3 % of the release before; links with rules at least half as fast as plain ones. */
const HOT_OVER_AGAINST = 0.97;
const RULES_OVER_PLAIN = 0.5;
/** Two workers on two cores against one on one: 85 % of linear. */
const CLUSTER_OVER_HOT = 1.7;
/** Branded domains' goal: their hot path within 5 % of the release before them (--against), in the same rounds. */
const HOT_DOMAIN_OVER_AGAINST = 0.95;

export function judgeTargets(runs: readonly RunResult[]): TargetResult[] {
  const find = (label: string) => runs.find((run) => run.label === label);
  const rps = (r: RunResult) => r.rps;
  /** Requests answered per second of the server's CPU: the inverse of its CPU per request. */
  const perCpuSecond = (run: RunResult) => (run.cpu.server === null || run.cpu.server === 0 ? Number.NaN : run.rps / run.cpu.server);
  const ratio = (name: string, top: string, bottom: string, goal: number, pick = rps): TargetResult => {
    const a = find(top);
    const b = find(bottom);
    if (a === undefined || b === undefined) return { name, value: '—', verdict: 'N/A', detail: `needs the runs "${top}" and "${bottom}"` };
    const problem = invalidRun(a) ?? invalidRun(b);
    if (problem !== undefined) return { name, value: '—', verdict: 'N/A', detail: problem };
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

  // Context for two targets: what the baseline reaches under the same traffic.
  const notFoundBase = find('not-found · baseline');
  const base = find('baseline');
  const latencyBase = find('latency · baseline');
  const redis = find('redis');
  const pipelined = find('redis · auto-pipelining');
  const withDetail = (target: TargetResult, detail: string | undefined): TargetResult =>
    detail === undefined || target.detail !== undefined ? target : { ...target, detail };

  const hot = find('hot');
  const slow = find('hot-slow');
  // The other checkout's hot run (--against), labelled by its folder.
  const againstHot = runs.find((run) => run.scenario === 'hot' && run.label !== 'hot');
  const hotDomain = ratio(
    `hot-domain ≥ ${HOT_DOMAIN_OVER_AGAINST} × hot of --against`,
    'hot-domain',
    againstHot?.label ?? 'hot · <--against>',
    HOT_DOMAIN_OVER_AGAINST,
  );
  const cluster = find('cluster');
  const clusterTarget = ratio(`cluster ≥ ${CLUSTER_OVER_HOT} × hot`, 'cluster', 'hot', CLUSTER_OVER_HOT);
  const targets: TargetResult[] = [
    ratio(`hot ≥ ${HOT_OVER_BASELINE} × baseline`, 'hot', 'baseline', HOT_OVER_BASELINE),
    ratio(`hot ≥ ${HOT_OVER_GO} × go`, 'hot', 'go', HOT_OVER_GO),
    // Links on a branded domain against the release before domains (--against); the default domain's ratio beside it.
    withDetail(
      hotDomain,
      hot !== undefined && againstHot !== undefined && invalidRun(hot) === undefined && invalidRun(againstHot) === undefined
        ? `default domain: hot ${(hot.rps / againstHot.rps).toFixed(2)}× "${againstHot.label}"`
        : undefined,
    ),
    // The fast path against node:http, in the same rounds: shown, not judged.
    hot === undefined || slow === undefined || invalidRun(hot) !== undefined || invalidRun(slow) !== undefined
      ? {
          name: 'hot ÷ hot-slow (FAST_PATH=false)',
          value: '—',
          verdict: 'N/A',
          detail:
            hot === undefined || slow === undefined
              ? 'needs the runs "hot" and "hot-slow"'
              : `${invalidRun(hot) === undefined ? 'hot-slow' : 'hot'}: ${invalidRun(hot) ?? invalidRun(slow)}`,
        }
      : {
          name: 'hot ÷ hot-slow (FAST_PATH=false)',
          value: `${(hot.rps / slow.rps).toFixed(2)}×`,
          verdict: 'INFO',
          detail: `hot ${hot.rps.toLocaleString('en-US')} req/s, hot-slow ${slow.rps.toLocaleString('en-US')} req/s`,
        },
    // Two server cores against one: with the load generator on one of them, a figure, not a verdict.
    cluster?.informational === undefined || clusterTarget.verdict === 'N/A'
      ? clusterTarget
      : { ...clusterTarget, verdict: 'INFO', detail: cluster.informational },
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
    // What click analytics cost the hot path, flushes and all: the issue's bar for a feature on it.
    ratio('analytics on ≥ 0.90 × off', 'analytics', 'analytics · off', 0.9),
    // What the click stream costs the hot path, analytics on both sides: the issue's bar.
    ratio('click stream on ≥ 0.90 × off', 'stream', 'stream · off', 0.9),
    // The same, as server CPU per request at the same offered rate: what the stream costs the
    // service itself, apart from the CPU its Redis takes from the generator's core on this machine.
    ratio(
      'click stream: requests per server CPU second, same rate, on ≥ 0.90 × off',
      'stream · paced',
      'stream · off · paced',
      0.9,
      perCpuSecond,
    ),
    // Plain links against the release before (--against): link options must not slow them.
    ratio(`hot ≥ ${HOT_OVER_AGAINST} × hot of --against`, 'hot', againstHot?.label ?? 'hot · <--against>', HOT_OVER_AGAINST),
    // Links with rules against plain links in the same service, sent the same clicks.
    ratio(`rules ≥ ${RULES_OVER_PLAIN} × plain`, 'rules', 'rules · plain', RULES_OVER_PLAIN),
    dashboardTarget(find('dashboard'), find('dashboard · off')),
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

  // "No worse than today": not above the p99 of the service with FAST_PATH=false, offered the same rate in the same rounds.
  const latencySlow = find('latency · FAST_PATH=false');
  const slowProblem =
    latency === undefined || latencySlow === undefined
      ? 'needs the runs "latency" and "latency · FAST_PATH=false"'
      : (latencyProblem ?? invalidRun(latencySlow));
  const short = [latency, latencySlow].filter(
    (r): r is RunResult => r !== undefined && r.offeredRate !== null && r.rps < 0.95 * r.offeredRate,
  );
  targets.push(
    latency === undefined || latencySlow === undefined || slowProblem !== undefined
      ? { name: 'latency p99 ≤ FAST_PATH=false at the same rate', value: '—', verdict: 'N/A', detail: slowProblem ?? '' }
      : {
          name: 'latency p99 ≤ FAST_PATH=false at the same rate',
          value: `${latency.latency.p99} ms vs ${latencySlow.latency.p99} ms`,
          verdict: latency.latency.p99 <= latencySlow.latency.p99 ? 'PASS' : 'MISS',
          detail:
            `p50 ${latency.latency.p50} vs ${latencySlow.latency.p50} ms, p99.9 ${latency.latency.p999} vs ${latencySlow.latency.p999} ms` +
            (short.length === 0
              ? ''
              : `; the offered rate was not reached by ${short.map((r) => `"${r.label}" (${r.rps.toLocaleString('en-US')}/s)`).join(', ')}`),
        },
  );

  targets.push(...listTargets(find('list')));

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

/** The hot path with the dashboard against without it, in the same rounds: a ratio with its goal, shown. */
function dashboardTarget(on: RunResult | undefined, off: RunResult | undefined): TargetResult {
  const name = 'hot with the dashboard ÷ without';
  if (on === undefined || off === undefined)
    return { name, value: '—', verdict: 'N/A', detail: 'needs the runs "dashboard" and "dashboard · off"' };
  const problem = invalidRun(on) ?? invalidRun(off);
  if (problem !== undefined) return { name, value: '—', verdict: 'N/A', detail: problem };
  const cpu = serverCpuPerRequest(on, off);
  const limited = [on, off].filter((r) => r.generatorLimited !== undefined).map((r) => `"${r.label}"`);
  return {
    name,
    value: `${(on.rps / off.rps).toFixed(2)}×`,
    verdict: 'INFO',
    detail:
      `goal ≥ ${DASHBOARD_ON_OVER_OFF}×, shown and not judged: 3 % is below what two shared cores resolve` +
      (cpu === undefined ? '' : `; ${cpu}`) +
      (limited.length === 0 ? '' : `; generator-limited: ${limited.join(' and ')}`),
  };
}

/** Server CPU per request of two runs (µs), when both were read: finer than their rates on a noisy machine. */
function serverCpuPerRequest(a: RunResult | undefined, b: RunResult | undefined): string | undefined {
  if (a === undefined || b === undefined || invalidRun(a) !== undefined || invalidRun(b) !== undefined) return undefined;
  const perRequest = (r: RunResult) => (r.cpu.server === null || r.rps === 0 ? null : (r.cpu.server / r.rps) * 1e6);
  const [x, y] = [perRequest(a), perRequest(b)];
  return x === null || y === null ? undefined : `server CPU per request ${x.toFixed(1)} µs against ${y.toFixed(1)} µs`;
}

/**
 * The link list's p99 over every shape (with its worst shape), and the export's rate (shown). A
 * request that failed (a 503 from the statement timeout, or from the breaker that such timeouts
 * opened; or no answer) missed the goal: the run is judged, not set aside as invalid.
 */
function listTargets(list: RunResult | undefined): TargetResult[] {
  const figures = list?.list;
  const name = `list p99 ≤ ${LIST_P99_GOAL_MS} ms${figures === undefined ? '' : ` with ${figures.links.toLocaleString('en-US')} links`}`;
  const exportName = 'list export.csv of the whole workspace';
  const problem = list === undefined ? 'the list run did not happen' : (list.skipped ?? (list.requests === 0 ? 'no responses' : undefined));
  if (list === undefined || figures === undefined || problem !== undefined) {
    return [
      { name, value: '—', verdict: 'N/A', detail: problem ?? 'no list figures' },
      { name: exportName, value: '—', verdict: 'N/A', detail: problem ?? 'no list figures' },
    ];
  }
  const { p50, p99 } = list.latency;
  const failed = list.errors + Object.entries(list.statuses).reduce((sum, [status, n]) => sum + (status === '200' ? 0 : n), 0);
  const exported = figures.export;
  return [
    {
      name,
      value: `${p99} ms (p50 ${p50}, ${list.requests.toLocaleString('en-US')} requests)`,
      verdict: p99 <= LIST_P99_GOAL_MS && failed === 0 ? 'PASS' : 'MISS',
      detail:
        `worst shape: "${figures.worst.label}" p99 ${figures.worst.p99} ms` +
        (failed === 0 ? '' : `; ${failed.toLocaleString('en-US')} requests failed (${invalidRun(list) ?? ''})`),
    },
    exported === null
      ? { name: exportName, value: '—', verdict: 'N/A', detail: figures.exportProblem ?? 'the export failed' }
      : {
          name: exportName,
          value: `${exported.rowsPerSecond.toLocaleString('en-US')} rows/s`,
          verdict: 'INFO',
          detail: `${exported.rows.toLocaleString('en-US')} rows in ${exported.seconds} s, first byte after ${exported.firstByteMs} ms`,
        },
  ];
}
