// Webhooks against a real local receiver: endpoints managed by admins with coded errors; events
// signed by the Standard Webhooks scheme (checked by the library and by hand), in order per link;
// click counts batched per flush; expiry and click limits reported once; a receiver down, slow past
// the timeout, answering 500, then healthy; a dead letter resent with the same webhook-id; two
// instances delivering at once within the cap per endpoint; the service SIGKILLed with events in the
// outbox and mid-send, then restarted. Nothing acknowledged is lost; an event comes twice only where
// an answer to it was lost, and then with the same webhook-id.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { bearer, errorCode, errorOf, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { startServer } from '../helpers/server-process.ts';
import { deleteKeys, randomPrefix, SHARED_REDIS_URL } from '../helpers/redis.ts';
import { until, within } from '../helpers/wait.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { keysWith, workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let admin: Record<string, string>;
let member: Record<string, string>;

before(async () => {
  database = await createTestDatabase('webhooks');
  const keys = await keysWith(database.url, { admin: 'admin', member: 'member' });
  admin = bearer(keys.admin);
  member = bearer(keys.member);
});
after(async () => {
  await database.drop();
});

/** Quick polls, retries and timeouts, and a receiver on loopback. */
const FAST = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_TIMEOUT_MS: '600',
  WEBHOOK_RETRY_SCHEDULE: '200ms,300ms,400ms,500ms,600ms,700ms,800ms,1s,1s,1s',
};

async function receiverFor(t: Cleanup): Promise<WebhookReceiver> {
  const receiver = new WebhookReceiver();
  await receiver.open();
  t.after(() => receiver.close());
  return receiver;
}

async function addEndpoint(app: FastifyInstance, body: Record<string, unknown>, headers = admin) {
  const res = await app.inject({ method: 'POST', url: '/webhooks', headers, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ id: number; secret: string; events: string[] }>();
}

/** Removes every endpoint of the default workspace: each test's events go to its own receiver. */
async function clearEndpoints(app: FastifyInstance): Promise<void> {
  const { webhooks } = (await app.inject({ url: '/webhooks', headers: admin })).json<{ webhooks: { id: number }[] }>();
  for (const { id } of webhooks) await app.inject({ method: 'DELETE', url: `/webhooks/${id}`, headers: admin });
}

/** Events made, delivered (a 2xx received), lost, and requests received in all (a repeat: an answer lost, or a failed try). */
function report(made: number, receiver: WebhookReceiver): string {
  const delivered = receiver.accepted().length;
  const failed = receiver.received.filter((r) => r.answered < 200 || r.answered >= 300).length;
  return `events ${made}, delivered ${delivered}, lost ${made - delivered}; requests ${receiver.received.length} (${failed} failed tries, ${receiver.ids().repeated.length} repeats of a webhook-id)`;
}

async function create(app: FastifyInstance, body: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string; shortUrl: string }>();
}

async function deliveries(app: FastifyInstance, id: number, query = '') {
  const res = await app.inject({ url: `/webhooks/${id}/deliveries${query}`, headers: admin });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{
    deliveries: { id: number; webhookId: string; type: string; state: string; attempts: number; lastStatus: number | null }[];
  }>().deliveries;
}

