// Other shorteners' APIs as a part: each a thin adapter (docs/compat.md) onto the services of the
// parts below it (adapter.ts), in a context of its own (its error shape, its body rules), with the
// same create limits as POST /links (one count per client across all of them).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { readSettings } from '../people/workspace-settings.ts';
import type { PartOptions } from '../part.ts';
import type { CompatServices } from './adapter.ts';
import { bitlyRoutes } from './bitly-routes.ts';
import { dubRoutes } from './dub-routes.ts';
import { kuttRoutes } from './kutt-routes.ts';
import { health as shlinkHealth, shlinkRoutes } from './shlink-routes.ts';
import { yourlsRoutes } from './yourls-routes.ts';

async function compatPart(app: FastifyInstance, { config }: PartOptions): Promise<void> {
  const { linkApi } = app;
  const shared = {
    creates: linkApi.creates,
    links: linkApi.links,
    lists: app.linkLists,
    shortUrls: app.shortUrls,
    domains: app.domainService,
    stats: app.hasDecorator('stats') ? app.stats : null,
    keyRequired: config.createRequiresApiKey,
  };
  /** The services, with the create limits registered in `routes`' context. */
  const servicesIn = async (routes: FastifyInstance): Promise<CompatServices> => {
    const createRouteConfig = await linkApi.createLimits(routes);
    return { ...shared, createRoute: createRouteConfig === undefined ? {} : { config: createRouteConfig } };
  };

  await app.register(
    async function kutt(routes) {
      await routes.register(kuttRoutes, await servicesIn(routes));
    },
    { prefix: '/api/v2' },
  );
  await app.register(
    async function shlink(routes) {
      await routes.register(shlinkRoutes, { ...(await servicesIn(routes)), forwardQuery: config.forwardQuery });
    },
    { prefix: '/rest/v3' },
  );
  // Shlink's health answers without a version in the path too.
  app.get('/rest/health', { schema: { hide: true } }, async () => shlinkHealth());
  // YOURLS's one route, /yourls-api.php: its key comes in a parameter (not through the API-key hook, nor a session cookie).
  await app.register(async function yourls(routes) {
    const services = await servicesIn(routes);
    await routes.register(yourlsRoutes, {
      ...services,
      credentials: app.auth.credentials,
      baseUrl: config.baseUrl,
      // Only its shorturl action creates: the limiter runs there, not on the route.
      createLimit: services.createRoute.config === undefined ? null : routes.rateLimit(),
    });
  });
  await app.register(
    async function bitly(routes) {
      await routes.register(bitlyRoutes, {
        ...(await servicesIn(routes)),
        apiBase: `${config.baseUrl}/v4`,
        workspaceName: async (id) => (await app.authBreaker.run(() => readSettings(app.authDb, id))).name,
      });
    },
    { prefix: '/v4' },
  );
  // Dub's API at the root of host names of its own (DUB_API_HOSTS): on every other host, nothing of it.
  if (config.dubApiHosts.length > 0) {
    await app.register(async function dub(routes) {
      await routes.register(dubRoutes, { ...(await servicesIn(routes)), hosts: config.dubApiHosts });
    });
  }
}

export default fp(compatPart, { name: 'compat', dependencies: ['links', 'domains'] });
