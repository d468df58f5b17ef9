// The API's routes: creates (with their rate limits), management, the list, tags and export,
// webhooks, dashboard sessions, keys, QR codes, health, metrics.

import { refuseUndecodedBodies } from '../http/body-encoding.ts';
import { registerHealth } from '../http/health.ts';
import { registerMetricsRoute } from '../http/metrics.ts';
import { linksRoutes } from '../http/links.ts';
import { linkPasswordRoutes } from '../http/link-password.ts';
import { manageRoutes } from '../http/manage.ts';
import { statsRoutes } from '../http/stats.ts';
import { qrRoutes } from '../http/qr.ts';
import { importRoutes } from '../http/import.ts';
import { domainsRoutes } from '../http/domains.ts';
import { webhooksRoutes } from '../http/webhooks.ts';
import { keysRoutes } from '../http/keys.ts';
import { linkListRoutes } from '../http/link-list.ts';
import { clientCounter, registerCreateLimits } from '../http/rate-limits.ts';
import { sessionRoutes } from '../http/session.ts';
import { targetPolicyOf } from '../core/target-policy.ts';
import { LinkCreates } from '../write/creates.ts';
import type { Part } from './options.ts';

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
