// Fault matrix, Postgres rows: the service as a child process on a private Postgres that the tests
// stop, lock, freeze and restart under a load of redirects (cached and uncached codes) and
// creates. Cached links keep redirecting; what needs Postgres answers 503 with Retry-After, in
// bounded time, never a 404 and never a 201 for a link that was not committed; then it recovers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { cachedNotRedirected, privatePostgres, rowLoad, seedLinks, startService, unavailable } from '../helpers/fault-matrix.ts';
import { lostWrites, offenders, p99, readyz, type Answer, type Load } from '../helpers/load.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { until } from '../helpers/wait.ts';

const STATEMENT_TIMEOUT_MS = 400;
const BREAKER_TIMEOUT_MS = 800;

const privatePg = privatePostgres();

interface Row {
  server: ServerProcess;
  database: string;
  databaseUrl: string;
  /** In the LRU. */
  cached: string[];
  /** Read during the healthy phase (so they end up cached too). */
  warmUp: string[];
  /** Never asked for before the fault. */
  fresh: string[];
}

async function startRow(t: { after(fn: () => Promise<unknown>): void }, database: string): Promise<Row> {
  const databaseUrl = await privatePg().createDatabase(database);
  const server = await startService(t, {
    DATABASE_URL: databaseUrl,
    BASE_URL: 'https://sho.rt',
    CODE_SECRET: 'fault-matrix-postgres-secret',
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    BREAKER_TIMEOUT_MS: String(BREAKER_TIMEOUT_MS),
    DB_CONNECT_TIMEOUT_MS: '500',
    BREAKER_RESET_MS: '1000',
    WRITE_TIMEOUT_MS: '2000',
    CACHE_MAX_ENTRIES: '10000',
  });
  const { cached, rest } = await seedLinks(databaseUrl, server.url, 'fm-p', 2100, 100);
  return { server, database, databaseUrl, cached, warmUp: rest.slice(0, 200), fresh: rest.slice(200) };
}

function startLoad(row: Row, label: string): Load {
  return rowLoad(row.server.url, row.cached, row.warmUp, label);
}

/** Ready, with the breaker closed (half-open lets one batch through and refuses the others). */
async function recovered(base: string): Promise<boolean> {
  const ready = await readyz(base);
  return ready.status === 200 && ready.breaker === 'closed';
}

/**
 * Waits until /readyz says the breaker is open, and returns how long after `since` that was. A few
 * failed batches in a row open it, however many batches succeeded in the seconds before.
 */
async function breakerOpens(base: string, since: number): Promise<number> {
  await until('the breaker open', async () => (await readyz(base)).breaker === 'open');
  return performance.now() - since;
}

/** The answer arrived after `at` (a fault ended then). */
const answeredAfter = (at: number) => (a: Answer) => a.sentAt + a.ms > at;

/** Whatever the phase: a right 302 or a 503 to retry, for reads; a right 201 or a 503, for creates. */
function assertNeverWrong(load: Load): void {
  assert.deepEqual(offenders(load.of('read'), (a) => (a.status === 302 && a.right) || unavailable(a)).slice(0, 10), [], load.summary());
  assert.deepEqual(offenders(load.of('create'), (a) => (a.status === 201 && a.right) || unavailable(a)).slice(0, 10), [], load.summary());
}

function assertRecovered(load: Load): void {
  const reads = load.of('read', 'recovered');
  const creates = load.of('create', 'recovered');
  assert.deepEqual(offenders(reads, (a) => a.status === 302 && a.right).slice(0, 10), [], 'reads after the recovery');
  assert.deepEqual(offenders(creates, (a) => a.status === 201 && a.right).slice(0, 10), [], 'creates after the recovery');
}

