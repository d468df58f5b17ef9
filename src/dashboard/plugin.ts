// The dashboard's page and files under /app/, and where GET / goes on each domain (dashboard/routes.ts).
// Last: it needs only the domains and the redirect part's reading of a request's host, and the
// redirect path never reaches it.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_DOMAIN_ID } from '../core/domains.ts';
import { AppError } from '../errors.ts';
import fp from 'fastify-plugin';
import { dashboardRoutes } from './routes.ts';
import type { PartOptions } from '../part.ts';

export default fp(
  async function dashboardPart(app: FastifyInstance, { config, log }: PartOptions) {
    const { hosts, hostOf } = app;
    const defaultRoot = config.rootRedirect === 'none' ? null : config.rootRedirect;
    // The default domain's root is ROOT_REDIRECT; a branded domain's its own; a host not served has none.
    const rootOf = (request: FastifyRequest): string | null => {
      const domain = hosts.lookup(hostOf(request.raw));
      if (domain === undefined) throw new AppError('HOST_NOT_SERVED');
      return domain.id === DEFAULT_DOMAIN_ID ? defaultRoot : domain.rootRedirect;
    };
    await app.register(dashboardRoutes, { rootOf, enabled: config.dashboardEnabled, log });
  },
  { name: 'dashboard', dependencies: ['read-path', 'edge'] },
);
