// The API's routes: creates (with their rate limits), management, the list, tags and export,
// webhooks, dashboard sessions, keys, QR codes, health, metrics.

import { refuseUndecodedBodies } from './body-encoding.ts';
import { registerHealth } from '../ops/health.ts';
import { registerMetricsRoute } from '../ops/metrics-route.ts';
import { linksRoutes } from '../links/create-routes.ts';
import { linkPasswordRoutes } from '../links/password-routes.ts';
import { manageRoutes } from '../links/manage-routes.ts';
import { statsRoutes } from '../analytics/stats-routes.ts';
import { qrRoutes } from '../links/qr-routes.ts';
import { importRoutes } from '../links/import-routes.ts';
import { domainsRoutes } from '../domains/routes.ts';
import { webhooksRoutes } from '../webhooks/routes.ts';
import { keysRoutes } from '../auth/key-routes.ts';
import { linkListRoutes } from '../links/list-routes.ts';
import { clientCounter, registerCreateLimits } from './rate-limits.ts';
import { sessionRoutes } from '../auth/session-routes.ts';
import { targetPolicyOf } from '../core/target-policy.ts';
import { LinkCreates } from '../links/creates.ts';
import type { Part } from '../part.ts';

/** Encapsulated: the rate limiter and the creates' slow-request hook stay with their routes. */
const api: Part = async function apiPart(app, { config, log, lifecycle }) {
  const { db, breaker, writeQueue, links, redis, replicas, cache, codeSpace, resolver, notFoundLimit, clientAddress } = app;
  refuseUndecodedBodies(app);
  const policy = targetPolicyOf(config);
  const createRouteConfig = await registerCreateLimits(app, { config, redis: redis?.client ?? null, log });
  const { shortUrls } = app;
  const creates = new LinkCreates({
    queue: writeQueue,
    db,
    breaker,
    policy,
    domainOf: async (host, workspaceId) => (await shortUrls.domainOf(host, workspaceId)).id,
  });
  await app.register(linksRoutes, {
    creates,
    shortUrls,
    keyRequired: config.createRequiresApiKey,
    slowRequestMs: config.slowRequestMs,
    ackDelayMs: (alias) => codeSpace.ackDelayMs(alias),
    ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
  });
  await app.register(importRoutes, {
    creates,
    db,
    breaker,
    shortUrls,
    policy,
    ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
  });
  await app.register(manageRoutes, { db, breaker, links, shortUrls, policy });
  await app.register(statsRoutes, {
    db,
    breaker,
    statsDb: app.listDb,
    statsBreaker: app.listBreaker,
    shortUrls,
    kept: app.visits?.dimensions ?? [],
  });
  await app.register(linkListRoutes, { db: app.listDb, lists: app.linkLists, breaker: app.listBreaker, shortUrls });
  await app.register(domainsRoutes, {
    db,
    pool: app.pool,
    breaker,
    hosts: app.hosts,
    shortUrls,
    links,
    codeSpace,
    policy,
    defaultRoot: config.rootRedirect === 'none' ? null : config.rootRedirect,
  });
  await app.register(webhooksRoutes, {
    db,
    pool: app.pool,
    breaker,
    policy: targetPolicyOf({ ...config, allowPrivateTargets: config.webhookAllowPrivate }),
    overlapMs: config.webhookSecretOverlapMs,
  });
  await app.register(keysRoutes, { db, breaker, forgetAll: app.remembered.forgetAll });
  const failures = clientCounter(redis?.client ?? null, config.redisKeyPrefix, log, 'signin:', 'sign-in limits');
  await app.register(sessionRoutes, {
    db,
    breaker,
    forgetSession: app.remembered.forgetSession,
    failures,
    maxFailures: config.signInMaxFailures,
    windowMs: config.signInWindowMs,
    ttlMs: config.sessionTtlMs,
    baseUrl: config.baseUrl,
  });
  await app.register(qrRoutes, { shortUrls, hosts: app.hosts, cache, codeSpace, resolver, notFoundLimit, clientAddress });
  await app.register(linkPasswordRoutes, {
    hosts: app.hosts,
    hostOf: app.hostOf,
    clientOf: clientAddress,
    cache,
    codeSpace,
    resolver,
    secret: config.codeSecret,
  });
  registerHealth(app, { db, breaker, queue: writeQueue, lifecycle, pingTimeoutMs: 1000, redis, replicas });
  if (app.metrics !== null) registerMetricsRoute(app, app.metrics);
};

export default api;
