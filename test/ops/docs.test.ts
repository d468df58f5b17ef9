// /docs serves the OpenAPI document made from the routes' schemas; it is a valid OpenAPI 3.1
// document that names every route and error answer, and Swagger UI is served beside it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { PARTS } from '../../src/app.ts';
import { startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('docs');
});
after(() => database.drop());

interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
  requestBody?: unknown;
}

/** A route as Fastify registered it: `GET /links/{code}` (OpenAPI's spelling), its response statuses, whether it takes a body. */
interface SeenRoute {
  operation: string;
  statuses: string[];
  body: boolean;
}

/** Where the other shorteners' APIs answer (src/compat/). */
const COMPAT_PATHS = ['/api/v2/', '/rest/', '/v4/', '/yourls-api.php'];

/**
 * Every route Fastify registers, as it registers it. Built before the app's own parts: an onRoute
 * hook sees only the routes added after it. Not encapsulated (fastify-plugin), so it sees them all.
 */
function routeSpy() {
  const routes: SeenRoute[] = [];
  const part = fp(async function routeSpyPart(app: FastifyInstance) {
    app.addHook('onRoute', (route: RouteOptions) => {
      // The document's own pages (Swagger UI and the document itself), the dashboard's (pages for
      // people, not the API: GET / goes there), and Kutt's API; a route hidden otherwise still counts.
      if (route.url === '/docs' || route.url.startsWith('/docs/')) return;
      if (route.url === '/' || route.url === '/app' || route.url.startsWith('/app/')) return;
      // Other shorteners' APIs, documented as theirs in docs/compat.md (test/compat/ drives their clients):
      // under their own paths, or (Dub's) on host names of their own.
      if (COMPAT_PATHS.some((prefix) => route.url.startsWith(prefix))) return;
      // The MCP server's endpoint (src/mcp/, docs/mcp.md): JSON-RPC messages, described by the MCP specification.
      if (route.url === '/mcp') return;
      if ((route.constraints as { host?: unknown } | undefined)?.host !== undefined) return;
      const schema = route.schema as { response?: Record<string, unknown>; body?: unknown } | undefined;
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      for (const method of [route.method].flat()) {
        // The twin Fastify adds to each GET (exposeHeadRoutes), not an operation of its own.
        if (method === 'HEAD') continue;
        routes.push({ operation: `${method} ${path}`, statuses: Object.keys(schema?.response ?? {}), body: schema?.body !== undefined });
      }
    });
  });
  return { routes, part };
}

/**
 * Routes the document leaves out. GET /metrics, for Prometheus rather than API clients, is added by
 * the metrics part, before the docs part starts reading routes. Should it be documented, drop it here.
 */
const UNDOCUMENTED = new Set<string>();

test('the OpenAPI document is valid and describes every route Fastify serves, its body and its errors', async (t) => {
  const spy = routeSpy();
  const { app } = await startApp(t, database.url, {}, { parts: [spy.part, ...PARTS] });
  const res = await app.inject({ url: '/docs/json' });
  assert.equal(res.statusCode, 200);
  const document = res.json<{ openapi: string; paths: Record<string, Record<string, Operation>> }>();
  assert.equal(document.openapi, '3.1.0');
  await SwaggerParser.validate(structuredClone(document) as never);

  const documented = new Map<string, Operation>(
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as const),
    ),
  );
  const served = spy.routes.filter((route) => !UNDOCUMENTED.has(route.operation));
  // The stats and QR routes among them: a list kept by hand had missed both.
  assert.ok(served.length >= 10, `routes seen: ${spy.routes.map((route) => route.operation).join(', ')}`);
  for (const operation of UNDOCUMENTED)
    assert.ok(
      spy.routes.some((route) => route.operation === operation),
      `${operation} is served`,
    );
  assert.deepEqual([...documented.keys()].sort(), served.map((route) => route.operation).sort(), 'one operation per route');

  let errorAnswers = 0;
  for (const route of served) {
    const operation = documented.get(route.operation);
    assert.ok(operation !== undefined, route.operation);
    assert.equal(operation.requestBody !== undefined, route.body, `${route.operation}: its body`);
    for (const status of route.statuses) {
      const answer = operation.responses[status];
      assert.ok(answer !== undefined, `${route.operation} documents ${status}`);
      if (Number(status) < 400) continue;
      // An error answer is the error body, whose code clients branch on.
      assert.ok(
        answer.content?.['application/json']?.schema?.properties?.error !== undefined,
        `${route.operation} ${status}: the error body`,
      );
      errorAnswers++;
    }
  }
  assert.ok(errorAnswers > 30, `${errorAnswers} error answers checked`);

  const ui = await app.inject({ url: '/docs' });
  assert.ok(ui.statusCode === 200 || ui.statusCode === 302, `docs UI ${ui.statusCode}`);
});
