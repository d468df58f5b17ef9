// Short domains as a part: the short URLs of links on each domain (short-urls.ts), which every
// feature that shows a link uses, and the routes that manage a workspace's domains. Which domain a
// request is for is the read path's (resolve/hosts.ts).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { targetPolicyOf } from '../core/target-policy.ts';
import type { PartOptions } from '../part.ts';
import { domainsRoutes } from './routes.ts';
import { DomainService } from './service.ts';
import { createShortUrls, type ShortUrls } from './short-urls.ts';
import { DomainStore } from './store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    shortUrls: ShortUrls;
  }
}

async function domainsPart(app: FastifyInstance, { config }: PartOptions): Promise<void> {
  const { hosts, codeSpace, propagation } = app;
  const shortUrls = createShortUrls(config.baseUrl, hosts);
  const domains = new DomainService({
    store: new DomainStore(app.db, app.pool, app.breaker),
    hosts,
    shortUrls,
    propagation,
    codeSpace,
    policy: targetPolicyOf(config),
  });
  await app.register(domainsRoutes, { domains, defaultRoot: config.rootRedirect === 'none' ? null : config.rootRedirect });
  app.decorate('shortUrls', shortUrls);
}

export default fp(domainsPart, { name: 'domains', dependencies: ['postgres', 'read-path', 'auth'] });