test('Postgres down: cached codes 302; uncached 503 with Retry-After, fast once the breaker is open; creates 503, never a false 201; then it recovers', async (t) => {
  const row = await startRow(t, 'fm_pg_down');
  const load = startLoad(row, 'pg-down');
  t.after(() => load.stop());
  t.after(() =>
    privatePg()
      .up()
      .catch(() => {}),
  );

  await sleep(500);
  load.phase = 'stopping';
  await privatePg().down();
  load.uncached = row.fresh;
  load.phase = 'down';
  const opened = await breakerOpens(row.server.url, performance.now());
  t.diagnostic(`breaker open ${opened.toFixed(0)} ms after Postgres went down`);
  load.phase = 'open';
  await sleep(1000);
  load.phase = 'restarting';
  const upAt = performance.now();
  await privatePg().up();
  await until('ready again, breaker closed', () => recovered(row.server.url));
  await load.recoverAndStop();
  t.diagnostic(load.summary());

  assertNeverWrong(load);
  const cachedReads = load.of('read').filter((a) => a.cached);
  assert.deepEqual(offenders(cachedReads, (a) => a.status === 302 && a.right).slice(0, 10), [], 'cached codes redirect throughout');
  const outage = ['down', 'open'];
  const uncachedReads = load.of('read', ...outage).filter((a) => !a.cached);
  assert.ok(uncachedReads.length > 20, 'uncached reads during the outage');
  assert.deepEqual(
    offenders(uncachedReads, (a) => unavailable(a) || answeredAfter(upAt)(a)).slice(0, 10),
    [],
    'uncached codes: 503 + Retry-After, never 404',
  );
  const whileOpen = load.of('read', 'open').filter((a) => !a.cached);
  assert.ok(whileOpen.length > 20, `uncached reads while the breaker was open: ${whileOpen.length}`);
  const slowest = Math.max(...whileOpen.map((a) => a.ms));
  t.diagnostic(`uncached 503s while the breaker was open: ${whileOpen.length}, slowest ${slowest.toFixed(0)} ms`);
  // Fast means no timeout waited out: most answers take a few ms, and one slowed by a GC pause or
  // the busy machine may take longer, but none as long as the breaker's timeout for a batch.
  assert.ok(p99(whileOpen) < 300, `an open breaker answers at once: p99 ${p99(whileOpen).toFixed(0)} ms`);
  assert.ok(slowest < BREAKER_TIMEOUT_MS, `an open breaker answers at once: slowest ${slowest.toFixed(0)} ms`);
  const creates = load.of('create', ...outage);
  assert.ok(creates.length > 5, 'creates during the outage');
  assert.deepEqual(
    offenders(creates, (a) => unavailable(a) || answeredAfter(upAt)(a)).slice(0, 10),
    [],
    'creates: 503 + Retry-After, never 201',
  );
  assertRecovered(load);
  assert.deepEqual(await lostWrites(row.databaseUrl, load.acknowledged), []);
});

test('Postgres slow (a lock holds every statement on links): statements cancelled on the server, the breaker opens, then it recovers', async (t) => {
  const row = await startRow(t, 'fm_pg_slow');
  const load = startLoad(row, 'pg-slow');
  t.after(() => load.stop());
  const locker = new pg.Client({ connectionString: row.databaseUrl });
  await locker.connect();
  t.after(() => locker.end());

  await sleep(500);
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE links IN ACCESS EXCLUSIVE MODE');
  const lockedAt = performance.now();
  // Only now: a code read before the lock was taken would be in the LRU.
  load.uncached = row.fresh;
  load.phase = 'locked';
  // What the check for lingering statements looks at: the service's statements, queued behind the lock.
  await until(
    'a statement of the service waiting on the lock',
    async () => (await privatePg().appStatements(row.database)).some((s) => s.waitEventType === 'Lock' && s.query.includes('links')),
    3000,
  );
  const opened = await breakerOpens(row.server.url, lockedAt);
  load.phase = 'open';
  // Longer than the statement timeout plus a reset of the breaker: a statement only the client
  // gave up on would still be waiting for the lock now.
  await sleep(1500);
  const lingering = (await privatePg().appStatements(row.database)).filter(
    (s) => s.query.includes('links') && s.ms > STATEMENT_TIMEOUT_MS + 600,
  );
  await locker.query('ROLLBACK');
  const unlockedAt = performance.now();
  load.phase = 'unlocked';
  await until('ready again, breaker closed', () => recovered(row.server.url));
  await load.recoverAndStop();
  t.diagnostic(load.summary());

  assert.deepEqual(lingering, [], 'statements still waiting behind the lock');
  t.diagnostic(`breaker open ${opened.toFixed(0)} ms after the lock`);
  assert.ok(opened < 3000, `the breaker opened ${opened.toFixed(0)} ms after the lock`);
  assertNeverWrong(load);
  assert.deepEqual(cachedNotRedirected(load), []);
  const stuck = load.of('read', 'locked', 'open').filter((a) => !a.cached);
  assert.deepEqual(
    offenders(stuck, (a) => unavailable(a) || answeredAfter(unlockedAt)(a)).slice(0, 10),
    [],
    'uncached codes: 503 + Retry-After behind the lock',
  );
  assert.ok(
    stuck.some((a) => a.error === 'DATABASE_TIMEOUT'),
    'the statement timeout answered 503 DATABASE_TIMEOUT',
  );
  const slowest = Math.max(...stuck.map((a) => a.ms));
  assert.ok(slowest < BREAKER_TIMEOUT_MS + 1500, `bounded: slowest read behind the lock ${slowest.toFixed(0)} ms`);
  assertRecovered(load);
  await until('no statement of the service left running', async () => (await privatePg().appStatements(row.database)).length === 0, 5000);
  assert.deepEqual(await lostWrites(row.databaseUrl, load.acknowledged), []);
});

