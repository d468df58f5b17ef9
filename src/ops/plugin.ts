// What operators and orchestrators ask of an instance: /healthz (alive), /readyz (should get
// traffic), and /metrics for Prometheus (with METRICS_ENABLED). Registered after every other part:
// readiness reads the write queue, and the metrics route is documented with the rest.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { PartOptions } from '../part.ts';
import { registerHealth } from './health.ts';
import { registerMetricsRoute } from './metrics-route.ts';

async function opsPart(app: FastifyInstance, { lifecycle }: PartOptions): Promise<void> {
  const { authDb, breaker, writeQueue, redis, replicas } = app;
  // Absent when a test builds the parts before links only.
  const blocklists = app.hasDecorator('blocklists') ? () => app.blocklists.status() : undefined;
  registerHealth(app, {
    db: authDb,
    breaker,
    queue: writeQueue,
    lifecycle,
    pingTimeoutMs: 1000,
    redis,
    replicas,
    ...(blocklists === undefined ? {} : { blocklists }),
  });
  if (app.metrics !== null) registerMetricsRoute(app, app.metrics);
}

export default fp(opsPart, { name: 'ops', dependencies: ['postgres', 'redis', 'read-path', 'write-path'] });
