// The OpenAPI document, generated from the routes' TypeBox schemas (api/schemas.ts), at
// /docs/json, with Swagger UI at /docs. Registered before the routes, which it reads as they come.

import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from '../errors.ts';

export async function registerDocs(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'shortener',
        version: '1',
        description:
          'A URL shortener. Every error is `{"error": {"code", "message"}}`: branch on `code`. Every 503 ' +
          'carries Retry-After. Redirects (`GET /{code}`) need no key. Links belong to a workspace; its keys read them ' +
          '(viewer), create links and change their own (member), or change any and manage keys (admin). The dashboard ' +
          'signs in with a key (POST /auth/session) and then uses the same routes with its session cookie and X-CSRF-Token.',
      },
      servers: [{ url: baseUrl }],
      tags: [
        { name: 'redirect' },
        { name: 'links' },
        { name: 'domains' },
        { name: 'stats' },
        { name: 'webhooks' },
        { name: 'keys' },
        { name: 'session' },
        { name: 'people' },
        { name: 'audit' },
        { name: 'service' },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key> (npm run keys -- create <name>)' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'shortener_session',
            description:
              'The dashboard’s session cookie (POST /auth/session; __Host-shortener_session behind HTTPS); changes also need X-CSRF-Token',
          },
        },
      },
    },
  });
  app.addSchema(ErrorBody);
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
