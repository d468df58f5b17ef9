// Latency at a rate the service can hold: half the hot run's maximum, paced evenly over a few
// connections (with a hundred, their timers fire in clumps and the latency measured is that of the
// clumps) by autocannon (wrk cannot pace). The baseline at the same rate shows what the machine and
// the load generator add to any server's latency; the FAST_PATH=false service at the same rate is
// "today".
//
//   npm run load -- --scenario baseline,latency

import { compare, LATENCY_CONNECTIONS, type Variant } from '../measure.ts';
import type { OnItsOwn } from '../scenario.ts';
import { mainAnswering, serverAnswering } from '../service.ts';
import { bothRuns, notApplicable, type Target } from '../targets.ts';
import { fixed } from '../traffic.ts';
import type { RunResult } from '../types.ts';
import { hot, hotSlow } from './redirect.ts';

const LATENCY_P99_GOAL_MS = 2;

export const latency: OnItsOwn = {
  name: 'latency',
  // Offered half of hot's measured maximum, and compared with the FAST_PATH=false service at that rate.
  needs: ['service', 'rounds', hot, hotSlow],
  answers: ['302'],
  targets: [latencyGoal(), noWorseThanToday()],
  async run(context) {
    const hotRun = context.runs.find((run) => run.label === 'hot');
    if (hotRun === undefined) return [];
    const { service, options } = context;
    const kept = context.rounds;
    const paced = {
      connections: LATENCY_CONNECTIONS,
      requests: fixed(service.hotPaths),
      overallRate: Math.max(1, Math.round(hotRun.rps / 2)),
    };
    const pair: Variant[] = [{ scenario: 'latency', variant: 'service', label: 'latency', ...mainAnswering(service), ...paced }];
    if (kept.slow !== undefined) {
      pair.push({
        scenario: 'latency',
        variant: 'service, FAST_PATH=false',
        label: 'latency · FAST_PATH=false',
        ...serverAnswering(kept.slow.server),
        ...paced,
        requests: fixed(kept.slow.paths),
      });
    }
    if (kept.baseline !== undefined) {
      pair.push({
        scenario: 'latency',
        variant: 'baseline (node:http + Map)',
        label: 'latency · baseline',
        ...serverAnswering(kept.baseline),
        ...paced,
      });
    }
    return (await compare(pair, options.seconds, options.rounds)).map(context.record);
  },
};

function latencyGoal(): Target {
  const name = `latency p99 ≤ ${LATENCY_P99_GOAL_MS} ms at ½ max rate`;
  return (runs) => {
    const run = runs.find('latency');
    const problem = run === undefined ? 'the latency run did not happen' : runs.invalid(run);
    if (run === undefined || problem !== undefined) return notApplicable(name, problem ?? '');
    const base = runs.find('latency · baseline');
    return {
      name,
      value: `${run.latency.p99} ms (p50 ${run.latency.p50}, p99.9 ${run.latency.p999})`,
      verdict: run.latency.p99 <= LATENCY_P99_GOAL_MS ? 'PASS' : 'MISS',
      ...(base === undefined || runs.invalid(base) !== undefined
        ? {}
        : { detail: `baseline at the same rate: p99 ${base.latency.p99} ms (p50 ${base.latency.p50})` }),
    };
  };
}

/** "No worse than today": not above the p99 of the service with FAST_PATH=false, offered the same rate in the same rounds. */
function noWorseThanToday(): Target {
  const name = 'latency p99 ≤ FAST_PATH=false at the same rate';
  return (runs) => {
    const both = bothRuns(runs, name, 'latency', 'latency · FAST_PATH=false');
    if (!Array.isArray(both)) return both;
    const [run, slow] = both;
    const short = [run, slow].filter((r): r is RunResult => r.offeredRate !== null && r.rps < 0.95 * r.offeredRate);
    return {
      name,
      value: `${run.latency.p99} ms vs ${slow.latency.p99} ms`,
      verdict: run.latency.p99 <= slow.latency.p99 ? 'PASS' : 'MISS',
      detail:
        `p50 ${run.latency.p50} vs ${slow.latency.p50} ms, p99.9 ${run.latency.p999} vs ${slow.latency.p999} ms` +
        (short.length === 0
          ? ''
          : `; the offered rate was not reached by ${short.map((r) => `"${r.label}" (${r.rps.toLocaleString('en-US')}/s)`).join(', ')}`),
    };
  };
}
