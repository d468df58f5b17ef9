// The webhook delivery log is no probe of the receivers an admin points it at: it shows a try's
// status, time and a class of failure, never what the receiver answered (body or headers) nor an
// error's text (addresses, ports); and a workspace's resends, each a request to an address of the
// admin's choosing, are limited (WEBHOOK_RESENDS_PER_MINUTE).

import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.ts';
import { bearer, errorCode, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/wait.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let admin: Record<string, string>;

before(async () => {
  database = await createTestDatabase('security_webhooks');
  admin = bearer((await keysWith(database.url, { admin: 'admin' })).admin);
});
after(() => database.drop());

/** A receiver on loopback (WEBHOOK_ALLOW_PRIVATE: an intranet one), and tries far apart: each test sees one. */
const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '100', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_SCHEDULE: '1h' };

const SECRET_BODY = 'internal-admin-token=s3cr3t-b0dy; build 4.2.1-internal';
const SECRET_HEADER = 'x-internal-secret';
const SECRET_HEADER_VALUE = 'h3ad3r-v4lue';

/** An internal service that answers every request 500 with things an outsider must not read. */
async function internalReceiver(t: Cleanup): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain', [SECRET_HEADER]: SECRET_HEADER_VALUE });
      res.end(SECRET_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Delivery {
  id: number;
  state: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
}

/** An endpoint at `url` for link.created, then a link: its first try recorded. Returns the log's raw JSON and its newest delivery. */
async function triedOnce(
  app: FastifyInstance,
  url: string,
  headers = admin,
): Promise<{ raw: string; delivery: Delivery; endpoint: number }> {
  const made = await app.inject({ method: 'POST', url: '/webhooks', headers, payload: { url, events: ['link.created'] } });
  assert.equal(made.statusCode, 201, made.body);
  const endpoint = made.json<{ id: number }>().id;
  const link = await app.inject({ method: 'POST', url: '/links', headers, payload: { url: 'https://example.com/probe' } });
  assert.equal(link.statusCode, 201, link.body);
  let raw = '';
  let delivery: Delivery | undefined;
  await until('the first try recorded', async () => {
    const res = await app.inject({ url: `/webhooks/${endpoint}/deliveries`, headers });
    raw = res.body;
    delivery = res.json<{ deliveries: Delivery[] }>().deliveries[0];
    return delivery !== undefined && delivery.attempts > 0 && delivery.state === 'pending';
  });
  return { raw, delivery: delivery as Delivery, endpoint };
}

test("an internal receiver's answer (its body and headers) never appears in the delivery log: only its status", async (t) => {
  const { app } = await startApp(t, database.url, ENV);
  const { raw, delivery } = await triedOnce(app, await internalReceiver(t));
  assert.equal(delivery.lastStatus, 500);
  assert.ok(!raw.includes('s3cr3t') && !raw.includes('internal-admin-token') && !raw.includes('4.2.1'), `the log shows the answer: ${raw}`);
  assert.ok(!raw.includes(SECRET_HEADER_VALUE), `the log shows a header: ${raw}`);
  assert.equal(delivery.lastError, 'HTTP 500');
});

test('a refused connection is logged as a class of failure, without the address or port it tried', async (t) => {
  const { app } = await startApp(t, database.url, ENV);
  const port = await closedPort();
  const { raw, delivery } = await triedOnce(app, `http://127.0.0.1:${port}/hooks`);
  assert.equal(delivery.lastStatus, null);
  assert.equal(delivery.lastError, 'connection refused');
  assert.ok(!raw.includes(`:${port}`) && !raw.includes('ECONNREFUSED'), `the log shows the error's text: ${raw}`);
});

test("a workspace's resends are limited to WEBHOOK_RESENDS_PER_MINUTE (10): the next is 429 with Retry-After; another workspace's still go", async (t) => {
  const { app } = await startApp(t, database.url, ENV);
  const receiver = await internalReceiver(t);
  const { endpoint, delivery } = await triedOnce(app, receiver);
  const resend = (id: number, deliveryId: number, headers = admin) =>
    app.inject({ method: 'POST', url: `/webhooks/${id}/deliveries/${deliveryId}/resend`, headers });
  for (let i = 0; i < 10; i++) assert.equal((await resend(endpoint, delivery.id)).statusCode, 202, `resend ${i + 1}`);
  const refused = await resend(endpoint, delivery.id);
  assert.equal(refused.statusCode, 429, `the 11th resend in a minute: ${refused.statusCode} ${refused.body}`);
  assert.equal(errorCode(refused), 'WEBHOOK_RESEND_RATE_LIMITED');
  const retryAfter = Number(refused.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${refused.headers['retry-after']}`);

  const other = bearer((await workspaceWith(database.url, 'resends-other', { owner: 'admin' })).keys.owner);
  const theirs = await triedOnce(app, receiver, other);
  assert.equal((await resend(theirs.endpoint, theirs.delivery.id, other)).statusCode, 202, "another workspace's resend");
});

test('the delivery log written before keeps only the status and a class of failure of each try once migrated', async (t) => {
  const old = await createTestDatabase('security_webhooks_log', { migrated: false });
  const before0015 = await mkdtemp(join(tmpdir(), 'migrations-before-0015-'));
  t.after(async () => {
    await old.drop();
    await rm(before0015, { recursive: true, force: true });
  });
  for (const file of await readdir(MIGRATIONS_DIR)) if (file < '0015') await cp(join(MIGRATIONS_DIR, file), join(before0015, file));
  const log = pino({ level: 'silent' });
  await migrate(old.url, log, before0015);
  const stored = [
    `HTTP 500: ${SECRET_BODY}`,
    'connect ECONNREFUSED 10.0.0.7:8080',
    'getaddrinfo ENOTFOUND vault.corp.internal',
    'no complete answer within 600 ms (WEBHOOK_TIMEOUT_MS)',
    'vault.corp.internal resolves to no public address (WEBHOOK_ALLOW_PRIVATE is off)',
  ];
  await withClient(old.url, async (client) => {
    await client.query(
      `INSERT INTO webhook_endpoints (workspace_id, url, events, secret) SELECT id, 'https://hooks.example.com/', '{link.created}', 'whsec_x' FROM workspaces ORDER BY id LIMIT 1`,
    );
    await client.query(
      `INSERT INTO webhook_messages (workspace_id, type, data) SELECT workspace_id, 'link.created', '{}' FROM webhook_endpoints`,
    );
    await client.query(
      `INSERT INTO webhook_deliveries (message_id, endpoint_id, state, attempts, last_error)
       SELECT m.id, e.id, 'dead', 1, error FROM webhook_messages m, webhook_endpoints e, unnest($1::text[]) WITH ORDINALITY AS u (error, n) ORDER BY n`,
      [stored],
    );
  });
  await migrate(old.url, log);
  const errors = await withClient(old.url, async (client) => {
    const { rows } = await client.query<{ last_error: string }>('SELECT last_error FROM webhook_deliveries ORDER BY id');
    return rows.map((row) => row.last_error);
  });
  assert.deepEqual(errors, ['HTTP 500', 'connection refused', 'DNS lookup failed', 'timeout (WEBHOOK_TIMEOUT_MS)', 'DNS lookup failed']);
});
