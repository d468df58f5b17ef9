// Fault matrix, the process rows: both stores down at once, SIGTERM and SIGKILL of the service
// under load. The service runs as a child process on a private Postgres (and a private Redis),
// and every create that got a 201 is looked for in Postgres afterwards, like a Jepsen set test.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { privatePostgres, seedLinks, startService, unavailable } from '../helpers/fault-matrix.ts';
import { inFlightAt, Load, lostWrites, offenders, p99, readyz, warm, type Answer, committedUnanswered } from '../helpers/load.ts';
import { PrivateRedis, randomPrefix, redisInUse } from '../helpers/redis.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { TcpProxy, throughProxy } from '../helpers/tcp-proxy.ts';
import { until } from '../helpers/wait.ts';

const privatePg = privatePostgres();

const BASE_ENV = {
  BASE_URL: 'https://sho.rt',
  CODE_SECRET: 'fault-matrix-process-secret',
  DB_STATEMENT_TIMEOUT_MS: '400',
  BREAKER_TIMEOUT_MS: '800',
  DB_CONNECT_TIMEOUT_MS: '500',
  BREAKER_RESET_MS: '1000',
  WRITE_TIMEOUT_MS: '2000',
  CACHE_MAX_ENTRIES: '10000',
};

function start(t: { after(fn: () => Promise<unknown>): void }, env: Record<string, string>): Promise<ServerProcess> {
  return startService(t, { ...BASE_ENV, ...env });
}

/** 300 links written straight into Postgres: the first 100 read once (cached), then 100 to read, then 100 no one asks for. */
async function seed(databaseUrl: string, base: string, label: string) {
  const { cached, rest } = await seedLinks(databaseUrl, base, `fm-${label}`, 300, 100);
  return { cached, warmUp: rest.slice(0, 100), fresh: rest.slice(100) };
}

/** Added to each packet between the service and Postgres, each way, in the SIGTERM test: a commit takes twice this at least. */
const COMMIT_DELAY_MS = 100;
/** Time enough for a request to reach the server. */
const ARRIVAL_MS = 50;

test('Redis and Postgres both down: cached links still 302, everything else 503 fast; full recovery once both are back', async (t) => {
  const databaseUrl = await privatePg().createDatabase('fm_both_down');
  const redis = await PrivateRedis.start();
  t.after(() => redis.stop());
  t.after(() =>
    privatePg()
      .up()
      .catch(() => {}),
  );
  const server = await start(t, {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: randomPrefix('fm_both'),
    REDIS_COMMAND_TIMEOUT_MS: '100',
  });
  // Becoming live clears the LRU once: warm it after that.
  await until('the Redis tier in use', redisInUse(server.url));
  const { cached, warmUp, fresh } = await seed(databaseUrl, server.url, 'both');
  const load = new Load(server.url, {
    readers: 6,
    creators: 3,
    cached,
    uncached: warmUp,
    label: 'both-down',
    phase: 'healthy',
    maxMs: 30_000,
  });
  t.after(() => load.stop());

  await sleep(500);
  load.phase = 'stopping';
  await Promise.all([redis.kill(), privatePg().down()]);
  load.uncached = fresh;
  load.phase = 'down';
  await until('the breaker open', async () => (await readyz(server.url)).breaker === 'open');
  load.phase = 'open';
  await sleep(1500);
  load.phase = 'restarting';
  const backAt = performance.now();
  await Promise.all([redis.restart(), privatePg().up()]);
  await until('ready, breaker closed, Redis in use', async () => {
    const ready = await readyz(server.url);
    return ready.status === 200 && ready.breaker === 'closed' && ready.redis !== 'off' && ready.redis.redis === 'ready';
  });
  await load.recoverAndStop();
  t.diagnostic(load.summary());

  const answeredAfterBack = (a: Answer) => a.sentAt + a.ms > backAt;
  const outage = load.answers.filter((a) => a.phase === 'down' || a.phase === 'open');
  const cachedReads = outage.filter((a) => a.kind === 'read' && a.cached);
  assert.ok(cachedReads.length > 20, 'cached reads during the outage');
  assert.deepEqual(
    offenders(cachedReads, (a) => a.status === 302 && a.right).slice(0, 10),
    [],
    'cached links redirect with both stores down',
  );
  const others = outage.filter((a) => !(a.kind === 'read' && a.cached));
  assert.ok(others.filter((a) => a.kind === 'create').length > 5, 'creates during the outage');
  assert.ok(others.filter((a) => a.kind === 'read').length > 20, 'uncached reads during the outage');
  assert.deepEqual(offenders(others, (a) => unavailable(a) || answeredAfterBack(a)).slice(0, 10), [], 'the rest: 503 + Retry-After');
  const whileOpen = load.of('read', 'open').filter((a) => !a.cached);
  assert.ok(whileOpen.length > 20, `uncached reads while the breaker was open: ${whileOpen.length}`);
  const slowest = Math.max(...whileOpen.map((a) => a.ms));
  // Fast means no timeout waited out: most answers take a few ms, and one slowed by a GC pause or
  // the busy machine may take longer, but none as long as the breaker's timeout for a batch.
  assert.ok(p99(whileOpen) < 300, `503s come fast while the breaker is open: p99 ${p99(whileOpen).toFixed(0)} ms`);
  assert.ok(slowest < Number(BASE_ENV.BREAKER_TIMEOUT_MS), `503s come fast while the breaker is open: slowest ${slowest.toFixed(0)} ms`);
  const recovered = load.answers.filter((a) => a.phase === 'recovered');
  assert.deepEqual(offenders(recovered, (a) => (a.status === 302 || a.status === 201) && a.right).slice(0, 10), [], 'full recovery');
  assert.deepEqual(await lostWrites(databaseUrl, load.acknowledged), []);
});

