// API keys: every request to /links… carries its verified key, or none (request.apiKey).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerApiKeys } from '../auth/api-keys.ts';

export default fp(
  async function authPart(app: FastifyInstance) {
    registerApiKeys(app, app.db, app.breaker);
  },
  { name: 'auth', dependencies: ['postgres'] },
);
