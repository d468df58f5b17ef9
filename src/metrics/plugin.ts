// Metrics (METRICS_ENABLED) as a part: the registry every other part registers its own series in,
// and the counting of every routed request. Registered first, so that its hook sees the routes of
// every part after it; GET /metrics is the ops part's (ops/plugin.ts).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { PartOptions } from '../part.ts';
import { Metrics } from './metrics.ts';
import { countRequests } from './request-counts.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Null with METRICS_ENABLED=false: nothing is counted. */
    metrics: Metrics | null;
  }
}

async function metricsPart(app: FastifyInstance, { config }: PartOptions): Promise<void> {
  const metrics = config.metricsEnabled ? new Metrics() : null;
  app.decorate('metrics', metrics);
  if (metrics !== null) countRequests(app, metrics);
}

export default fp(metricsPart, { name: 'metrics' });