test('endpoints: admins add, list, change, rotate and remove them; bad input gets a coded error', async (t) => {
  const { app } = await startApp(t, database.url);
  await clearEndpoints(app);
  const post = (payload: Record<string, unknown>, headers = admin) => app.inject({ method: 'POST', url: '/webhooks', headers, payload });

  const byMember = await post({ url: 'https://hooks.example.com/in', events: ['link.created'] }, member);
  assert.equal(byMember.statusCode, 403);
  assert.equal(errorCode(byMember), 'ROLE_FORBIDDEN');
  for (const [payload, code, field] of [
    [{ url: 'http://127.0.0.1:9/in', events: ['link.created'] }, 'URL_PRIVATE_ADDRESS', 'url'],
    [{ url: 'http://router/in', events: ['link.created'] }, 'URL_PRIVATE_ADDRESS', 'url'],
    [{ url: 'ftp://hooks.example.com/in', events: ['link.created'] }, 'URL_SCHEME_NOT_ALLOWED', 'url'],
    [{ url: 'https://hooks.example.com/in', events: [] }, 'WEBHOOK_EVENTS_INVALID', 'events'],
    [{ url: 'https://hooks.example.com/in', events: ['link.created', 'link.nope'] }, 'WEBHOOK_EVENTS_INVALID', 'events'],
    [
      { url: 'https://hooks.example.com/in', events: ['link.created'], description: 'x'.repeat(201) },
      'WEBHOOK_DESCRIPTION_INVALID',
      'description',
    ],
    [
      { url: 'https://hooks.example.com/in', events: ['link.created'], description: 'bell\u0007' },
      'WEBHOOK_DESCRIPTION_INVALID',
      'description',
    ],
  ] as const) {
    const res = await post(payload);
    assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
    assert.deepEqual([errorCode(res), res.json<{ error: { field?: string } }>().error.field], [code, field]);
  }
  const missing = await post({ url: 'https://hooks.example.com/in' });
  assert.equal(missing.statusCode, 400);
  assert.equal(errorCode(missing), 'BODY_INVALID');

  const created = await post({
    url: 'https://hooks.example.com/in',
    events: ['link.deleted', 'link.created', 'link.created'],
    description: ' CRM ',
  });
  assert.equal(created.statusCode, 201, created.body);
  const endpoint = created.json<{ id: number; secret: string; events: string[]; description: string; enabled: boolean }>();
  assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.deepEqual(endpoint.events, ['link.created', 'link.deleted']);
  assert.equal(endpoint.description, 'CRM');
  assert.equal(endpoint.enabled, true);

  const listed = (await app.inject({ url: '/webhooks', headers: admin })).json<{ webhooks: Record<string, unknown>[] }>();
  assert.deepEqual(
    listed.webhooks.map((w) => w.id),
    [endpoint.id],
  );
  assert.equal(listed.webhooks[0]?.secret, undefined, 'the list never shows a secret');
  assert.equal((await app.inject({ url: '/webhooks', headers: member })).statusCode, 403);

  const patched = await app.inject({
    method: 'PATCH',
    url: `/webhooks/${endpoint.id}`,
    headers: admin,
    payload: { enabled: false, events: ['link.clicked'] },
  });
  assert.equal(patched.statusCode, 200, patched.body);
  assert.deepEqual([patched.json<{ enabled: boolean }>().enabled, patched.json<{ events: string[] }>().events], [false, ['link.clicked']]);
  const badPatch = await app.inject({
    method: 'PATCH',
    url: `/webhooks/${endpoint.id}`,
    headers: admin,
    payload: { url: 'http://10.0.0.8/' },
  });
  assert.equal(errorCode(badPatch), 'URL_PRIVATE_ADDRESS');

  const secret = (await app.inject({ url: `/webhooks/${endpoint.id}/secret`, headers: admin })).json<{
    secret: string;
    previousSecretExpiresAt: null;
  }>();
  assert.deepEqual(secret, { secret: endpoint.secret, previousSecretExpiresAt: null });
  const rotated = (await app.inject({ method: 'POST', url: `/webhooks/${endpoint.id}/secret`, headers: admin })).json<{
    secret: string;
    previousSecretExpiresAt: string;
  }>();
  assert.notEqual(rotated.secret, endpoint.secret);
  const overlap = Date.parse(rotated.previousSecretExpiresAt) - Date.now();
  assert.ok(overlap > 23.9 * 3_600_000 && overlap <= 24 * 3_600_000, `overlap ${overlap} ms: WEBHOOK_SECRET_OVERLAP_HOURS=24`);

  for (const query of ['?state=lost', '?limit=0', '?limit=101', '?before=x']) {
    const res = await app.inject({ url: `/webhooks/${endpoint.id}/deliveries${query}`, headers: admin });
    assert.equal(errorCode(res), 'WEBHOOK_QUERY_INVALID', query);
  }
  const other = await workspaceWith(database.url, 'webhooks-other', { owner: 'admin' });
  const foreign = await app.inject({ url: `/webhooks/${endpoint.id}`, headers: bearer(other.keys.owner) });
  assert.equal(foreign.statusCode, 404, "another workspace's admin sees no such endpoint");
  assert.equal(errorOf(foreign)?.code, 'WEBHOOK_NOT_FOUND');
  assert.equal(errorCode(await app.inject({ url: '/webhooks/abc', headers: admin })), 'WEBHOOK_NOT_FOUND');
  assert.equal(
    errorCode(await app.inject({ method: 'POST', url: `/webhooks/${endpoint.id}/deliveries/99999/resend`, headers: admin })),
    'WEBHOOK_DELIVERY_NOT_FOUND',
  );

  for (let i = 1; i < 20; i++) await addEndpoint(app, { url: `https://hooks.example.com/${i}`, events: ['link.created'] });
  const past = await post({ url: 'https://hooks.example.com/21', events: ['link.created'] });
  assert.equal(past.statusCode, 409);
  assert.equal(errorCode(past), 'WEBHOOK_LIMIT_REACHED');

  const removed = await app.inject({ method: 'DELETE', url: `/webhooks/${endpoint.id}`, headers: admin });
  assert.equal(removed.statusCode, 204);
  assert.equal(errorCode(await app.inject({ url: `/webhooks/${endpoint.id}`, headers: admin })), 'WEBHOOK_NOT_FOUND');
  await clearEndpoints(app);
});

