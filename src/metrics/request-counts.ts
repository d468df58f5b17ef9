// The counting of every request Fastify routes, by route and status, with its latency. Redirects
// count themselves (edge/redirect-observer.ts), from either entrance, so the hook leaves their
// route alone.

import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

/** Counts every request Fastify routes; register it before the routes (hooks apply to routes added after them). */
export function countRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.routeOptions.url;
    if (url !== '/:code') metrics.route(`${request.method} ${url ?? '(no route)'}`, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
