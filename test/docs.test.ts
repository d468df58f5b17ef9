// /docs serves the OpenAPI document made from the routes' schemas; it is a valid OpenAPI 3.1
// document that names every route and error answer, and Swagger UI is served beside it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startApp } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('docs');
});
after(() => database.drop());

test('the OpenAPI document is valid and describes every route, its body and its errors', async (t) => {
  const { app } = await startApp(t, database.url);
  const res = await app.inject({ url: '/docs/json' });
  assert.equal(res.statusCode, 200);
  const document = res.json<{
    openapi: string;
    paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
  }>();
  assert.equal(document.openapi, '3.1.0');
  await SwaggerParser.validate(structuredClone(document) as never);
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
  );
  for (const expected of [
    'POST /links',
    'POST /links/bulk',
    'GET /links/{code}',
    'PATCH /links/{code}',
    'DELETE /links/{code}',
    'GET /{code}',
    'GET /healthz',
    'GET /readyz',
  ]) {
    assert.ok(operations.includes(expected), `${expected} in ${operations.join(', ')}`);
  }
  const create = document.paths['/links']?.post;
  assert.ok(create?.requestBody !== undefined);
  for (const status of ['201', '400', '409', '503']) assert.ok(create?.responses[status] !== undefined, `POST /links ${status}`);

  const ui = await app.inject({ url: '/docs' });
  assert.ok(ui.statusCode === 200 || ui.statusCode === 302, `docs UI ${ui.statusCode}`);
});
