// The series of target health probes: each probe by what came of it (ok, or its failure: a status
// class or a failure class), so that a deployment sees its probes run and what they find.

import { resultOk, type ProbeResult } from '../core/target-health.ts';
import type { Metrics } from '../metrics/metrics.ts';

/** The outcome label of a probe: `ok`, `4xx` / `5xx` (and other statuses by their hundred), or the failure class. */
export function outcomeOf(result: ProbeResult): string {
  if (resultOk(result)) return 'ok';
  return 'status' in result ? `${Math.floor(result.status / 100)}xx` : result.failure;
}

/** What the worker is told of each probe (worker.ts `probed`). */
export function healthProbes(metrics: Metrics): (result: ProbeResult) => void {
  const probes = metrics.counter(
    'shortener_health_probes_total',
    'Target health probes, by outcome: ok, 4xx, 5xx, or a failure class (timeout, dns, private_address, redirect_loop...).',
    ['outcome'],
  );
  return (result) => probes.inc({ outcome: outcomeOf(result) });
}
