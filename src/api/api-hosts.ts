// Which hosts the API answers on (API_HOSTS): the deployment's own names, IP addresses and
// localhost (health checks, scrapes, the operator's curl). Any other host, a workspace's branded
// short domain first, serves its links and nothing else: a tenant's domain is no door to the API,
// the dashboard's sign-in, the docs or the metrics. One hook for every route Fastify serves; the
// redirects that node:http's listener and the fast path answer never reach it.

import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { LOOPBACK_HOSTS, requestHostName } from '../core/domains.ts';
import { AppError } from '../errors.ts';

/** What a short domain serves (GET / its fallback, /:code a link, its password form and QR code, the abuse report form), and liveness. */
const LINK_ROUTES: ReadonlySet<string> = new Set(['/', '/:code', '/links/:code/qr', '/report', '/healthz']);

/** Whether `name` (lowercase, no port) is an IP address, bracketed or not. */
function isAddress(name: string): boolean {
  return isIP(name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name) !== 0;
}

/**
 * Whether a request's host is one the API answers on. `apiHosts`: API_HOSTS (empty: BASE_URL's
 * host alone; `*`: every host); `alsoHosts`: other APIs' own names (DUB_API_HOSTS), API hosts as well.
 */
export function apiHostRule(
  apiHosts: readonly string[],
  baseUrl: string,
  alsoHosts: readonly string[] = [],
): ((host: string | undefined) => boolean) | null {
  if (apiHosts.includes('*')) return null;
  const names = new Set([
    ...(apiHosts.length === 0 ? [requestHostName(new URL(baseUrl).host)] : apiHosts),
    ...alsoHosts,
    ...LOOPBACK_HOSTS,
  ]);
  return (host) => {
    // Without a Host (HTTP/1.0), a request names no short domain.
    if (host === undefined) return true;
    const name = requestHostName(host);
    return names.has(name) || isAddress(name);
  };
}

/** Refuses, on every route, a request to a host the API does not answer on, but for the routes of links. */
export function refuseOffApiHosts(
  app: FastifyInstance,
  isApiHost: ((host: string | undefined) => boolean) | null,
  hostOf: (req: IncomingMessage) => string | undefined,
): void {
  if (isApiHost === null) return;
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const route = request.routeOptions.url;
    if (route !== undefined && LINK_ROUTES.has(route)) return;
    if (!isApiHost(hostOf(request.raw))) throw new AppError('ROUTE_NOT_ON_HOST');
  });
}