test('link events arrive signed (library and by hand), in order per link, each once, with the link as the API shows it', async (t) => {
  const { app } = await startApp(t, database.url, FAST);
  await clearEndpoints(app);
  const receiver = await receiverFor(t);
  const endpoint = await addEndpoint(app, { url: receiver.url, events: ['link.created', 'link.updated', 'link.deleted'] });
  receiver.secrets = [endpoint.secret];
  // Answers take a random while: without the order per link, the events sent at once would be taken in any order.
  receiver.answer = () => ({ status: 204, delayMs: Math.random() * 80 });

  const link = await create(app, { url: 'https://example.com/a', alias: 'hooked', title: 'T', options: { password: 'open sesame' } });
  for (const payload of [{ title: 'T2' }, { disabled: true }, { url: 'https://example.com/b' }]) {
    const res = await app.inject({ method: 'PATCH', url: `/links/${link.code}`, headers: admin, payload });
    assert.equal(res.statusCode, 200, res.body);
  }
  assert.equal((await app.inject({ method: 'DELETE', url: `/links/${link.code}`, headers: admin })).statusCode, 204);
  await until('five events received', async () => receiver.accepted().length >= 5);

  const events = receiver.accepted().map((r) => r.event);
  assert.deepEqual(
    events.map((e) => `${e.type} v${(e.data.link as { version: number }).version}`),
    ['link.created v0', 'link.updated v1', 'link.updated v2', 'link.updated v3', 'link.deleted v4'],
  );
  assert.deepEqual(receiver.badSignatures, []);
  assert.equal(receiver.ids().unique.size, 5);
  assert.deepEqual(receiver.ids().repeated, []);
  const first = events[0]?.data.link as Record<string, unknown>;
  assert.equal(first.shortUrl, 'https://sho.rt/hooked');
  assert.equal(first.title, 'T');
  assert.deepEqual(first.options, { password: true });
  for (const r of receiver.received) assert.doesNotMatch(r.body, /passwordHash|scrypt/, 'no password hash leaves the service');
  assert.match(receiver.received[0]?.event.timestamp ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Math.abs(Number(receiver.received[0]?.timestamp) * 1000 - Date.now()) < 60_000, 'webhook-timestamp is now, in seconds');

  // The receiver has answered; the outcome is recorded a moment later.
  await until('the log says delivered', async () => (await deliveries(app, endpoint.id)).every((d) => d.state === 'delivered'));
  const log = await deliveries(app, endpoint.id);
  assert.equal(log.length, 5);
  assert.ok(
    log.every((d) => d.state === 'delivered' && d.attempts === 1 && d.lastStatus === 204),
    JSON.stringify(log),
  );
  assert.deepEqual(new Set(log.map((d) => d.webhookId)), receiver.ids().unique, 'the log names each delivery by its webhook-id');

  // A rotated secret: both sign during the overlap, each verifies on its own.
  const rotated = (await app.inject({ method: 'POST', url: `/webhooks/${endpoint.id}/secret`, headers: admin })).json<{ secret: string }>();
  receiver.secrets = [rotated.secret, endpoint.secret];
  await create(app, { url: 'https://example.com/c' });
  await until('the event after the rotation', async () => receiver.accepted().length >= 6);
  assert.equal(receiver.received.at(-1)?.signature.split(' ').length, 2);
  assert.deepEqual(receiver.badSignatures, []);
  await clearEndpoints(app);
});

