// The daily digest of broken links (workspace.health_digest) to a real webhook receiver: sent to a
// workspace that has broken links and an endpoint taking it, listing them with a total; not sent
// twice in a day, by one instance or two at once; sent again on a new day; never to a workspace
// with nothing broken. The day is moved in SQL, never waited for.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { TargetServer } from '../helpers/target-server.ts';
import { until } from '../helpers/wait.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { workspaceWith } from '../helpers/workspaces.ts';

let database: TestDatabase;

before(async () => {
  database = await createTestDatabase('health_digest');
});
after(async () => {
  await database.drop();
});

const PROBING = {
  ALLOW_PRIVATE_TARGETS: 'true',
  HEALTH_PROBE_ALLOW_PRIVATE: 'true',
  HEALTH_PROBE_TIMEOUT_MS: '2000',
  HEALTH_PROBE_RATE: '1000',
  HEALTH_BROKEN_AFTER: '1',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_POLL_MS: '100',
};

async function create(app: FastifyInstance, headers: Record<string, string>, url: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', headers, payload: { url } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

async function subscribe(app: FastifyInstance, headers: Record<string, string>, receiver: WebhookReceiver): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/webhooks',
    headers,
    payload: { url: receiver.url, events: ['workspace.health_digest'] },
  });
  assert.equal(res.statusCode, 201, res.body);
}

async function digestsIn(workspaceId: number): Promise<number> {
  const { rows } = await withClient(database.url, (client) =>
    client.query<{ n: string }>("SELECT count(*) AS n FROM webhook_messages WHERE workspace_id = $1 AND type = 'workspace.health_digest'", [
      workspaceId,
    ]),
  );
  return Number(rows[0]?.n);
}

test("a workspace's broken links come once a day in one digest, and only to a workspace that has some", async (t) => {
  const one = await startApp(t, database.url, PROBING);
  const two = await startApp(t, database.url, PROBING);
  const broken = await workspaceWith(database.url, 'broken', { admin: 'admin' });
  const fine = await workspaceWith(database.url, 'fine', { admin: 'admin' });
  const brokenKey = bearer(broken.keys.admin);
  const fineKey = bearer(fine.keys.admin);
  const receivers = { broken: new WebhookReceiver(), fine: new WebhookReceiver() };
  for (const receiver of Object.values(receivers)) {
    await receiver.open();
    t.after(() => receiver.close());
  }
  await subscribe(one.app, brokenKey, receivers.broken);
  await subscribe(one.app, fineKey, receivers.fine);
  const servers: TargetServer[] = [];
  for (let i = 0; i < 4; i++) {
    const server = new TargetServer();
    await server.open(`127.0.0.${60 + i}`);
    t.after(() => server.close());
    servers.push(server);
  }
  const [a, b, c, d] = servers as [TargetServer, TargetServer, TargetServer, TargetServer];
  const gone = [await create(one.app, brokenKey, a.url('/missing')), await create(one.app, brokenKey, b.url('/error'))];
  await create(one.app, brokenKey, c.url('/ok'));
  await create(one.app, fineKey, d.url('/ok'));

  assert.equal((await one.app.health.runOnce()).length, 4, 'every link probed');

  await until('the digest delivered', async () => receivers.broken.accepted().length >= 1);
  const [digest] = receivers.broken.accepted().map((r) => r.event);
  const data = digest?.data as { day: string; total: number; links: { link: { code: string }; health: { status: string } }[] };
  assert.equal(digest?.type, 'workspace.health_digest');
  assert.equal(data.day, new Date().toISOString().slice(0, 10));
  assert.equal(data.total, 2);
  assert.deepEqual(data.links.map((entry) => entry.link.code).sort(), [...gone].sort());
  assert.deepEqual(data.links.map((entry) => entry.health.status).sort(), ['404', '500']);
  assert.equal(await digestsIn(fine.id), 0, 'nothing broken, no digest');

  // The same day, from both instances at once: none more.
  await Promise.all([one.app.health.runOnce(), two.app.health.runOnce()]);
  assert.equal(await digestsIn(broken.id), 1);

  // The next day (its mark moved back one), from both at once: exactly one more.
  await withClient(database.url, (client) => client.query('UPDATE health_digests SET day = day - 1 WHERE workspace_id = $1', [broken.id]));
  await Promise.all([one.app.health.runOnce(), two.app.health.runOnce()]);
  assert.equal(await digestsIn(broken.id), 2);
  await until('the second digest delivered', async () => receivers.broken.accepted().length >= 2);
  assert.deepEqual(receivers.fine.received, []);
});
