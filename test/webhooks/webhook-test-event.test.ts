// POST /webhooks/:id/test against a real receiver: the test event goes through the outbox and the
// worker as every event does (signed, verified by the receiver with the library and by hand; tried
// again after a failure; in the delivery log), to an endpoint that does not take its type; and who
// may send one, to what, and how often.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, errorOf, startApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { until } from '../helpers/wait.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

type Headers = Record<string, string>;
interface Delivery {
  id: number;
  webhookId: string;
  type: string;
  state: string;
  attempts: number;
  lastStatus: number | null;
}

let database: TestDatabase;
let app: FastifyInstance;
const cleanups: (() => Promise<void>)[] = [];
let workspaces = 0;

before(async () => {
  database = await createTestDatabase('webhook_test_event');
  ({ app } = await startApp({ after: (fn) => cleanups.push(fn) }, database.url, {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_POLL_MS: '100',
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
    WEBHOOK_RESENDS_PER_MINUTE: '3',
  }));
});
after(async () => {
  for (const cleanup of cleanups) await cleanup();
  await database.drop();
});

/** A workspace of its own (test events are counted per workspace), its keys, and a receiver. */
async function workspace() {
  const { id, keys } = await workspaceWith(database.url, `hooks-${++workspaces}`, { admin: 'admin', member: 'member' });
  const receiver = new WebhookReceiver();
  await receiver.open();
  cleanups.push(() => receiver.close());
  return { id, name: `hooks-${workspaces}`, admin: bearer(keys.admin), member: bearer(keys.member), receiver };
}

async function addEndpoint(headers: Headers, body: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/webhooks', headers, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: number; secret: string }>();
}

function sendTest(headers: Headers, id: number) {
  return app.inject({ method: 'POST', url: `/webhooks/${id}/test`, headers });
}

/** The delivery `deliveryId` as the dashboard reads it: the log's one page of one, before the next id. */
async function delivery(headers: Headers, endpoint: number, deliveryId: number): Promise<Delivery | undefined> {
  const res = await app.inject({ url: `/webhooks/${endpoint}/deliveries?before=${deliveryId + 1}&limit=1`, headers });
  assert.equal(res.statusCode, 200, res.body);
  const [found] = res.json<{ deliveries: Delivery[] }>().deliveries;
  return found?.id === deliveryId ? found : undefined;
}

test('a test event is delivered signed to an endpoint that takes none of its type, says what it is, and shows in the log as delivered', async () => {
  const { admin, receiver, id: workspaceId, name } = await workspace();
  const endpoint = await addEndpoint(admin, { url: receiver.url, events: ['link.deleted'] });
  receiver.secrets = [endpoint.secret];
  const res = await sendTest(admin, endpoint.id);
  assert.equal(res.statusCode, 202, res.body);
  const sent = res.json<{ deliveryId: number; webhookId: string }>();
  await until('the receiver gets the test event', async () => receiver.received.some((r) => r.id === sent.webhookId));
  const [received] = receiver.received;
  assert.equal(receiver.received.length, 1);
  assert.deepEqual(receiver.badSignatures, [], 'signed with the endpoint’s secret');
  assert.equal(received?.event.type, 'webhook.test');
  assert.equal(received?.event.data.test, true);
  assert.deepEqual(received?.event.data.workspace, { id: workspaceId, name });
  assert.deepEqual(received?.event.data.webhook, { id: endpoint.id });
  assert.ok(Math.abs(Date.parse(received?.event.timestamp ?? '') - Date.now()) < 60_000, 'timestamped now');

  await until('the log shows it delivered', async () => (await delivery(admin, endpoint.id, sent.deliveryId))?.state === 'delivered');
  const logged = await delivery(admin, endpoint.id, sent.deliveryId);
  assert.equal(logged?.type, 'webhook.test');
  assert.equal(logged?.webhookId, sent.webhookId);
  assert.equal(logged?.lastStatus, 204);
});

test('a test event the receiver fails is tried again, with the same webhook-id, like any event', async () => {
  const { admin, receiver } = await workspace();
  const endpoint = await addEndpoint(admin, { url: receiver.url, events: ['link.created'] });
  receiver.secrets = [endpoint.secret];
  receiver.answer = () => (receiver.received.length === 1 ? { status: 500 } : undefined);
  const res = await sendTest(admin, endpoint.id);
  assert.equal(res.statusCode, 202, res.body);
  const sent = res.json<{ deliveryId: number; webhookId: string }>();
  await until('the log shows it delivered', async () => (await delivery(admin, endpoint.id, sent.deliveryId))?.state === 'delivered');
  assert.deepEqual(
    receiver.received.map((r) => [r.id, r.answered]),
    [
      [sent.webhookId, 500],
      [sent.webhookId, 204],
    ],
  );
  assert.deepEqual(receiver.badSignatures, []);
  assert.equal((await delivery(admin, endpoint.id, sent.deliveryId))?.attempts, 2);
});

test('admins alone send test events, to their own enabled endpoints, a few a minute with resends', async () => {
  const mine = await workspace();
  const theirs = await workspace();
  const endpoint = await addEndpoint(mine.admin, { url: mine.receiver.url, events: ['link.created'] });
  const other = await addEndpoint(theirs.admin, { url: theirs.receiver.url, events: ['link.created'] });

  const member = await sendTest(mine.member, endpoint.id);
  assert.equal(member.statusCode, 403);
  assert.equal(errorOf(member)?.code, 'ROLE_FORBIDDEN');
  const foreign = await sendTest(mine.admin, other.id);
  assert.equal(foreign.statusCode, 404);
  assert.equal(errorOf(foreign)?.code, 'WEBHOOK_NOT_FOUND');

  const disabled = await addEndpoint(mine.admin, { url: mine.receiver.url, events: ['link.created'], enabled: false });
  const refused = await sendTest(mine.admin, disabled.id);
  assert.equal(refused.statusCode, 409);
  assert.equal(errorOf(refused)?.code, 'WEBHOOK_DISABLED');

  // Three a minute (WEBHOOK_RESENDS_PER_MINUTE): the 404 and the 409 spent two of them.
  assert.equal((await sendTest(mine.admin, endpoint.id)).statusCode, 202);
  const limited = await sendTest(mine.admin, endpoint.id);
  assert.equal(limited.statusCode, 429);
  assert.equal(errorOf(limited)?.code, 'WEBHOOK_TEST_RATE_LIMITED');
  assert.ok(Number(limited.headers['retry-after']) >= 1);
  assert.equal((await sendTest(theirs.admin, other.id)).statusCode, 202, 'another workspace counts on its own');
});
