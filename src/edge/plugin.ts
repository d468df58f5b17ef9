// The edge: GET and HEAD /:code, answered by the server's request listener before Fastify routes
// anything, with the client's budget of 404s; the same handler as a route for app.inject().

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { trustProxyRule } from '../core/trust-proxy.ts';
import type { RedirectTarget } from '../cache/link-cache.ts';
import { clientOfAddress, hostOfReader, hostReader, onNodeRequest } from './client-address.ts';
import { fastTransport } from './fast-path.ts';
import { NotFoundLimit } from './not-found-limit.ts';
import { rawAnswers } from './raw-answers.ts';
import { createRedirectHandler, nodeTransport, registerRedirect, type RedirectDeps } from './redirect.ts';
import { createRedirectObserver } from './redirect-observer.ts';
import { visitorReaders } from './visitor.ts';
import { ClickLimits } from '../links/click-limits.ts';
import type { PartOptions } from '../part.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The 404 budget per client, shared by every route that answers 404s for codes; null: no limit. */
    notFoundLimit: NotFoundLimit | null;
    /** The client a request comes from, by TRUST_PROXY's rule (as request.ip). */
    clientAddress: (req: IncomingMessage) => string;
    /** The host a request is for, by TRUST_PROXY's rule: which domain it asks (resolve/hosts.ts). */
    hostOf: (req: IncomingMessage) => string | undefined;
  }
}

export default fp(
  async function redirectPart(app: FastifyInstance, { config, log, edge, addressOf }: PartOptions) {
    const { hosts, cache, codeSpace, resolver, clicks, metrics, visits } = app;
    const notFoundLimit =
      config.notFoundLimitPerMinute === 0 ? null : new NotFoundLimit(config.notFoundLimitPerMinute, config.notFoundLimitClients);
    const trust = trustProxyRule(config.trustProxy);
    const clientOf = clientOfAddress(addressOf);
    const clientAddress = onNodeRequest(clientOf);
    const hostOf = hostReader(trust);
    const deps: RedirectDeps = {
      hosts,
      unknownHostRedirect: (config.unknownHostRedirect ?? null) as RedirectTarget | null,
      cache,
      codeSpace,
      resolver,
      log,
      slowRequestMs: config.slowRequestMs,
      notFoundLimit,
      observer: createRedirectObserver(clicks.counter, metrics?.redirects ?? null),
      visits,
      visitors: visitorReaders(addressOf, (address) => app.geo().place(address).country),
      passSecret: config.codeSecret,
      // One counter for every instance: Redis when there is one (never Postgres beside it, which would count apart), else Postgres.
      limits: new ClickLimits(
        app.redis === null
          ? { db: app.db, breaker: app.breaker }
          : { redis: app.redis.client, prefix: config.redisKeyPrefix, reached: (links) => app.webhooks.limitsReached(links) },
      ),
    };
    const readers = { clientOf: clientAddress, hostOf };
    const handler = createRedirectHandler(deps, nodeTransport(config.redirectCacheControl, readers));
    registerRedirect(app, handler);
    edge.handler = handler;
    if (config.fastPath) {
      const answers = rawAnswers(config.redirectCacheControl, config.keepAliveTimeoutMs);
      edge.fast = createRedirectHandler(deps, fastTransport(answers, clientOf, hostOfReader(trust)));
    }
    // Fastify marks its routes closing before this hook: from here on it answers redirects too, with Connection: close.
    app.addHook('preClose', async () => {
      edge.handler = null;
      edge.fast = null;
    });
    app.decorate('notFoundLimit', notFoundLimit);
    app.decorate('clientAddress', clientAddress);
    app.decorate('hostOf', hostOf);
  },
  { name: 'redirect', dependencies: ['read-path', 'clicks', 'domains', 'analytics', 'webhooks'] },
);
