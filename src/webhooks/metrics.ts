// The series of webhook deliveries: each try by what came of it, and how long it took.

import type { Metrics } from '../metrics/metrics.ts';

/** What the worker is told of each try (worker.ts `tried`). */
export function webhookTries(
  metrics: Metrics,
): (outcome: { readonly state: 'delivered' | 'pending' | 'dead'; readonly latencyMs: number }) => void {
  const tries = metrics.counter(
    'shortener_webhook_tries_total',
    'Webhook delivery tries, by outcome: delivered, retry (failed, tried again later), dead (failed its last try).',
    ['outcome'],
  );
  const seconds = metrics.histogram(
    'shortener_webhook_try_seconds',
    'How long a webhook delivery try took, to its answer or its failure.',
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  );
  return ({ state, latencyMs }) => {
    tries.inc({ outcome: state === 'pending' ? 'retry' : state });
    seconds.observe(latencyMs / 1000);
  };
}
