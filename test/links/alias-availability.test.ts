// GET /links/alias-availability: the answer a create would get for its alias, before it is sent.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, errorCode, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let app: FastifyInstance;
let admin: { authorization: string };
let viewer: { authorization: string };
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  database = await createTestDatabase('alias_availability');
  ({ app } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url, {
    NOT_FOUND_LIMIT_PER_MINUTE: '6',
    DOMAIN_VERIFICATION: 'false',
  }));
  const keys = await keysWith(database.url, { admin: 'admin', viewer: 'viewer' });
  admin = bearer(keys.admin);
  viewer = bearer(keys.viewer);
});
after(async () => {
  for (const fn of cleanups) await fn();
  await database.drop();
});

test('an alias is available until a link takes it, deleted or not, on its domain only; any role may ask', async () => {
  const ask = (alias: string, domain?: string, headers = viewer) =>
    app.inject({
      url: `/links/alias-availability?${new URLSearchParams(domain === undefined ? { alias } : { alias, domain }).toString()}`,
      headers,
    });
  const free = await ask('spring-sale');
  assert.equal(free.statusCode, 200, free.body);
  assert.deepEqual(free.json(), { alias: 'spring-sale', domain: 'sho.rt', available: true });

  const made = await app.inject({
    method: 'POST',
    url: '/links',
    headers: admin,
    payload: { url: 'https://example.com/a', alias: 'spring-sale' },
  });
  assert.equal(made.statusCode, 201, made.body);
  const taken = (await ask('spring-sale')).json();
  assert.equal(taken.available, false);
  assert.equal(taken.reason.code, 'ALIAS_TAKEN');
  // Codes are compared as the links table compares them: another spelling is another code.
  assert.equal((await ask('Spring-Sale')).json().available, true);

  assert.equal((await app.inject({ method: 'DELETE', url: '/links/spring-sale', headers: admin })).statusCode, 204);
  assert.equal((await ask('spring-sale')).json().reason.code, 'ALIAS_TAKEN', 'a deleted link keeps its code');

  assert.equal(
    (await app.inject({ method: 'POST', url: '/domains', headers: admin, payload: { host: 'go.example.com' } })).statusCode,
    201,
  );
  const branded = (await ask('spring-sale', 'go.example.com')).json();
  assert.deepEqual(branded, { alias: 'spring-sale', domain: 'go.example.com', available: true });
});

test('an alias a create would refuse for its shape or as a reserved word: not available, with the create’s code, no lookup', async () => {
  const ask = (alias: string) =>
    app.inject({ url: `/links/alias-availability?${new URLSearchParams({ alias }).toString()}`, headers: viewer });
  for (const [alias, code] of [
    ['ab', 'ALIAS_INVALID'],
    ['has space', 'ALIAS_INVALID'],
    ['x'.repeat(65), 'ALIAS_INVALID'],
    ['Admin', 'ALIAS_RESERVED'],
    ['links', 'ALIAS_RESERVED'],
  ]) {
    const res = await ask(alias as string);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().available, false, alias);
    assert.equal(res.json().reason.code, code, alias);
    const create = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: { url: 'https://example.com/', alias } });
    assert.equal(errorCode(create), code, `a create with ${alias} gets the same code`);
  }
});

test('a domain not of the workspace is a 400, no key a 401', async () => {
  const other = await workspaceWith(database.url, 'other', { admin: 'admin' });
  const mine = await app.inject({ url: '/links/alias-availability?alias=abc&domain=go.example.com', headers: bearer(other.keys.admin) });
  assert.equal(mine.statusCode, 400);
  assert.equal(errorCode(mine), 'DOMAIN_UNKNOWN');
  const anonymous = await app.inject({ url: '/links/alias-availability?alias=abcdef' });
  assert.equal(anonymous.statusCode, 401);
  const missing = await app.inject({ url: '/links/alias-availability', headers: viewer });
  assert.equal(missing.statusCode, 400);
});

test('available answers spend the client’s 404 budget as GET /:code does; taken ones do not', async () => {
  for (let i = 0; i < 10; i++) {
    const taken = await app.inject({ url: '/links/alias-availability?alias=spring-sale', headers: viewer });
    assert.equal(taken.json().reason?.code, 'ALIAS_TAKEN', 'a taken alias is given its 404 back');
  }
  let status = 200;
  let asked = 0;
  for (; status === 200 && asked < 20; asked++) {
    const res = await app.inject({ url: `/links/alias-availability?alias=free-${asked}`, headers: viewer });
    status = res.statusCode;
    if (status === 429) {
      assert.equal(errorCode(res), 'NOT_FOUND_RATE_LIMITED');
      assert.ok(Number(res.headers['retry-after']) >= 1);
    }
  }
  assert.equal(status, 429, 'the budget of 6 a minute ran out');
  assert.ok(asked <= 7);
  // Invalid aliases cost no lookup and are answered all the same.
  assert.equal((await app.inject({ url: '/links/alias-availability?alias=ab', headers: viewer })).statusCode, 200);
});
