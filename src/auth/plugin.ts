// Who a request acts as: its API key, or its dashboard session (request.apiKey), checked by a hook
// on every API route registered after this part, and then the body rules of the API (a body this
// service does not decode is a 415); and the routes of keys and sessions. What this instance
// remembers of keys and sessions can be forgotten at once (sign-out, a revocation).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { refuseUndecodedBodies } from '../api/body-encoding.ts';
import { clientCounter } from '../api/counters.ts';
import type { PartOptions } from '../part.ts';
import { registerAuthentication, type Remembered } from './authenticate.ts';
import { keysRoutes } from './key-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { AuthStore } from './store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    remembered: Remembered;
  }
}

async function authPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const store = new AuthStore(app.db, app.breaker);
  const remembered = registerAuthentication(app, store);
  refuseUndecodedBodies(app);
  await app.register(keysRoutes, { store, forgetAll: remembered.forgetAll });
  await app.register(sessionRoutes, {
    store,
    forgetSession: remembered.forgetSession,
    failures: clientCounter(app.redis?.client ?? null, config.redisKeyPrefix, log, 'signin:', 'sign-in limits'),
    maxFailures: config.signInMaxFailures,
    windowMs: config.signInWindowMs,
    ttlMs: config.sessionTtlMs,
    baseUrl: config.baseUrl,
  });
  app.decorate('remembered', remembered);
}

export default fp(authPart, { name: 'auth', dependencies: ['postgres', 'redis'] });
