// Target health probes against real local targets (test/helpers/target-server.ts), each on a
// loopback address of its own so that the one-probe-per-host rule does not serialise them: the
// answers 200, 404, 500, a timeout, a redirect loop, an endless chain, HEAD refused then GET; a
// private address refused without a connection; broken and recovered events through the outbox to
// a real webhook receiver, exactly once each; the list's health=broken filter; opting out; one
// probe at a time per host. Rounds are driven by app.health.runOnce(), never by timers.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, startApp, type Cleanup } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { TargetServer } from '../helpers/target-server.ts';
import { until } from '../helpers/wait.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let admin: Record<string, string>;
let member: Record<string, string>;
let viewer: Record<string, string>;

before(async () => {
  database = await createTestDatabase('health');
  const keys = await keysWith(database.url, { admin: 'admin', member: 'member', viewer: 'viewer' });
  admin = bearer(keys.admin);
  member = bearer(keys.member);
  viewer = bearer(keys.viewer);
});
after(async () => {
  await database.drop();
});

/** Loopback targets allowed, a timeout that a loaded CI machine's loopback answers well within (the silent target waits it out), broken after two failures, and a budget no test runs out of. */
const PROBING = {
  ALLOW_PRIVATE_TARGETS: 'true',
  HEALTH_PROBE_ALLOW_PRIVATE: 'true',
  HEALTH_PROBE_TIMEOUT_MS: '2000',
  HEALTH_PROBE_MAX_REDIRECTS: '4',
  HEALTH_BROKEN_AFTER: '2',
  HEALTH_PROBE_RATE: '1000',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '100',
};

let nextAddress = 2;
async function target(t: Cleanup): Promise<TargetServer> {
  const server = new TargetServer();
  await server.open(`127.0.0.${nextAddress++}`);
  t.after(() => server.close());
  return server;
}

async function create(app: FastifyInstance, url: string, headers = admin): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', headers, payload: { url } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

interface Health {
  probes: boolean;
  status: string | null;
  failures: number;
  broken: boolean;
  brokenSince: string | null;
  history: { status: string; ok: boolean }[];
}

