// GET /metrics in the Prometheus text format, and the counting of every request Fastify routes.
// Redirects count themselves (http/redirect-observer.ts), from either entrance, so the hook
// leaves their route alone. Registered only with METRICS_ENABLED (the default).

import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';

/** Registers the hook before the routes (call it first): hooks apply to routes added after them. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.routeOptions.url;
    if (url !== '/:code') metrics.route(`${request.method} ${url ?? '(no route)'}`, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store');
    return metrics.registry.metrics();
  });
}