test('link.clicked comes as one batch of counts per flush; link.expired and link.click_limit_reached come once', async (t) => {
  const { app, pool } = await startApp(t, database.url, { ...FAST, CLICK_FLUSH_INTERVAL_MS: '60000' });
  await clearEndpoints(app);
  const receiver = await receiverFor(t);
  const endpoint = await addEndpoint(app, { url: receiver.url, events: ['link.clicked', 'link.expired', 'link.click_limit_reached'] });
  receiver.secrets = [endpoint.secret];

  const a = await create(app, { url: 'https://example.com/clicked-a' });
  const b = await create(app, { url: 'https://example.com/clicked-b' });
  for (let i = 0; i < 7; i++) assert.equal((await app.inject({ url: `/${a.code}` })).statusCode, 302);
  for (let i = 0; i < 3; i++) assert.equal((await app.inject({ url: `/${b.code}` })).statusCode, 302);
  await app.clicks.flush(false);
  await until('link.clicked', async () => receiver.accepted().some((r) => r.event.type === 'link.clicked'));
  const clicked = receiver.accepted().filter((r) => r.event.type === 'link.clicked');
  assert.equal(clicked.length, 1, 'one request for the flush, not one per click');
  const stored = (clicked[0]?.event.data.counts ?? []) as { code: string; clicks: number; shortUrl: string }[];
  const counts = new Map(stored.map((c) => [c.code, [c.clicks, c.shortUrl]]));
  assert.deepEqual(
    counts,
    new Map([
      [a.code, [7, a.shortUrl]],
      [b.code, [3, b.shortUrl]],
    ]),
  );

  const soon = await create(app, { url: 'https://example.com/expiring', expiresAt: new Date(Date.now() + 1500).toISOString() });
  const limited = await create(app, { url: 'https://example.com/limited', options: { clickLimit: 2 } });
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push((await app.inject({ url: `/${limited.code}` })).statusCode);
  assert.deepEqual(answers, [302, 302, 410, 410]);
  await until('link.expired and link.click_limit_reached', async () => receiver.accepted().length >= 3, 15_000);
  // Another few polls: neither comes again.
  await new Promise((resolve) => setTimeout(resolve, 800));
  const byType = (type: string) => receiver.accepted().filter((r) => r.event.type === type);
  assert.deepEqual(
    byType('link.expired').map((r) => (r.event.data.link as { code: string }).code),
    [soon.code],
  );
  const reached = byType('link.click_limit_reached');
  assert.deepEqual(
    reached.map((r) => [(r.event.data.link as { code: string }).code, r.event.data.clickLimit]),
    [[limited.code, 2]],
  );
  const { rows } = await pool.query<{ n: string }>("SELECT count(*) AS n FROM webhook_messages WHERE type = 'link.expired'");
  assert.equal(Number(rows[0]?.n), 1);
  await clearEndpoints(app);
});