async function health(app: FastifyInstance, code: string, headers = viewer): Promise<Health> {
  const res = await app.inject({ url: `/links/${code}/health`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<Health>();
}

/** Makes the links due now, as if their wait had passed. */
async function makeDue(codes: readonly string[]): Promise<void> {
  await withClient(database.url, (client) => client.query('UPDATE link_health SET next_probe_at = now() WHERE code = ANY ($1)', [codes]));
}

test('each kind of answer is recorded as its status or its failure class, and HEAD refused is asked again with GET', async (t) => {
  const { app } = await startApp(t, database.url, PROBING);
  const servers = {
    ok: await target(t),
    missing: await target(t),
    error: await target(t),
    slow: await target(t),
    loop: await target(t),
    chain: await target(t),
    noHead: await target(t),
  };
  const codes = {
    ok: await create(app, servers.ok.url('/ok')),
    missing: await create(app, servers.missing.url('/missing')),
    error: await create(app, servers.error.url('/error')),
    slow: await create(app, servers.slow.url('/slow')),
    loop: await create(app, servers.loop.url('/loop')),
    chain: await create(app, servers.chain.url('/hop/0')),
    noHead: await create(app, servers.noHead.url('/no-head')),
  };
  const unprobed = await health(app, codes.ok);
  assert.deepEqual([unprobed.status, unprobed.history.length], [null, 0], 'no probe yet');

  const recorded = await app.health.runOnce();
  assert.equal(recorded.length, 7, 'one probe per link, each on its own host, in one round');

  const statuses: Record<string, Health> = Object.fromEntries(
    await Promise.all(Object.entries(codes).map(async ([name, code]) => [name, await health(app, code)])),
  );
  assert.deepEqual(Object.fromEntries(Object.entries(statuses).map(([name, h]) => [name, [h.status, h.failures, h.broken]])), {
    ok: ['200', 0, false],
    missing: ['404', 1, false],
    error: ['500', 1, false],
    slow: ['timeout', 1, false],
    loop: ['redirect_loop', 1, false],
    chain: ['too_many_redirects', 1, false],
    noHead: ['200', 0, false],
  });
  assert.deepEqual(
    (statuses.ok as Health).history.map((p) => [p.status, p.ok]),
    [['200', true]],
  );
  assert.deepEqual(servers.noHead.requests, [
    { method: 'HEAD', path: '/no-head' },
    { method: 'GET', path: '/no-head' },
  ]);
  assert.deepEqual(servers.ok.requests, [{ method: 'HEAD', path: '/ok' }], 'HEAD alone where it is answered');
  assert.deepEqual(
    servers.loop.requests.map((r) => r.path),
    ['/loop', '/loop-back'],
    'the loop is seen when a URL comes back, without asking it again',
  );
  assert.deepEqual(
    servers.chain.requests.map((r) => r.path),
    ['/hop/0', '/hop/1', '/hop/2', '/hop/3', '/hop/4'],
    'HEALTH_PROBE_MAX_REDIRECTS (4) redirects followed, then no more',
  );

  const second = await app.health.runOnce();
  assert.equal(second.length, 0, 'nothing is due again right after its probe');

  const metrics = (await app.inject({ url: '/metrics' })).body;
  const counted = Object.fromEntries(
    [...metrics.matchAll(/^shortener_health_probes_total\{outcome="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]),
  );
  assert.deepEqual(counted, { ok: 2, '4xx': 1, '5xx': 1, timeout: 1, redirect_loop: 1, too_many_redirects: 1 });
});

test('a target on a private address is refused without a connection while HEALTH_PROBE_ALLOW_PRIVATE is off, by address or by name', async (t) => {
  const { app } = await startApp(t, database.url, { ...PROBING, HEALTH_PROBE_ALLOW_PRIVATE: 'false' });
  const server = await target(t);
  const byAddress = await create(app, server.url('/ok'));
  const byName = await create(app, server.url('/ok').replace(/127\.0\.0\.\d+/, 'localhost'));
  const recorded = await app.health.runOnce();
  assert.deepEqual(recorded.map((r) => r.code).sort(), [byAddress, byName].sort());
  assert.equal((await health(app, byAddress)).status, 'private_address');
  assert.equal((await health(app, byName)).status, 'private_address');
  assert.equal(server.connections, 0, 'no connection was made');
});

test('a link becomes broken after HEALTH_BROKEN_AFTER failures and recovers at the first success, each with one event', async (t) => {
  const { app } = await startApp(t, database.url, PROBING);
  const receiver = new WebhookReceiver();
  await receiver.open();
  t.after(() => receiver.close());
  const hook = await app.inject({
    method: 'POST',
    url: '/webhooks',
    headers: admin,
    payload: { url: receiver.url, events: ['link.target_broken', 'link.target_recovered'] },
  });
  assert.equal(hook.statusCode, 201, hook.body);
  receiver.secrets = [hook.json<{ secret: string }>().secret];
  const server = await target(t);
  server.switchStatus = 503;
  const code = await create(app, server.url('/switch'));
  const listed = async () => {
    const res = await app.inject({ url: '/links?health=broken', headers: viewer });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ links: { code: string }[] }>().links.map((link) => link.code);
  };

  await app.health.runOnce();
  let now = await health(app, code);
  assert.deepEqual([now.status, now.failures, now.broken], ['503', 1, false]);
  assert.deepEqual(await listed(), []);

  await makeDue([code]);
  await app.health.runOnce();
  now = await health(app, code);
  assert.deepEqual([now.status, now.failures, now.broken], ['503', 2, true]);
  assert.ok(now.brokenSince !== null);
  assert.deepEqual(await listed(), [code]);

  // Still failing: no second broken event.
  await makeDue([code]);
  await app.health.runOnce();
  assert.deepEqual((await health(app, code)).failures, 3);

  server.switchStatus = 200;
  await makeDue([code]);
  await app.health.runOnce();
  now = await health(app, code);
  assert.deepEqual([now.status, now.failures, now.broken, now.brokenSince], ['200', 0, false, null]);
  assert.deepEqual(await listed(), []);
  assert.deepEqual(
    now.history.map((p) => p.status),
    ['200', '503', '503', '503'],
    'the history, newest first',
  );

  await until('both events delivered', async () => receiver.accepted().length >= 2);
  const events = receiver.accepted().map((r) => r.event);
  assert.deepEqual(
    events.map((e) => e.type),
    ['link.target_broken', 'link.target_recovered'],
  );
  const broken = events[0]?.data as { link: { code: string }; health: { status: string; failures: number } };
  assert.equal(broken.link.code, code);
  assert.deepEqual([broken.health.status, broken.health.failures], ['503', 2]);
  assert.deepEqual(receiver.badSignatures, []);
  const outbox = await withClient(database.url, (client) =>
    client.query<{ type: string }>('SELECT type FROM webhook_messages WHERE code = $1 ORDER BY id', [code]),
  );
  assert.deepEqual(
    outbox.rows.map((row) => row.type),
    ['link.target_broken', 'link.target_recovered'],
    'one event each in the outbox',
  );
});

test('a link opted out is not probed, its broken state cleared; viewers read its health but may not opt it out', async (t) => {
  const { app } = await startApp(t, database.url, PROBING);
  const server = await target(t);
  const code = await create(app, server.url('/missing'), member);
  await app.health.runOnce();
  await makeDue([code]);
  await app.health.runOnce();
  assert.equal((await health(app, code)).broken, true);

  const refused = await app.inject({ method: 'PUT', url: `/links/${code}/health`, headers: viewer, payload: { probes: false } });
  assert.equal(refused.statusCode, 403, refused.body);
  const bad = await app.inject({ method: 'PUT', url: `/links/${code}/health`, headers: member, payload: { probes: 'no' } });
  assert.equal(bad.statusCode, 400, bad.body);
  const out = await app.inject({ method: 'PUT', url: `/links/${code}/health`, headers: member, payload: { probes: false } });
  assert.equal(out.statusCode, 200, out.body);
  assert.deepEqual((({ probes, broken, failures }) => ({ probes, broken, failures }))(out.json<Health>()), {
    probes: false,
    broken: false,
    failures: 0,
  });

  const asked = server.requests.length;
  await makeDue([code]);
  const recorded = await app.health.runOnce();
  assert.equal(recorded.filter((r) => r.code === code).length, 0);
  assert.equal(server.requests.length, asked, 'the target was not asked');

  const audit = await withClient(database.url, (client) =>
    client.query<{ after: unknown }>("SELECT after FROM audit_log WHERE action = 'link.health-probes' AND target_id = $1", [code]),
  );
  assert.deepEqual(
    audit.rows.map((row) => row.after),
    [{ probes: false }],
  );

  const back = await app.inject({ method: 'PUT', url: `/links/${code}/health`, headers: admin, payload: { probes: true } });
  assert.equal(back.statusCode, 200, back.body);
  const again = await app.health.runOnce();
  assert.deepEqual(
    again.map((r) => r.code),
    [code],
    'opted back in, it is due at once',
  );
});

test('two links on one host are probed one at a time: the second waits for a later round', async (t) => {
  const { app } = await startApp(t, database.url, PROBING);
  const server = await target(t);
  const first = await create(app, server.url('/ok'));
  const second = await create(app, server.url('/error'));
  const round1 = await app.health.runOnce();
  assert.equal(round1.length, 1);
  assert.deepEqual(await app.health.runOnce(), [], 'the other link of the host was put off, not probed at once');
  await makeDue([first, second]);
  const round3 = await app.health.runOnce();
  assert.equal(round3.length, 1);
  assert.deepEqual([...round1, ...round3].map((r) => r.code).sort(), [first, second].sort());
});

test('with HEALTH_PROBES on, the worker enrols and probes on its own schedule', async (t) => {
  const server = await target(t);
  const { app: writer } = await startApp(t, database.url, PROBING);
  const code = await create(writer, server.url('/ok'));
  const { app } = await startApp(t, database.url, { ...PROBING, HEALTH_PROBES: 'true' });
  await until('the link probed by the scheduled rounds', async () => (await health(app, code)).status === '200');
  assert.deepEqual(server.requests, [{ method: 'HEAD', path: '/ok' }]);
});
