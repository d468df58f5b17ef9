// Metrics (METRICS_ENABLED): counting every routed request. Registered first, so that its hook
// sees the routes of every part after it; GET /metrics is one of the API's routes (api/routes-plugin.ts).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { countRequests } from '../ops/metrics-route.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import type { PartOptions } from '../part.ts';

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
    countRequests(app, metrics);
    // The gauges read the parts at each scrape; they exist once every part is registered.
    app.addHook('onReady', async () => {
      metrics.watch({
        queue: app.writeQueue,
        breaker: app.breaker,
        clicks: app.clicks,
        visits: app.visits,
        clickStream: app.clickStream,
        replicas: app.replicas,
      });
    });
  },
  { name: 'metrics' },
);
