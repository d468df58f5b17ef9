// The API's routes: creates (with their rate limits), management, QR codes, health, metrics.

import { refuseUndecodedBodies } from '../http/body-encoding.ts';
import { registerHealth } from '../http/health.ts';
import { registerMetricsRoute } from '../http/metrics.ts';
import { linksRoutes } from '../http/links.ts';
import { manageRoutes } from '../http/manage.ts';
import { qrRoutes } from '../http/qr.ts';
import { registerCreateLimits } from '../http/rate-limits.ts';
import { targetPolicyOf } from '../core/target-policy.ts';
import type { Part } from './options.ts';

/** Encapsulated: the rate limiter and the creates' slow-request hook stay with their routes. */
const api: Part = async function apiPart(app, { config, log, lifecycle }) {
  const { db, breaker, writeQueue, links, redis, replicas, cache, codeSpace, resolver, notFoundLimit, clientAddress } = app;
  refuseUndecodedBodies(app);
  const policy = targetPolicyOf(config);
  const createRouteConfig = await registerCreateLimits(app, { config, redis: redis?.client ?? null, log });
  await app.register(linksRoutes, {
    queue: writeQueue,
    db,
    breaker,
    baseUrl: config.baseUrl,
    policy,
    keyRequired: config.createRequiresApiKey,
    slowRequestMs: config.slowRequestMs,
    ackDelayMs: (alias) => codeSpace.ackDelayMs(alias),
    ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
  });
  await app.register(manageRoutes, { db, breaker, links, baseUrl: config.baseUrl, policy });
  await app.register(qrRoutes, { baseUrl: config.baseUrl, cache, codeSpace, resolver, notFoundLimit, clientAddress });
  registerHealth(app, { db, breaker, queue: writeQueue, lifecycle, pingTimeoutMs: 1000, redis, replicas });
  if (app.metrics !== null) registerMetricsRoute(app, app.metrics);
};

export default api;
