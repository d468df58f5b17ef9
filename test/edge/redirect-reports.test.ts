// What the redirect reports of each request is that request's own: a link's rules choose a target
// for one request, and nothing of that choice is left on the handler or the cached rules for the
// next. The case that once leaked: a ruled link's lookup ends after its client has gone, so its
// answer is never written and never reported; the next click, a plain link's, must not carry the
// rule's target into analytics. Through the fast path, on a real Postgres.

import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { createLink, startApp } from '../helpers/app.ts';
import { createTestDatabase, holdLookups, withClient, type TestDatabase } from '../helpers/db.ts';
import { parseResponse } from '../helpers/raw-http.ts';
import { until, within } from '../helpers/wait.ts';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

let database: TestDatabase;
let admin: string;
before(async () => {
  database = await createTestDatabase('redirect_reports');
  admin = (await withClient(database.url, (client) => createApiKey(client, { name: 'admin', role: 'admin' }))).secret;
});
after(() => database.drop());

function request(code: string, userAgent: string): string {
  return `GET /${code} HTTP/1.1\r\nHost: sho.rt\r\nUser-Agent: ${userAgent}\r\n\r\n`;
}

async function opened(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** One request over a connection of its own, through the fast path; its status. */
async function askOnce(port: number, code: string, userAgent: string): Promise<number> {
  const socket = await opened(port);
  let text = '';
  socket.setEncoding('latin1').on('data', (chunk: string) => (text += chunk));
  socket.write(request(code, userAgent));
  await until(`the answer to /${code}`, async () => parseResponse(text) !== undefined);
  socket.destroy();
  return parseResponse(text)?.status ?? 0;
}

async function connections(app: FastifyInstance): Promise<number> {
  return new Promise((resolve, reject) => app.server.getConnections((err, count) => (err === null ? resolve(count) : reject(err))));
}

test("a ruled link's answer lost with its connection leaves no target behind: the next plain click carries none", async (t) => {
  const gate = holdLookups((codes) => codes.includes('leak-ruled'));
  const { app } = await startApp(
    t,
    database.url,
    { ANALYTICS_ENABLED: 'true', CLICK_FLUSH_INTERVAL_MS: '3600000', ANALYTICS_FLUSH_INTERVAL_MS: '3600000' },
    { wrapDb: gate.wrapDb, redirects: 'fastify' },
  );
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port);
  const ruled = { targets: [{ when: { device: ['ios'] }, url: 'https://example.com/ios' }] };
  assert.equal((await createLink(app, { url: 'https://example.com/r', alias: 'leak-ruled', options: ruled })).status, 201);
  assert.equal((await createLink(app, { url: 'https://example.com/p', alias: 'leak-plain' })).status, 201);
  // Out of this instance's LRU: the next request for it is a lookup, held by the gate.
  app.resolver.invalidate('leak-ruled');

  const gone = await opened(port);
  gone.write(request('leak-ruled', IPHONE));
  await within('the lookup of leak-ruled', gate.reached);
  gone.destroy();
  await until('the server to see the client gone', async () => (await connections(app)) === 0);
  gate.release();
  await until('the lookup to fill the LRU', async () => app.cache.get('leak-ruled') !== undefined);
  // The lookup's answer goes to a connection that is gone: nothing is written, nothing reported.
  await new Promise((resolve) => setImmediate(resolve));

  assert.equal(await askOnce(port, 'leak-plain', DESKTOP), 302);
  assert.equal(await askOnce(port, 'leak-ruled', IPHONE), 302, 'the ruled link itself redirects, and is counted under its rule');
  await app.clicks.flush();
  const headers = { authorization: `Bearer ${admin}` };
  const plain = await app.inject({ url: '/links/leak-plain/stats?dimensions=target', headers });
  assert.equal(plain.statusCode, 200, plain.body);
  assert.equal(plain.json().range.clicks, 1, 'the plain link was clicked once');
  assert.deepEqual(plain.json().dimensions.target, [], "a plain link's click carries no rule's target");
  const ruledStats = await app.inject({ url: '/links/leak-ruled/stats?dimensions=target', headers });
  assert.deepEqual(
    ruledStats.json().dimensions.target.map(({ value, clicks }: { value: string; clicks: number }) => [value, clicks]),
    [['rule 1', 1]],
    'only the answer that was written is counted',
  );
});