test('Postgres hung (SIGSTOP of every Postgres process): answers in bounded time, the breaker opens, no statement lingers after, then it recovers', async (t) => {
  const row = await startRow(t, 'fm_pg_hung');
  const load = startLoad(row, 'pg-hung');
  t.after(() => load.stop());
  t.after(async () => privatePg().resume());

  await sleep(500);
  // The service's connections as Postgres froze: the ones it gives up on must end.
  const frozen = await privatePg().appBackends(row.database);
  assert.ok(frozen.length > 0, 'the service has connections to Postgres');
  privatePg().pause();
  load.uncached = row.fresh;
  load.phase = 'hung';
  const opened = await breakerOpens(row.server.url, performance.now());
  load.phase = 'open';
  await sleep(800);
  privatePg().resume();
  const resumedAt = performance.now();
  load.phase = 'resumed';
  await until('ready again, breaker closed', () => recovered(row.server.url));
  await load.recoverAndStop();
  t.diagnostic(load.summary());

  assertNeverWrong(load);
  assert.deepEqual(cachedNotRedirected(load), []);
  const stuck = load.of('read', 'hung', 'open').filter((a) => !a.cached);
  assert.ok(stuck.length > 5, 'uncached reads while Postgres hung');
  // A batch sent just before the resume may be answered after it, rightly.
  assert.deepEqual(
    offenders(stuck, (a) => unavailable(a) || answeredAfter(resumedAt)(a)).slice(0, 10),
    [],
    'uncached codes: 503 + Retry-After while Postgres hangs',
  );
  t.diagnostic(`breaker open ${opened.toFixed(0)} ms after Postgres froze`);
  assert.ok(opened < 3000, `the breaker opened ${opened.toFixed(0)} ms after Postgres froze`);
  const slowest = Math.max(...stuck.map((a) => a.ms));
  assert.ok(slowest < BREAKER_TIMEOUT_MS + 1500, `bounded: slowest read while Postgres hung ${slowest.toFixed(0)} ms`);
  assertRecovered(load);
  // The statements the client gave up on while Postgres was frozen are cancelled (statement
  // timeout) or end with their connection once it runs again: none keeps running.
  await until(
    'the connections the service gave up on while Postgres hung closed',
    async () => {
      const open = new Set((await privatePg().appBackends(row.database)).map((b) => b.pid));
      return frozen.some((b) => !open.has(b.pid));
    },
    5000,
  );
  await until('no statement of the service left running', async () => (await privatePg().appStatements(row.database)).length === 0, 5000);
  assert.deepEqual(await lostWrites(row.databaseUrl, load.acknowledged), []);
});

test('Postgres restarted (pg_ctl restart -m fast) under load: no crash, failures answered 503, every acknowledged create kept, then it recovers', async (t) => {
  const row = await startRow(t, 'fm_pg_restart');
  const load = startLoad(row, 'pg-restart');
  t.after(() => load.stop());
  load.uncached = row.fresh;

  await sleep(600);
  load.phase = 'restarting';
  const restartedAt = Date.now();
  await privatePg().restart();
  load.phase = 'restarted';
  await until('ready again, breaker closed', () => recovered(row.server.url));
  await load.recoverAndStop();
  t.diagnostic(load.summary());

  assert.equal(row.server.child.exitCode, null, 'the service is still running');
  assert.equal((await fetch(`${row.server.url}/healthz`)).status, 200);
  assertNeverWrong(load);
  assertRecovered(load);
  assert.equal(load.indeterminate, 0, 'every create was answered');
  // The restart was felt: requests sent during it failed, and the service has reconnected since.
  assert.ok(load.answers.filter((a) => a.phase === 'restarting').some(unavailable), `no 503 during the restart: ${load.summary()}`);
  const backends = await privatePg().appBackends(row.database);
  assert.ok(backends.length > 0, 'the service is connected again');
  assert.deepEqual(
    backends.filter((b) => b.startedAt < restartedAt),
    [],
    'connections from before the restart',
  );
  assert.deepEqual(await lostWrites(row.databaseUrl, load.acknowledged), []);
});
