// Who a request acts as: its API key, or its dashboard session (request.apiKey), checked by a hook
// on every API route registered after this part, and then the body rules of the API (a body this
// service does not decode is a 415); and the routes of keys and sessions. Keys and sessions are
// looked up on the auth pool and breaker (db/plugin.ts), within a per-client budget (credentials.ts);
// what this instance remembers of them can be forgotten at once (sign-out, a revocation).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AttemptBudget } from '../api/attempt-budget.ts';
import { refuseUndecodedBodies } from '../api/body-encoding.ts';
import { clientCounter } from '../api/counters.ts';
import type { PartOptions } from '../part.ts';
import { registerAuthentication } from './authenticate.ts';
import { Credentials, lookupBudget } from './credentials.ts';
import { keysRoutes } from './key-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { AuthStore } from './store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The keys and sessions store and what this instance remembers of them, for the parts after auth (people). */
    auth: { store: AuthStore; credentials: Credentials };
  }
}

async function authPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const store = new AuthStore(app.authDb, app.authBreaker, config.sessionIdleMs, app.authPool);
  const counter = (namespace: string, what: string) =>
    clientCounter(app.redis?.client ?? null, config.redisKeyPrefix, log, namespace, what);
  const credentials = new Credentials(
    store,
    lookupBudget(counter('credentials:', 'credential look-up budgets'), config.credentialLookupsPerMinute),
  );
  app.decorate('auth', { store, credentials });
  registerAuthentication(app, credentials, config.baseUrl);
  refuseUndecodedBodies(app);
  await app.register(keysRoutes, { store, forgetAll: () => credentials.forgetAll() });
  await app.register(sessionRoutes, {
    store,
    credentials,
    attempts: new AttemptBudget(counter('signin:', 'sign-in limits'), config.signInMaxFailures, config.signInWindowMs),
    maxFailures: config.signInMaxFailures,
    windowMs: config.signInWindowMs,
    ttlMs: config.sessionTtlMs,
    sessionsPerKeyMax: config.sessionsPerKeyMax,
    baseUrl: config.baseUrl,
  });
}

export default fp(authPart, { name: 'auth', dependencies: ['postgres', 'redis'] });
