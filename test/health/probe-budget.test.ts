// The deployment's probe budget and what is kept: HEALTH_PROBE_RATE is shared by every instance
// (two apps on one database claim one budget between them), at most one second's worth is saved
// up, nothing is claimed without budget; a link's history keeps its last 30 probes. The budget's
// clock is moved in SQL, never waited for.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { bearer, startApp } from '../helpers/app.ts';
import { createTestDatabase, withClient, type TestDatabase } from '../helpers/db.ts';
import { TargetServer } from '../helpers/target-server.ts';
import { keysWith } from '../helpers/workspaces.ts';

let database: TestDatabase;
let admin: Record<string, string>;

before(async () => {
  database = await createTestDatabase('health_budget');
  admin = bearer((await keysWith(database.url, { admin: 'admin' })).admin);
});
after(async () => {
  await database.drop();
});

const PROBING = {
  ALLOW_PRIVATE_TARGETS: 'true',
  HEALTH_PROBE_ALLOW_PRIVATE: 'true',
  HEALTH_PROBE_TIMEOUT_MS: '2000',
  HEALTH_PROBE_RATE: '2',
};

async function create(app: FastifyInstance, url: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/links', headers: admin, payload: { url } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json<{ code: string }>().code;
}

/** The budget as if it had last been refilled `seconds` ago (negative: not yet), empty. */
async function budgetRefilled(seconds: number): Promise<void> {
  await withClient(database.url, (client) =>
    client.query(`UPDATE health_sweep SET tokens = 0, refilled_at = now() - $1 * interval '1 second'`, [seconds]),
  );
}

test('HEALTH_PROBE_RATE is one budget for every instance, a second of it saved at most, and nothing is claimed without it', async (t) => {
  const one = await startApp(t, database.url, PROBING);
  const two = await startApp(t, database.url, PROBING);
  const servers: TargetServer[] = [];
  for (let i = 0; i < 6; i++) {
    const server = new TargetServer();
    await server.open(`127.0.0.${20 + i}`);
    t.after(() => server.close());
    servers.push(server);
    await create(one.app, server.url('/ok'));
  }
  const asked = () => servers.reduce((sum, server) => sum + server.requests.length, 0);

  await budgetRefilled(-3600);
  assert.equal((await one.app.health.runOnce()).length, 0, 'no budget, no claim');
  assert.equal(asked(), 0, 'and no request');

  // An hour unused is one second's worth, 2, shared by both instances claiming at once.
  await budgetRefilled(3600);
  const [a, b] = await Promise.all([one.app.health.runOnce(), two.app.health.runOnce()]);
  assert.equal(a.length + b.length, 2, `claimed ${a.length} + ${b.length}`);
  assert.equal(asked(), 2);

  await budgetRefilled(1);
  assert.equal((await two.app.health.runOnce()).length, 2);
  await budgetRefilled(1);
  assert.equal((await one.app.health.runOnce()).length, 2);
  assert.equal(asked(), 6, 'each link probed once');
});

test("a backlog of one host's links does not hold back another host's link", async (t) => {
  const { app } = await startApp(t, database.url, PROBING);
  const crowded = new TargetServer();
  await crowded.open('127.0.0.50');
  const other = new TargetServer();
  await other.open('127.0.0.51');
  t.after(() => crowded.close());
  t.after(() => other.close());
  const backlog: string[] = [];
  for (let i = 0; i < 9; i++) backlog.push(await create(app, crowded.url('/ok')));
  const alone = await create(app, other.url('/ok'));
  // Enrolled without a probe (no budget), then due in this order: the crowded host's nine, then the other.
  await budgetRefilled(-3600);
  await app.health.runOnce();
  await withClient(database.url, async (client) => {
    for (const [i, code] of backlog.entries())
      await client.query("UPDATE link_health SET next_probe_at = now() - (100 - $2) * interval '1 second' WHERE code = $1", [code, i]);
    await client.query("UPDATE link_health SET next_probe_at = now() - interval '1 second' WHERE code = $1", [alone]);
  });
  // HEALTH_PROBE_RATE 2: two a round, each claim looking at the first eight due.
  const probed: string[] = [];
  for (let round = 0; round < 2; round++) {
    await budgetRefilled(1);
    probed.push(...(await app.health.runOnce()).map((r) => r.code));
  }
  assert.ok(probed.includes(alone), `the other host's link probed in two rounds (probed: ${probed.length})`);
  assert.equal(other.requests.length, 1);
});

test("a link's history keeps its last 30 probes, newest first", async (t) => {
  const { app } = await startApp(t, database.url, PROBING);
  const server = new TargetServer();
  await server.open('127.0.0.40');
  t.after(() => server.close());
  const code = await create(app, server.url('/missing'));
  await budgetRefilled(1);
  await app.health.runOnce();
  await withClient(database.url, (client) =>
    client.query(
      `INSERT INTO link_health_probes (domain_id, code, at, status, ok, latency_ms)
       SELECT domain_id, code, now() - i * interval '1 hour', '200', true, 1 FROM link_health, generate_series(1, 40) AS i WHERE code = $1`,
      [code],
    ),
  );
  await withClient(database.url, (client) => client.query('UPDATE link_health SET next_probe_at = now() WHERE code = $1', [code]));
  await budgetRefilled(1);
  await app.health.runOnce();
  const res = await app.inject({ url: `/links/${code}/health`, headers: admin });
  const history = res.json<{ history: { at: string; status: string }[] }>().history;
  assert.equal(history.length, 30);
  assert.deepEqual(
    history.slice(0, 3).map((p) => p.status),
    ['404', '404', '200'],
  );
  const stored = await withClient(database.url, (client) =>
    client.query<{ n: string }>('SELECT count(*) AS n FROM link_health_probes WHERE code = $1', [code]),
  );
  assert.equal(Number(stored.rows[0]?.n), 30, 'older probes deleted, not only hidden');
  const times = history.map((p) => Date.parse(p.at));
  assert.deepEqual(
    times,
    [...times].sort((x, y) => y - x),
  );
});
