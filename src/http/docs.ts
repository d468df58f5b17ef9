// The OpenAPI document, generated from the routes' TypeBox schemas (http/schemas.ts), at
// /docs/json, with Swagger UI at /docs. Registered before the routes, which it reads as they come.

import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from './schemas.ts';

export async function registerDocs(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'shortener',
        version: '1',
        description:
          'A URL shortener. Every error is `{"error": {"code", "message"}}`: branch on `code`. Every 503 ' +
          'carries Retry-After. Redirects (`GET /{code}`) need no key; managing a link needs the API key that ' +
          'created it.',
      },
      servers: [{ url: baseUrl }],
      tags: [{ name: 'redirect' }, { name: 'links' }, { name: 'service' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key> (npm run keys -- create <name>)' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
    },
  });
  app.addSchema(ErrorBody);
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
