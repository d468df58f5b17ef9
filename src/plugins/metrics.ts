// Metrics (METRICS_ENABLED): counting every routed request, and GET /metrics. Registered first, so
// that its hook sees the routes of every part after it.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerMetrics } from '../http/metrics.ts';
import { createMetrics, type Metrics } from '../metrics/metrics.ts';
import type { PartOptions } from './options.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Null with METRICS_ENABLED=false: nothing is counted. */
    metrics: Metrics | null;
  }
}

export default fp(
  async function metricsPart(app: FastifyInstance, { config }: PartOptions) {
    const metrics = config.metricsEnabled ? createMetrics() : null;
    app.decorate('metrics', metrics);
    if (metrics === null) return;
    registerMetrics(app, metrics);
    // The gauges read the parts at each scrape; they exist once every part is registered.
    app.addHook('onReady', async () => {
      metrics.watch({ queue: app.writeQueue, breaker: app.breaker, clicks: app.clicks, replicas: app.replicas });
    });
  },
  { name: 'metrics' },
);
