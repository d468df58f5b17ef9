// Builds the service from its parts. The process (server.ts) and the tests both call this; it
// takes its dependencies (config, a Postgres pool, a logger) and owns what it creates.

import { createServer } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createLinkCache } from './cache/link-cache.ts';
import type { Config } from './config.ts';
import { createCodeCodec, type ShortCode } from './core/codes.ts';
import { createPermutation } from './core/permutation.ts';
import { targetPolicyOf } from './core/target-policy.ts';
import { createDbBreaker, type DbBreaker } from './db/breaker.ts';
import { findLinks, insertLinks, reserveIdBlock } from './db/links.ts';
import type { Queryable } from './db/pool.ts';
import { ReplicaSet } from './db/replicas.ts';
import { registerApiKeys } from './auth/api-keys.ts';
import { AppError } from './errors.ts';
import { onClientError, onFrameworkError, registerErrorHandlers } from './http/errors.ts';
import { registerDocs } from './http/docs.ts';
import { registerHealth, type Lifecycle } from './http/health.ts';
import { clientAddressReader } from './http/client-address.ts';
import { trustProxyRule } from './core/trust-proxy.ts';
import { BODY_LIMIT_BYTES, linksRoutes } from './http/links.ts';
import { manageRoutes } from './http/manage.ts';
import { NotFoundLimit } from './http/not-found-limit.ts';
import { qrRoutes } from './http/qr.ts';
import { registerCreateLimits } from './http/rate-limits.ts';
import { createRedirectHandler, registerRedirect } from './http/redirect.ts';
import { registerMetrics } from './http/metrics.ts';
import { createRedirectObserver } from './http/redirect-observer.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { addClicks } from './db/clicks.ts';
import { ClickFlusher } from './write/click-flusher.ts';
import { CodeSpace } from './resolve/code-space.ts';
import { createResolver } from './resolve/resolver.ts';
import { createRedisTier } from './redis/tier.ts';
import { IdAllocator } from './write/id-allocator.ts';
import { createLinkChanges, createPropagate, type LinkChanges } from './write/link-changes.ts';
import { WriteQueue } from './write/write-queue.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Changes to existing links, propagated to every instance (the management routes of issue #6 use it). */
    links: LinkChanges;
    /** Click counts on their way to Postgres (flush() writes them now). */
    clicks: ClickFlusher;
    /** Null with METRICS_ENABLED=false: nothing is counted. */
    metrics: Metrics | null;
    /** The Postgres breaker: its state and the failures it counted. */
    breaker: DbBreaker;
  }
}

export interface AppDeps {
  config: Config;
  db: Queryable;
  log: Logger;
  /** Set `draining` to fail readiness before closing; a fresh one is made if omitted. */
  lifecycle?: Lifecycle;
}