test('SIGTERM under load: readiness fails first, requests in flight finish, the queue drains, exit 0 within the grace period, no acknowledged create lost', async (t) => {
  const databaseUrl = await privatePg().createDatabase('fm_sigterm');
  // Commits that take a while, so that batches are in flight when the signal comes and when the
  // server stops accepting.
  const proxy = new TcpProxy('127.0.0.1', privatePg().port);
  await proxy.up();
  t.after(() => proxy.down());
  const graceMs = 5000;
  const drainMs = 1000;
  const server = await start(t, {
    DATABASE_URL: throughProxy(databaseUrl, proxy),
    READINESS_DRAIN_MS: String(drainMs),
    SHUTDOWN_GRACE_MS: String(graceMs),
    // What this row drains is the write path; the analytics' last rollup write (ten round trips of
    // 200 ms through the proxy here) is test/db/embedded.test.ts's ("a graceful stop writes the rollups").
    ANALYTICS_ENABLED: 'false',
  });
  const { cached, warmUp } = await seed(databaseUrl, server.url, 'term');
  const load = new Load(server.url, {
    readers: 4,
    creators: 8,
    cached,
    uncached: warmUp,
    label: 'sigterm',
    phase: 'before',
    maxMs: 30_000,
  });
  t.after(() => load.stop());
  proxy.delayMs = COMMIT_DELAY_MS;

  await until('creates acknowledged through the slow commits', async () => load.acknowledged.size >= 5, 20_000);
  load.phase = 'draining';
  const signalledAt = performance.now();
  server.child.kill('SIGTERM');
  // A few creates sent shortly before the server stops accepting, so that some are in flight then.
  const lastOnes = sleep(drainMs - ARRIVAL_MS - COMMIT_DELAY_MS / 2).then(() => load.sendCreates(5));
  let unreadyAt = Number.NaN;
  let accepting: boolean | undefined;
  while (Number.isNaN(unreadyAt) && performance.now() - signalledAt < 2000) {
    const ready = await readyz(server.url).catch(() => undefined);
    if (ready !== undefined && ready.status === 503) {
      unreadyAt = performance.now();
      accepting = ready.checks.accepting;
    }
  }
  const exit = await server.exited;
  const exitedAt = performance.now();
  await lastOnes;
  await load.stop();
  t.diagnostic(
    `${load.summary()}; unready after ${(unreadyAt - signalledAt).toFixed(0)} ms, exit after ${(exitedAt - signalledAt).toFixed(0)} ms`,
  );

  assert.deepEqual(exit, { code: 0, signal: null });
  assert.ok(server.logs.some((line) => line.msg === 'shut down cleanly'));
  assert.ok(exitedAt - signalledAt < graceMs, `exited ${(exitedAt - signalledAt).toFixed(0)} ms after SIGTERM`);
  assert.equal(accepting, false, '/readyz failed, naming the drain');
  const refused = load.answers.filter((a) => a.status === 0).map((a) => a.sentAt + a.ms);
  assert.ok(
    refused.every((at) => at > unreadyAt),
    'readiness failed before any request was turned away',
  );
  const sentBefore = load.answers.filter((a) => a.phase === 'before');
  assert.deepEqual(
    offenders(sentBefore, (a) => (a.status === 302 || a.status === 201) && a.right).slice(0, 10),
    [],
    'every request sent before the signal is answered in full',
  );
  const creates = load.of('create');
  const atSignal = inFlightAt(creates, signalledAt);
  assert.ok(atSignal.length > 0, 'creates in flight at the signal');
  // The server stops accepting drainMs after the signal (it got it no earlier than signalledAt).
  // The creates it had by then wait in the write queue, which drains before the exit.
  const atClose = inFlightAt(creates, signalledAt + drainMs, ARRIVAL_MS);
  t.diagnostic(`${atSignal.length} creates in flight at the signal, ${atClose.length} when the server stopped accepting`);
  assert.ok(atClose.length > 0, 'creates in flight when the server stopped accepting');
  assert.ok(
    atClose.some((a) => a.status === 201 && a.right),
    'a create in flight when the server stopped accepting got its 201',
  );
  // The others never reached the service (a keep-alive connection closed as idle while the request
  // was on its way, on a busy machine): no answer, and no link either. One it had is answered.
  assert.deepEqual(
    offenders(atClose, (a) => (a.status === 201 && a.right) || a.status === 0),
    [],
    'creates in flight when the server stopped accepting: committed, or never received',
  );
  assert.deepEqual(
    await committedUnanswered(
      databaseUrl,
      atClose.filter((a) => a.status !== 201),
    ),
    [],
  );
  const drained = load.of('create', 'draining');
  assert.ok(drained.length > 0, 'creates sent after the signal');
  assert.deepEqual(
    offenders(drained, (a) => (a.status === 201 && a.right) || (a.status === 503 && a.error === 'SHUTTING_DOWN') || a.status === 0).slice(
      0,
      10,
    ),
    [],
    'creates after the signal: committed, or refused as the instance closes',
  );
  assert.deepEqual(await lostWrites(databaseUrl, load.acknowledged), []);
});

