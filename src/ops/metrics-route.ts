// GET /metrics in the Prometheus text format, and the counting of every request Fastify routes.
// Redirects count themselves (edge/redirect-observer.ts), from either entrance, so the hook
// leaves their route alone. Registered only with METRICS_ENABLED (the default).

import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';

/** Counts every request Fastify routes; register it before the routes (hooks apply to routes added after them). */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.routeOptions.url;
    if (url !== '/:code') metrics.route(`${request.method} ${url ?? '(no route)'}`, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

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
