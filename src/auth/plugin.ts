// Who a request acts as: its API key, or its dashboard session (request.apiKey). What this
// instance remembers of keys and sessions can be forgotten at once (sign-out, a revocation).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerAuthentication, type Remembered } from './authenticate.ts';

declare module 'fastify' {
  interface FastifyInstance {
    remembered: Remembered;
  }
}

export default fp(
  async function authPart(app: FastifyInstance) {
    app.decorate('remembered', registerAuthentication(app, app.db, app.breaker));
  },
  { name: 'auth', dependencies: ['postgres'] },
);