test('SIGKILL in the middle of batches: every create that got a 201 is in Postgres, and the service starts again on it', async (t) => {
  const databaseUrl = await privatePg().createDatabase('fm_sigkill');
  // Each commit takes a while: the kill lands with batches in flight.
  const proxy = new TcpProxy('127.0.0.1', privatePg().port);
  await proxy.up();
  t.after(() => proxy.down());
  const server = await start(t, { DATABASE_URL: throughProxy(databaseUrl, proxy) });
  const { cached, warmUp } = await seed(databaseUrl, server.url, 'kill');
  proxy.delayMs = 15;
  const load = new Load(server.url, {
    readers: 2,
    creators: 16,
    cached,
    uncached: warmUp,
    label: 'sigkill',
    phase: 'before',
    maxMs: 30_000,
  });
  t.after(() => load.stop());

  await until('more than 20 creates acknowledged', async () => load.acknowledged.size > 20, 20_000);
  load.phase = 'killed';
  server.child.kill('SIGKILL');
  await server.exited;
  await load.stop();
  t.diagnostic(`${load.acknowledged.size} acknowledged, ${load.indeterminate} in flight at the kill`);

  assert.ok(load.acknowledged.size > 20, `only ${load.acknowledged.size} creates acknowledged`);
  assert.ok(load.indeterminate > 0, 'creates were in flight at the kill');
  assert.deepEqual(await lostWrites(databaseUrl, load.acknowledged), []);

  const again = await start(t, { DATABASE_URL: databaseUrl });
  const sample = [...load.acknowledged].slice(-50);
  const wrong = await warm(
    again.url,
    sample.map(([code]) => code),
    (code) => load.acknowledged.get(code) ?? '',
  );
  assert.deepEqual(wrong, [], 'acknowledged links redirect after the restart');
});
