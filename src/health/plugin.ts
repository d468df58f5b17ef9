// Target health as a part (docs/target-health.md): the routes that show a link's health and opt it
// out of probes, always; and the worker that probes targets, started only when HEALTH_PROBES is on
// (built either way, so that tests drive its rounds with runOnce()). Registered after links, whose
// service names links for the routes, so that it closes before them and before Postgres.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { PartOptions } from '../part.ts';
import { LinkHealthStore } from './link-health-store.ts';
import { healthProbes } from './metrics.ts';
import { probe } from './prober.ts';
import { healthRoutes } from './routes.ts';
import { HealthWorker } from './worker.ts';

declare module 'fastify' {
  interface FastifyInstance {
    health: HealthWorker;
  }
}

async function healthPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const worker = new HealthWorker({
    pool: app.pool,
    probe,
    probeOptions: {
      timeoutMs: config.healthProbeTimeoutMs,
      maxRedirects: config.healthProbeMaxRedirects,
      allowPrivate: config.healthProbeAllowPrivate,
    },
    rate: config.healthProbeRate,
    intervalMs: config.healthProbeIntervalMs,
    brokenAfter: config.healthBrokenAfter,
    log,
    probed: app.metrics === null ? undefined : healthProbes(app.metrics),
  });
  app.addHook('onClose', async () => worker.close());
  if (config.healthProbes) worker.start();
  app.decorate('health', worker);
  const health = new LinkHealthStore(app.db, app.pool, app.breaker);
  await app.register(healthRoutes, { links: app.linkApi.links, health });
}

export default fp(healthPart, { name: 'health', dependencies: ['postgres', 'links', 'webhooks'] });