export async function buildApp({ config, db, log, lifecycle = { draining: false } }: AppDeps): Promise<FastifyInstance> {
  const metrics = config.metricsEnabled ? createMetrics() : null;
  const breaker = createDbBreaker(config, log, metrics?.breakerTransition);
  const cache = createLinkCache(config);
  const redis = createRedisTier({
    config,
    log,
    invalidate: (code) => resolver.invalidate(code),
    reset: (maxTtlMs) => {
      cache.reset(maxTtlMs);
      // Going deaf (a cap on entries) keeps the last known answers: they are what an outage of
      // Postgres too would serve. A gap in what was heard, or hearing again, means any may be stale.
      if (maxTtlMs === undefined) resolver.missedInvalidations();
    },
  });
  // Its pools connect only when asked; it starts probing once the app is built.
  const replicas = config.databaseReplicaUrls.length === 0 ? null : new ReplicaSet(config, log);
  const resolver = createResolver({
    cache,
    source: (codes) => breaker.run(() => findLinks(db, codes)),
    replicas,
    maxBatch: config.readBatchMax,
    shared: redis?.store ?? null,
    sharedMaxBatch: config.redisBatchMax,
    lastKnownTtlMs: config.cacheTtlMs,
    hearing: () => redis?.hearing() ?? true,
    stats: metrics?.lookups ?? null,
  });
  const propagate = createPropagate(cache, resolver, redis?.store ?? null);
  const linkChanges = createLinkChanges(db, breaker, propagate);

  const permutation = createPermutation(config.codeSecret, config.codeLength);
  const codec = createCodeCodec(permutation, config.codeLength);
  const codeSpace = new CodeSpace({ db, codec, codeLength: config.codeLength, codeSecret: config.codeSecret, log });
  await codeSpace.start();
  const ids = new IdAllocator(() => breaker.run(() => reserveIdBlock(db)));
  const queue = new WriteQueue({
    insert: (links) => breaker.run(() => insertLinks(db, links)),
    async allocate(count) {
      const taken = await ids.take(count);
      return taken.map((id): ShortCode => {
        if (id >= permutation.size) throw new AppError('CODES_EXHAUSTED');
        return codec.fromId(id);
      });
    },
    available: () => breaker.state !== 'open',
    async committed(links) {
      for (const link of links) if (!link.generated) codeSpace.added(link.code);
      await propagate(links);
    },
    ackDelayMs: (alias) => codeSpace.ackDelayMs(alias),
    maxBatch: config.writeBatchMax,
    maxQueued: config.writeQueueMax,
    batched: metrics?.writeBatch,
    timeoutMs: config.writeTimeoutMs,
    log,
  });

  const clicks = new ClickFlusher({
    write: (counts) => breaker.run(() => addClicks(db, counts)),
    intervalMs: config.clickFlushIntervalMs,
    maxCodes: config.clickMaxCodes,
    log,
    flushed: metrics?.clickFlush,
  });
  clicks.start();

  const trustProxy = trustProxyRule(config.trustProxy);
  // Shared by the redirects and the QR codes: both answer 404s, from one budget.
  const notFoundLimit =
    config.notFoundLimitPerMinute === 0 ? null : new NotFoundLimit(config.notFoundLimitPerMinute, config.notFoundLimitClients);
  const clientAddress = clientAddressReader(trustProxy, log);
  const redirect = createRedirectHandler({
    cache,
    codeSpace,
    resolver,
    log,
    slowRequestMs: config.slowRequestMs,
    redirectCacheControl: config.redirectCacheControl,
    notFoundLimit,
    clientAddress,
    observer: createRedirectObserver(clicks.counter, metrics?.redirects ?? null),
  });
  // Redirects are answered before Fastify routes the request (see http/redirect.ts), until the
  // server starts closing.
  let direct = true;

  // Widened to the logger type that route modules are written against.
  const fastifyLog: FastifyBaseLogger = log;
  const app = Fastify({
    serverFactory(fastifyHandler) {
      // Slow clients (https://nodejs.org/api/http.html#serverheaderstimeout): a connection whose
      // headers are not all in within headersTimeout of their first byte (or of the accept, for a
      // connection that sends nothing), or whose whole request is not in within requestTimeout, is
      // answered 408 (by onClientError, below) and closed; bytes trickling in reset neither clock.
      // After a response, an idle connection is closed keepAliveTimeout plus Node's
      // keepAliveTimeoutBuffer (1 s) later, without a word.
      const server = createServer(
        {
          headersTimeout: config.headersTimeoutMs,
          requestTimeout: config.requestTimeoutMs,
          keepAliveTimeout: config.keepAliveTimeoutMs,
          // Node looks for expired requests only this often (30 s by default): a connection is closed
          // at most a quarter of the headers timeout, and at most 1 s, after its limit.
          connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headersTimeoutMs / 4)),
        },
        (req, res) => {
          if (!direct || !redirect.tryServe(req, res)) fastifyHandler(req, res);
        },
      );
      return server;
    },
    loggerInstance: fastifyLog,
    // request.ip follows the same rule as the redirect listener's client address.
    ...(trustProxy === undefined ? {} : { trustProxy }),
    // No per-request log line: the redirect route writes its response and nothing else.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // While closing, requests on open connections are still served (with Connection: close):
    // the write queue drains only after the server has closed, so their creates still commit.
    return503OnClosing: false,
    frameworkErrors: onFrameworkError,
    clientErrorHandler: onClientError,
    // Long paths reach the shape check and get our 404, not the router's 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    ajv: {
      // Fastify's defaults would drop unknown fields and turn [1] into "1"; we refuse both.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false },
    },
  });
  // The API speaks JSON only; every other body type is a 415.
  app.removeContentTypeParser('text/plain');
  registerErrorHandlers(app);
  // First: its hook counts the requests of every route registered after it.
  if (metrics !== null) registerMetrics(app, metrics);
  await registerDocs(app, config.baseUrl);
  registerRedirect(app, redirect);
  registerApiKeys(app, db, breaker);
  const policy = targetPolicyOf(config);
  const createRouteConfig = await registerCreateLimits(app, { config, redis: redis?.client ?? null, log });
  await app.register(linksRoutes, {
    queue,
    db,
    breaker,
    baseUrl: config.baseUrl,
    policy,
    keyRequired: config.createRequiresApiKey,
    slowRequestMs: config.slowRequestMs,
    ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
  });
  await app.register(manageRoutes, { db, breaker, links: linkChanges, baseUrl: config.baseUrl, policy });
  await app.register(qrRoutes, { baseUrl: config.baseUrl, cache, codeSpace, resolver, notFoundLimit, clientAddress });
  registerHealth(app, { db, breaker, queue, lifecycle, pingTimeoutMs: 1000, redis, replicas });
  app.decorate('links', linkChanges);
  app.decorate('clicks', clicks);
  app.decorate('metrics', metrics);
  app.decorate('breaker', breaker);
  metrics?.watch({ queue, breaker, clicks, replicas });
  replicas?.start();

  // Fastify marks its routes closing before this hook: from here on, it answers redirects too.
  app.addHook('preClose', async () => {
    direct = false;
  });
  // Runs after Fastify stopped accepting and in-flight requests finished.
  app.addHook('onClose', async () => {
    await queue.close();
    // Before the breaker shuts down: the last clicks go through it.
    await clicks.close();
    codeSpace.stop();
    redis?.close();
    await replicas?.close();
    breaker.shutdown();
  });
  return app;
}
