// GET /metrics in the Prometheus text format (metrics/metrics.ts). Registered only with
// METRICS_ENABLED (the default).

import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';

/** GET /metrics; after the docs, which document it. */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  const schema = {
    summary: 'Prometheus metrics, in the text exposition format',
    tags: ['service'],
    response: { 200: { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } } },
  };
  app.get('/metrics', { schema }, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store');
    return metrics.registry.metrics();
  });
}