test('with click limits counted in Redis, link.click_limit_reached is written once, from the grant that used the limit up', async (t) => {
  const prefix = randomPrefix('webhooks');
  t.after(() => deleteKeys(SHARED_REDIS_URL, prefix));
  const { app } = await startApp(t, database.url, { ...FAST, REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix });
  await clearEndpoints(app);
  const receiver = await receiverFor(t);
  const endpoint = await addEndpoint(app, { url: receiver.url, events: ['link.click_limit_reached'] });
  receiver.secrets = [endpoint.secret];
  const limited = await create(app, { url: 'https://example.com/limited-in-redis', options: { clickLimit: 3 } });
  const answers = await Promise.all(Array.from({ length: 6 }, async () => (await app.inject({ url: `/${limited.code}` })).statusCode));
  assert.deepEqual(
    answers.sort((x, y) => x - y),
    [302, 302, 302, 410, 410, 410],
  );
  await until('link.click_limit_reached', async () => receiver.accepted().length >= 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(
    receiver.accepted().map((r) => [(r.event.data.link as { code: string }).code, r.event.data.clickLimit]),
    [[limited.code, 3]],
  );
  assert.deepEqual(receiver.badSignatures, []);
  await clearEndpoints(app);
});

test('the receiver down, answering 500, slow past the timeout, then healthy: every event delivered, repeated only where an answer was lost', async (t) => {
  const { app } = await startApp(t, database.url, FAST);
  await clearEndpoints(app);
  const receiver = await receiverFor(t);
  const endpoint = await addEndpoint(app, { url: receiver.url, events: ['link.created'] });
  receiver.secrets = [endpoint.secret];
  await receiver.close();

  const codes = new Set<string>();
  for (let i = 0; i < 12; i++) codes.add((await create(app, { url: `https://example.com/down-${i}` })).code);
  await until('tries while the receiver is down', async () => (await deliveries(app, endpoint.id)).every((d) => d.attempts >= 2));
  const down = await deliveries(app, endpoint.id);
  assert.ok(
    down.every((d) => d.state !== 'delivered' && d.lastStatus === null),
    JSON.stringify(down[0]),
  );

  await receiver.open();
  receiver.behaviour = { status: 500 };
  await until('500s', async () => receiver.received.length >= 12);
  receiver.behaviour = { status: 200, delayMs: 1200 };
  const slowFrom = receiver.received.length;
  await until('slow answers', async () => receiver.received.length >= slowFrom + 6);
  receiver.behaviour = { status: 200 };
  await until('every event accepted', async () => receiver.accepted().length >= 12, 20_000);

  const accepted = receiver.accepted();
  assert.deepEqual(new Set(accepted.map((r) => (r.event.data.link as { code: string }).code)), codes, 'nothing lost');
  t.diagnostic(report(codes.size, receiver));
  const acceptedIds = new Set<string>();
  for (const r of receiver.received) {
    if (r.answered >= 200 && r.answered < 300) {
      assert.ok(!acceptedIds.has(r.id), `${r.id} delivered twice though its first 2xx was received by the service`);
      acceptedIds.add(r.id);
    }
  }
  assert.ok(receiver.received.some((r) => r.answered === 500) && receiver.received.some((r) => r.answered === 0), 'both failures were met');
  assert.deepEqual(receiver.badSignatures, []);
  await until('the log says delivered', async () => (await deliveries(app, endpoint.id)).every((d) => d.state === 'delivered'));
  assert.ok((await deliveries(app, endpoint.id)).every((d) => d.attempts >= 3));
  await clearEndpoints(app);
});

test('a dead letter after the last try, resent by hand with the same webhook-id', async (t) => {
  const { app } = await startApp(t, database.url, { ...FAST, WEBHOOK_RETRY_SCHEDULE: '100ms,100ms' });
  await clearEndpoints(app);
  const receiver = await receiverFor(t);
  const endpoint = await addEndpoint(app, { url: receiver.url, events: ['link.created'] });
  receiver.secrets = [endpoint.secret];
  receiver.behaviour = { status: 503 };
  await create(app, { url: 'https://example.com/dead' });
  await until('dead', async () => (await deliveries(app, endpoint.id, '?state=dead')).length === 1);
  const [dead] = await deliveries(app, endpoint.id);
  assert.deepEqual([dead?.state, dead?.attempts, dead?.lastStatus], ['dead', 3, 503]);
  assert.equal(receiver.received.length, 3, 'one try and two retries');
  const listed = (await app.inject({ url: `/webhooks/${endpoint.id}`, headers: admin })).json<{ dead: number }>();
  assert.equal(listed.dead, 1);

  receiver.behaviour = { status: 200 };
  const resent = await app.inject({ method: 'POST', url: `/webhooks/${endpoint.id}/deliveries/${dead?.id}/resend`, headers: admin });
  assert.equal(resent.statusCode, 202, resent.body);
  await until('resent', async () => receiver.accepted().length === 1);
  assert.equal(receiver.accepted()[0]?.id, dead?.webhookId);
  await until('the resend recorded', async () => (await deliveries(app, endpoint.id))[0]?.state === 'delivered');
  const resentView = (await app.inject({ url: `/webhooks/${endpoint.id}`, headers: admin })).json<{ dead: number }>();
  assert.equal(resentView.dead, 0, 'a dead delivery whose event a resend delivered no longer counts as dead');
  const log = await deliveries(app, endpoint.id);
  assert.deepEqual(
    log.map((d) => [d.state, d.webhookId]),
    [
      ['delivered', dead?.webhookId],
      ['dead', dead?.webhookId],
    ],
  );
  await clearEndpoints(app);
});

test('two instances deliver at once: each event once, within the cap per endpoint across both', async (t) => {
  const env = { ...FAST, WEBHOOK_MAX_IN_FLIGHT: '3' };
  const one = await startApp(t, database.url, env);
  const two = await startApp(t, database.url, env);
  await clearEndpoints(one.app);
  const receiver = await receiverFor(t);
  const endpoint = await addEndpoint(one.app, { url: receiver.url, events: ['link.created'] });
  receiver.secrets = [endpoint.secret];
  receiver.behaviour = { status: 200, delayMs: 30 };
  const triedBefore = [one.app.webhooks.tried, two.app.webhooks.tried];
  const codes = new Set<string>();
  await Promise.all(
    [one.app, two.app].map(async (app, n) => {
      for (let i = 0; i < 60; i++) codes.add((await create(app, { url: `https://example.com/two-${n}-${i}` })).code);
    }),
  );
  // An instance whose sends end claims again at once: it may keep the endpoint's whole cap to itself
  // while the other's polls find no room. Once a quarter is delivered, the one that delivered more
  // stops (its sends under way end and are recorded), and the other must deliver the rest.
  await until('a quarter delivered', async () => receiver.accepted().length >= 30, 30_000);
  const busier = one.app.webhooks.tried - (triedBefore[0] ?? 0) >= two.app.webhooks.tried - (triedBefore[1] ?? 0) ? one : two;
  const other = busier === one ? two : one;
  await busier.app.close();
  await until('all delivered', async () => receiver.accepted().length >= 120, 30_000);
  assert.equal(codes.size, 120);
  assert.deepEqual(new Set(receiver.accepted().map((r) => (r.event.data.link as { code: string }).code)), codes);
  assert.deepEqual(receiver.ids().repeated, [], 'no event sent twice');
  t.diagnostic(`${report(codes.size, receiver)}; at most ${receiver.maxInFlight} at once`);
  assert.ok(receiver.maxInFlight <= 3, `at most 3 at once across both instances, saw ${receiver.maxInFlight}`);
  assert.ok(receiver.maxInFlight >= 2, `deliveries overlap (saw ${receiver.maxInFlight} at once)`);
  const triedSince = () => [one.app.webhooks.tried - (triedBefore[0] ?? 0), two.app.webhooks.tried - (triedBefore[1] ?? 0)];
  // The receiver counts a delivery once it has answered; its sender, once it has read the answer.
  await until('every try counted', async () => triedSince().reduce((a, b) => a + b, 0) >= 120);
  const tried = triedSince();
  assert.ok(
    tried.every((n) => n > 0),
    `both instances delivered: ${tried.join(', ')}`,
  );
  assert.equal((tried[0] ?? 0) + (tried[1] ?? 0), 120);
  await clearEndpoints(other.app);
});

test('a claim under way holds up no write: the endpoint row is locked against other claims, not against the foreign keys of new deliveries', async (t) => {
  // Statements may wait long here: a write held up by the claim would wait for the test, not time out.
  // Tries every 200 ms for a minute: the delivery stays pending (never dead) however slow the machine.
  const { app } = await startApp(t, database.url, {
    ...FAST,
    WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 300 }, () => '200ms').join(','),
    DB_STATEMENT_TIMEOUT_MS: '30000',
    BREAKER_TIMEOUT_MS: '31000',
  });
  await clearEndpoints(app);
  const receiver = await receiverFor(t);
  await addEndpoint(app, { url: receiver.url, events: ['link.created'] });
  await receiver.close();
  await create(app, { url: 'https://example.com/held-claim-1' });

  // A delivery row locked by another transaction: the next claim locks the endpoint, then waits
  // for that row in its UPDATE, the endpoint still locked.
  // Held while pending, between two tries: a row held while its try is under way ('sending') would
  // hold up the worker's record of that try instead, and the worker would claim nothing more.
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  t.after(() => holder.end());
  await until('a pending delivery held', async () => {
    await holder.query('BEGIN');
    const { rowCount } = await holder.query(`SELECT id FROM webhook_deliveries WHERE state = 'pending' FOR UPDATE`);
    if ((rowCount ?? 0) > 0) return true;
    await holder.query('ROLLBACK');
    return false;
  });
  // Asked on a connection of its own: inside the holder's transaction the activity view is a
  // snapshot. (The view keeps the first 1 kB of a statement: the claim's starts `WITH ep AS`.)
  await until(
    'a claim waiting for the held delivery',
    () =>
      withClient(database.url, async (client) => {
        const { rows } = await client.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'shortener'
             AND wait_event_type = 'Lock' AND query LIKE 'WITH ep AS%'`,
        );
        return rows.length > 0;
      }),
    15_000,
  );
  // With the endpoint locked FOR UPDATE, this create's INSERT of its delivery (its foreign key takes
  // FOR KEY SHARE of the endpoint) would wait for the claim, which waits for the holder.
  await within('a create while a claim waits', create(app, { url: 'https://example.com/held-claim-2' }), 10_000);
  await holder.query('ROLLBACK');
  await clearEndpoints(app);
});

test('SIGKILL with events in the outbox and mid-send, then a restart: nothing lost, repeats only of answers lost', async (t) => {
  // No app in this process: its worker would deliver too.
  const receiver = await receiverFor(t);
  receiver.behaviour = { status: 200, delayMs: 300 };
  const env = {
    DATABASE_URL: database.url,
    BASE_URL: 'https://sho.rt',
    ...FAST,
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_MAX_IN_FLIGHT: '2',
  };
  const first = await startServer(env);
  t.after(() => first.child.kill('SIGKILL'));
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${first.url}${path}`, { ...init, headers: { ...admin, 'content-type': 'application/json' } });
  const added = await api('/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver.url, events: ['link.created'] }) });
  assert.equal(added.status, 201);
  const endpoint = (await added.json()) as { id: number; secret: string };
  receiver.secrets = [endpoint.secret];
  const codes = new Set<string>();
  for (let i = 0; i < 40; i++) {
    const res = await api('/links', { method: 'POST', body: JSON.stringify({ url: `https://example.com/killed-${i}` }) });
    assert.equal(res.status, 201);
    codes.add(((await res.json()) as { code: string }).code);
  }
  await until('a few sent', async () => receiver.received.length >= 4);
  first.child.kill('SIGKILL');
  await first.exited;
  const beforeKill = new Set(receiver.received.map((r) => r.id));
  assert.ok(beforeKill.size < 40, `events were still in the outbox at the kill (${beforeKill.size} of 40 received)`);

  receiver.behaviour = { status: 200 };
  const second = await startServer(env);
  t.after(() => second.child.kill('SIGKILL'));
  await until('every event after the restart', async () => receiver.accepted().length >= 40, 30_000);
  const removed = await fetch(`${second.url}/webhooks/${endpoint.id}`, { method: 'DELETE', headers: admin });
  assert.equal(removed.status, 204);
  second.child.kill('SIGTERM');
  await second.exited;

  assert.deepEqual(new Set(receiver.accepted().map((r) => (r.event.data.link as { code: string }).code)), codes, 'nothing lost');
  t.diagnostic(`${report(codes.size, receiver)}; ${beforeKill.size} received before the kill`);
  for (const id of receiver.ids().repeated) assert.ok(beforeKill.has(id), `${id} repeated though no answer to it was lost`);
  assert.deepEqual(receiver.badSignatures, []);
});
