// The dashboard's page and files under /app/, and where GET / goes (http/dashboard.ts). Last: it
// needs nothing of the other parts, and the redirect path never reaches it.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { dashboardRoutes } from '../http/dashboard.ts';
import type { PartOptions } from './options.ts';

export default fp(
  async function dashboardPart(app: FastifyInstance, { config, log }: PartOptions) {
    await app.register(dashboardRoutes, { rootRedirect: config.rootRedirect, enabled: config.dashboardEnabled, log });
  },
  { name: 'dashboard' },
);
