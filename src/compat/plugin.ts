// Other shorteners' APIs as a part: each a thin adapter (docs/compat.md) onto the services of the
// parts below it, in a context of its own (its error shape, its body rules), with the same create
// limits as POST /links (one count per client across both).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { PartOptions } from '../part.ts';
import { kuttRoutes } from './kutt-routes.ts';
import { dubRoutes } from './dub-routes.ts';
import { bitlyRoutes } from './bitly-routes.ts';
import { readSettings } from '../people/workspace-settings.ts';
import { health as shlinkHealth, shlinkRoutes } from './shlink-routes.ts';
import { yourlsRoutes } from './yourls-routes.ts';

async function compatPart(app: FastifyInstance, { config }: PartOptions): Promise<void> {
  const { linkApi, linkLists, shortUrls, domainService } = app;
  await app.register(
    async function kutt(routes) {
      const createRouteConfig = await linkApi.createLimits(routes);
      await routes.register(kuttRoutes, {
        creates: linkApi.creates,
        links: linkApi.links,
        lists: linkLists,
        shortUrls,
        domains: domainService,
        stats: app.hasDecorator('stats') ? app.stats : null,
        keyRequired: config.createRequiresApiKey,
        ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
      });
    },
    { prefix: '/api/v2' },
  );
  await app.register(
    async function shlink(routes) {
      const createRouteConfig = await linkApi.createLimits(routes);
      await routes.register(shlinkRoutes, {
        creates: linkApi.creates,
        links: linkApi.links,
        lists: linkLists,
        shortUrls,
        domains: domainService,
        stats: app.hasDecorator('stats') ? app.stats : null,
        keyRequired: config.createRequiresApiKey,
        forwardQuery: config.forwardQuery,
        defaultHost: domainService.defaultHost,
        ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
      });
    },
    { prefix: '/rest/v3' },
  );
  // YOURLS's one route, /yourls-api.php: its key comes in a parameter (not through the API-key hook, nor a session cookie).
  await app.register(async function yourls(routes) {
    const createRouteConfig = await linkApi.createLimits(routes);
    await routes.register(yourlsRoutes, {
      creates: linkApi.creates,
      links: linkApi.links,
      lists: linkLists,
      shortUrls,
      stats: app.hasDecorator('stats') ? app.stats : null,
      credentials: app.auth.credentials,
      keyRequired: config.createRequiresApiKey,
      baseUrl: config.baseUrl,
      // Only its shorturl action creates: the limiter runs there, not on the route.
      createLimit: createRouteConfig === undefined ? null : routes.rateLimit(),
    });
  });
  await app.register(
    async function bitly(routes) {
      const createRouteConfig = await linkApi.createLimits(routes);
      await routes.register(bitlyRoutes, {
        creates: linkApi.creates,
        links: linkApi.links,
        lists: linkLists,
        shortUrls,
        domains: domainService,
        stats: app.hasDecorator('stats') ? app.stats : null,
        apiBase: `${config.baseUrl}/v4`,
        workspaceName: async (id) => (await app.authBreaker.run(() => readSettings(app.authDb, id))).name,
        ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
      });
    },
    { prefix: '/v4' },
  );
  // Shlink's health answers without a version in the path too.
  app.get('/rest/health', { schema: { hide: true } }, async () => shlinkHealth());
  // Dub's API at the root of host names of its own (DUB_API_HOSTS): on every other host, nothing of it.
  if (config.dubApiHosts.length > 0) {
    await app.register(async function dub(routes) {
      const createRouteConfig = await linkApi.createLimits(routes);
      await routes.register(dubRoutes, {
        hosts: config.dubApiHosts,
        creates: linkApi.creates,
        links: linkApi.links,
        lists: linkLists,
        shortUrls,
        domains: domainService,
        stats: app.hasDecorator('stats') ? app.stats : null,
        ...(createRouteConfig === undefined ? {} : { createRouteConfig }),
      });
    });
  }
}

export default fp(compatPart, { name: 'compat', dependencies: ['links', 'domains'] });
