// The OpenAPI document and Swagger UI; before the routes, which it reads as they are added.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { registerDocs } from './docs.ts';
import type { PartOptions } from '../part.ts';

export default fp(
  async function docsPart(app: FastifyInstance, { config }: PartOptions) {
    await registerDocs(app, config.baseUrl);
  },
  { name: 'docs' },
);
