// Redirects have two entrances: the server's request listener answers them before Fastify routes
// anything, and the GET /:code route answers what the listener passes on (and app.inject()).
// Both must give every path the same answer.

import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { PARTS } from '../../src/app.ts';
import { createLink, startApp, startCountedApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase('redirect_listener');
});
after(() => database.drop());

interface Answer {
  status: number;
  location: string | undefined;
  code: string | undefined;
}

/** A raw request over a socket: fetch() would normalise the path before sending it. */
function overSocket(address: string, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${address}/`, { method, path }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, code: errorCode(body) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function errorCode(body: string): string | undefined {
  if (body === '') return undefined;
  return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
}

test('the listener and the Fastify route answer every path alike', async (t) => {
  const { app, lookups } = await startCountedApp(t, database.url);
  const generated = await createLink(app, { url: 'https://example.com/generated' });
  const code = generated.body.code as string;
  assert.equal((await createLink(app, { url: 'https://example.com/alias', alias: 'Abc-1' })).status, 201);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });

  // A link answered after a lookup: two links to one target that no cache has heard of, the
  // listener asked for one and Fastify for the other, each a miss, then each a hit.
  await withClient(database.url, (client) =>
    client.query(`INSERT INTO links (code, url) VALUES
      ('twinG1', 'https://example.com/twin'), ('twinG2', 'https://example.com/twin'),
      ('twinH1', 'https://example.com/twin'), ('twinH2', 'https://example.com/twin')`),
  );
  for (const [method, one, other] of [
    ['GET', '/twinG1', '/twinG2'],
    ['HEAD', '/twinH1', '/twinH2'],
  ] as const) {
    for (const [round, [direct, routed], lookedUp] of [
      ['a miss', [one, other], 2],
      ['a hit', [other, one], 0],
    ] as const) {
      const already = lookups();
      const viaListener = await overSocket(address, method, direct);
      const viaFastify = await app.inject({ method, url: routed });
      assert.equal(lookups() - already, lookedUp, `${method}, ${round}: lookups`);
      assert.deepEqual(
        { status: viaListener.status, location: viaListener.location },
        { status: viaFastify.statusCode, location: viaFastify.headers.location },
        `${method}, ${round}`,
      );
      assert.equal(viaListener.location, 'https://example.com/twin');
    }
  }

  const paths = [
    `/${code}`, // in the LRU since its create
    `/${code}`,
    `/${code}?utm_source=sms&x=/y`,
    `/${code}/`,
    `//${code}`,
    `/${code}#frag`,
    '/Abc-1',
    '/abc-1', // codes are case-sensitive
    '/%41bc-1', // percent-encoded: Fastify decodes it
    '/Abc%2D1',
    '/nope0000',
    '/ab',
    `/${'a'.repeat(65)}`,
    '/bad!code',
    '/links',
    '/LINKS',
    '/healthz',
    '/',
    '/links/Abc-1',
  ];
  for (const method of ['GET', 'HEAD']) {
    for (const path of paths) {
      const direct = await overSocket(address, method, path);
      const routed = await app.inject({ method: method as 'GET' | 'HEAD', url: path });
      const viaFastify: Answer = {
        status: routed.statusCode,
        location: routed.headers.location,
        code: method === 'HEAD' ? undefined : errorCode(routed.body),
      };
      assert.deepEqual({ ...direct, code: method === 'HEAD' ? undefined : direct.code }, viaFastify, `${method} ${path}`);
    }
  }
  // And the answers are the right ones, not merely equal.
  assert.equal((await overSocket(address, 'GET', `/${code}?utm_source=sms`)).location, 'https://example.com/generated');
  assert.equal((await overSocket(address, 'GET', '/%41bc-1')).location, 'https://example.com/alias');
  assert.equal((await overSocket(address, 'GET', '/nope0000')).code, 'LINK_NOT_FOUND');
});

test('code-shaped paths are answered by the listener: Fastify never sees them; other paths reach Fastify', async (t) => {
  const routed: string[] = [];
  // A part of the test's own, after the app's: it sees every request Fastify routes.
  const spy = fp(async (app: FastifyInstance) => {
    app.addHook('onRequest', async (incoming) => {
      routed.push(incoming.url);
    });
  });
  const { app } = await startApp(t, database.url, {}, { parts: [...PARTS, spy] });
  const code = (await createLink(app, { url: 'https://example.com/listener' })).body.code as string;
  routed.length = 0;
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  for (const [path, status] of [
    [`/${code}`, 302],
    [`/${code}?utm=1`, 302],
    ['/nope0000', 404],
    ['/Unknown-alias', 404],
  ] as const) {
    assert.equal((await overSocket(address, 'GET', path)).status, status, `GET ${path}`);
    assert.equal((await overSocket(address, 'HEAD', path)).status, status, `HEAD ${path}`);
  }
  assert.deepEqual(routed, []);
  await overSocket(address, 'GET', '/healthz');
  await overSocket(address, 'GET', '/%41bc');
  assert.deepEqual(routed, ['/healthz', '/%41bc']);
});

test('while the server closes, redirects go through Fastify, which asks the client to close the connection', async (t) => {
  const { app } = await startApp(t, database.url);
  const created = await createLink(app, { url: 'https://example.com/closing' });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const path = `/${created.body.code as string}`;
  const open = await overSocket(address, 'GET', path);
  assert.equal(open.status, 302);

  // A request on a connection that is open when close() begins is still answered.
  const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const req = request(`${address}${path}`, { agent: false, headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        void app.close();
        // The request is written after close() began.
        setImmediate(() => req.end());
      });
    });
  });
  assert.deepEqual(await answer, { status: 302, connection: 'close' });
});
