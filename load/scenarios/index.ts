// Every scenario of the load suite, in the order they run (and their runs are listed): the link list
// first, while nothing else runs; what the seeded links cost; the redirect rounds; what reads their
// servers again; the writes; the tiers below the LRU; the features on the hot path; memory last.
// And how their runs are judged: each with what its scenario must answer, every target in the
// order of the verdicts.

import { judged, markLimited, untrusted, type Judged } from '../targets.ts';
import type { RunResult, TargetResult } from '../types.ts';
import type { Scenario } from '../scenario.ts';
import { analytics } from './analytics.ts';
import { cluster } from './cluster.ts';
import { create } from './create.ts';
import { dashboard } from './dashboard.ts';
import { latency } from './latency.ts';
import { list } from './list.ts';
import { memory } from './memory.ts';
import { metrics } from './metrics.ts';
import { mixed } from './mixed.ts';
import { notFound } from './not-found.ts';
import { baseline, ceiling, go, hot, hotDomain, hotSlow } from './redirect.ts';
import { rules } from './rules.ts';
import { starts } from './starts.ts';
import { startup } from './startup.ts';
import { storage } from './storage.ts';
import { stream } from './stream.ts';
import { postgres, redis } from './tiers.ts';

export const SCENARIOS: readonly Scenario[] = [
  list,
  storage,
  ceiling,
  baseline,
  go,
  hot,
  rules,
  hotDomain,
  hotSlow,
  cluster,
  notFound,
  latency,
  mixed,
  create,
  redis,
  postgres,
  metrics,
  dashboard,
  analytics,
  stream,
  starts,
  startup,
  memory,
];

/**
 * The order of the verdicts: the redirect path and its variants, the tiers below the LRU, the
 * features on the hot path, the scanner, the writes, latency, the list and memory. A scenario
 * left out has its verdicts after these.
 */
const VERDICTS: readonly Scenario[] = [
  hot,
  hotDomain,
  hotSlow,
  cluster,
  redis,
  postgres,
  metrics,
  analytics,
  stream,
  rules,
  dashboard,
  notFound,
  create,
  latency,
  list,
  memory,
];

const answers = new Map(SCENARIOS.map((scenario) => [scenario.name, scenario.answers]));

/** Why a run's figures cannot be trusted (a status its scenario does not answer, errors, no responses), or undefined. */
export function invalidRun(run: RunResult): string | undefined {
  return untrusted(run, answers.get(run.scenario));
}

function judging(runs: readonly RunResult[]): Judged {
  return judged(runs, invalidRun);
}

/** The runs, each marked when its generator was the limit. */
export function markGeneratorLimits(runs: readonly RunResult[]): RunResult[] {
  return markLimited(judging(runs));
}

/** Every scenario's targets, judged on `runs`, whichever scenarios ran. */
export function judgeTargets(runs: readonly RunResult[]): TargetResult[] {
  const judgedRuns = judging(runs);
  const ordered = [...VERDICTS, ...SCENARIOS.filter((scenario) => !VERDICTS.includes(scenario))];
  return ordered.flatMap((scenario) => (scenario.targets ?? []).map((target) => target(judgedRuns)));
}
