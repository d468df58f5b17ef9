// Postgres read replicas (DATABASE_REPLICA_URLS) on real streaming standbys that this file starts
// (pg_basebackup of a private primary). Replication lag is made at will by pausing a standby's
// replay, or by freezing the primary's WAL sender: a row changed on the primary meanwhile tells
// which server answered a read.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { migrate } from '../../src/db/migrate.ts';
import type { ReplicaStatus } from '../../src/db/replicas.ts';
import { encodeInvalidation, invalidationChannel, redisLinkKey } from '../../src/redis/entries.ts';
import { createLink, getRedirect, startCountedApp, onDefault, type Cleanup } from '../helpers/app.ts';
import { insertRawLinks, withClient } from '../helpers/db.ts';
import { PrivatePostgres } from '../helpers/private-postgres.ts';
import { deleteKeys, randomPrefix, redisInUse, SHARED_REDIS_URL, withRedis } from '../helpers/redis.ts';
import { until } from '../helpers/wait.ts';

let primary: PrivatePostgres;
let standby: PrivatePostgres;
let url: string;
let replicaUrl: string;
before(async () => {
  primary = await PrivatePostgres.start();
  standby = await PrivatePostgres.replicaOf(primary);
  url = await primary.createDatabase('shortener');
  await migrate(url, pino({ level: 'silent' }));
  replicaUrl = standby.urlOf('shortener');
  await standby.caughtUpWith(primary);
});
after(async () => {
  await standby?.stop();
  await primary?.stop();
});

const sql = (target: string, text: string, values: unknown[] = []) => withClient(target, (client) => client.query(text, values));

/** Stops the standby's replay (it still receives WAL) until the test ends or replay() is called. */
async function pauseReplay(t: Cleanup): Promise<void> {
  await sql(standby.url, 'SELECT pg_wal_replay_pause()');
  t.after(() => replay());
}
const replay = () => sql(standby.url, 'SELECT pg_wal_replay_resume()').then(() => {});

/** Links on the primary, replayed on the standby before this returns. */
async function replicated(codes: string[]): Promise<void> {
  await insertRawLinks(url, codes);
  await standby.caughtUpWith(primary);
}

/** A second standby of the primary for this test (stopped after it), with `codes` replayed on both. */
async function secondStandby(t: Cleanup, codes: string[]): Promise<{ second: PrivatePostgres; secondUrl: string }> {
  const second = await PrivatePostgres.replicaOf(primary);
  t.after(() => second.stop());
  await replicated(codes);
  await second.caughtUpWith(primary);
  return { second, secondUrl: second.urlOf('shortener') };
}

/** Sets a link's URL on the primary behind the service's back: no instance hears of it. */
const changeBehindTheBack = (code: string, target: string) => sql(url, 'UPDATE links SET url = $2 WHERE code = $1', [code, target]);

async function replicaStatus(app: FastifyInstance): Promise<ReplicaStatus> {
  const res = await app.inject({ url: '/readyz' });
  const [status] = res.json<{ replicas: ReplicaStatus[] }>().replicas;
  assert.ok(status !== undefined, res.body);
  return status;
}

const inState = (app: FastifyInstance, state: ReplicaStatus['state']) => async () => (await replicaStatus(app)).state === state;

type Instance = Awaited<ReturnType<typeof instance>>;

/**
 * `count` instances with `env`, on the shared Redis under a key prefix of the test's own (deleted
 * after it), once each hears the invalidation channel and the last takes the replica's answers
 * (untilReadsReplica, with links labelled `label`).
 */
async function onRedis(t: Cleanup, count: 1 | 2, env: Record<string, string>, label: string) {
  const prefix = randomPrefix('replicas');
  t.after(() => deleteKeys(SHARED_REDIS_URL, prefix).then(() => {}));
  const instances: Instance[] = [];
  for (let i = 0; i < count; i++) instances.push(await instance(t, { ...env, REDIS_URL: SHARED_REDIS_URL, REDIS_KEY_PREFIX: prefix }));
  const first = instances[0];
  const last = instances.at(-1);
  assert.ok(first !== undefined && last !== undefined);
  await until('the instances hear the channel', async () =>
    (await Promise.all(instances.map(({ app }) => redisInUse(app)()))).every(Boolean),
  );
  await untilReadsReplica(last, label);
  return { prefix, first, last };
}

/**
 * Waits until `app` takes a replica's answers: an instance that has just heard the invalidation
 * channel (it may have missed changes before) takes none until a probe finds the replica caught up
 * past that moment. Reads links made for this (`<label>-warm<i>`), one at a time.
 */
async function untilReadsReplica(app: { app: FastifyInstance; replicaReads(): { found: number } }, label: string): Promise<void> {
  const codes = Array.from({ length: 40 }, (_, i) => `${label}-warm${i}`);
  await replicated(codes);
  await until('the replica takes reads', inState(app.app, 'up'));
  const found = app.replicaReads().found;
  await until("the instance takes the replica's answers", async () => {
    const code = codes.shift();
    assert.ok(code !== undefined, 'still no answer taken from the replica');
    await getRedirect(app.app, code);
    if (app.replicaReads().found > found) return true;
    await sleep(100);
    return false;
  });
}

/** An app on the private primary with the standby as its replica; `lookups()` counts its reads of links on the primary. */
async function instance(t: Cleanup, env: Record<string, string> = {}) {
  const started = await startCountedApp(t, url, { DATABASE_REPLICA_URLS: replicaUrl, ...env });
  const replicaReads = () => {
    const stats = started.app.lookupCounts;
    assert.ok(stats !== undefined && stats !== null, 'metrics are on');
    return { found: stats.replicaFound, missed: stats.replicaMissed, failed: stats.replicaFailed, stoodIn: stats.replicaStoodIn };
  };
  return { ...started, replicaReads };
}

test('a replica within the lag bound answers the reads; what it has not replayed is read on the primary, so a new link is never a 404', async (t) => {
  await replicated(['old1', 'old2']);
  const a = await instance(t, { DATABASE_REPLICA_MAX_LAG_MS: '60000' });
  // B is there before the replica falls behind: an instance that first probes a replica already
  // behind cannot tell by how much, and does not read it.
  const b = await instance(t, { DATABASE_REPLICA_MAX_LAG_MS: '60000' });
  await until('the replica takes reads', inState(a.app, 'up'));
  await until('B: the replica takes reads', inState(b.app, 'up'));
  await pauseReplay(t);

  // Changed on the primary only: the answer shows that the replica was read.
  await changeBehindTheBack('old1', 'https://example.com/old1-on-the-primary');
  assert.deepEqual(await getRedirect(a.app, 'old1'), { status: 302, location: 'https://example.com/old1' });
  assert.deepEqual(a.replicaReads(), { found: 1, missed: 0, failed: 0, stoodIn: 0 });
  assert.equal(a.lookups(), 0, 'the primary was not asked');

  // Written on the primary while replay is paused: not on the replica.
  await insertRawLinks(url, ['new1']);
  assert.deepEqual(await getRedirect(a.app, 'new1'), { status: 302, location: 'https://example.com/new1' });
  assert.equal(a.replicaReads().missed, 1);
  assert.equal(a.lookups(), 1, 'the miss was read again on the primary');

  // Created through the service, then asked of another instance at once.
  const created = await createLink(a.app, { url: 'https://example.com/made-just-now' });
  assert.equal(created.status, 201);
  assert.deepEqual(await getRedirect(b.app, String(created.body.code)), { status: 302, location: 'https://example.com/made-just-now' });
  assert.equal(b.replicaReads().missed, 1);

  // Absent on both: a 404, known only after the primary said so.
  assert.equal((await getRedirect(b.app, 'no-link-1')).status, 404);
  assert.equal(b.lookups(), 2);

  const metrics = (await b.app.inject({ url: '/metrics' })).body;
  const name = `127.0.0.1:${standby.port}/shortener`;
  assert.match(metrics, new RegExp(`^shortener_postgres_replica_up\\{replica="${name}"\\} 1$`, 'm'));
  assert.match(metrics, new RegExp(`^shortener_postgres_replica_lag_seconds\\{replica="${name}"\\} [\\d.e-]+$`, 'm'));
  assert.match(metrics, /^shortener_postgres_replica_lookups_total\{result="miss"\} 2$/m);
});

test('a replica whose replay lags more than DATABASE_REPLICA_MAX_LAG_MS takes no reads until it has caught up', async (t) => {
  await replicated(['lag1', 'lag2']);
  const a = await instance(t, { DATABASE_REPLICA_MAX_LAG_MS: '500' });
  await until('the replica takes reads', inState(a.app, 'up'));

  await pauseReplay(t);
  await changeBehindTheBack('lag1', 'https://example.com/lag1-on-the-primary');
  await until('the replica is lagging', inState(a.app, 'lagging'), 5000);
  const status = await replicaStatus(a.app);
  assert.ok(status.lagMs !== null && status.lagMs > 500, `lag ${status.lagMs} ms`);
  assert.deepEqual(await getRedirect(a.app, 'lag1'), { status: 302, location: 'https://example.com/lag1-on-the-primary' });
  assert.equal(a.replicaReads().found, 0);
  assert.equal(a.lookups(), 1);

  await replay();
  await until('the replica takes reads again', inState(a.app, 'up'), 5000);
  assert.deepEqual(await getRedirect(a.app, 'lag2'), { status: 302, location: 'https://example.com/lag2' });
  assert.equal(a.replicaReads().found, 1);
  assert.equal(a.lookups(), 1, 'lag2 came from the replica');
});

test('a change made on another instance is read on the primary while the replica lacks it, even when Redis lost the entry', async (t) => {
  await replicated(['chg1']);
  const { prefix, first: a, last: b } = await onRedis(t, 2, { DATABASE_REPLICA_MAX_LAG_MS: '20000' }, 'chg');
  const found = b.replicaReads().found;
  assert.deepEqual(await getRedirect(b.app, 'chg1'), { status: 302, location: 'https://example.com/chg1' });
  assert.equal(b.replicaReads().found, found + 1);
  const primaryReads = b.lookups();

  await pauseReplay(t);
  await a.app.links.change(onDefault('chg1'), { url: 'https://example.com/chg1-v2' });
  // As if Redis had evicted it: B must go to Postgres, where the replica still has the old state.
  await withRedis(SHARED_REDIS_URL, (redis) => redis.del(redisLinkKey(prefix, 'chg1')));
  await until('B follows the change', async () => (await getRedirect(b.app, 'chg1')).location === 'https://example.com/chg1-v2', 3000);
  assert.equal(b.replicaReads().found, found + 1, "the replica's old state was not taken");
  assert.equal((await replicaStatus(b.app)).state, 'up', 'though the replica is within the lag bound');
  assert.equal(b.lookups(), primaryReads + 1);
});

test('after invalidations were missed, no replica answer is taken until the replica has caught up past that moment', async (t) => {
  await replicated(['miss1', 'miss2', 'miss3']);
  const { prefix, last: b } = await onRedis(t, 1, { DATABASE_REPLICA_MAX_LAG_MS: '20000' }, 'miss');
  assert.deepEqual(await getRedirect(b.app, 'miss1'), { status: 302, location: 'https://example.com/miss1' });
  const found = b.replicaReads().found;
  const primaryReads = b.lookups();

  // The replica falls behind the primary, then an instance nobody knows announces an invalidation B never gets.
  await pauseReplay(t);
  await changeBehindTheBack('miss3', 'https://example.com/miss3-v2');
  const channel = invalidationChannel(prefix);
  await withRedis(SHARED_REDIS_URL, async (redis) => {
    await redis.del(redisLinkKey(prefix, 'miss1')); // so that B asks Postgres, not Redis
    await redis.publish(channel, encodeInvalidation('someone-else', 1, []));
    await redis.publish(channel, encodeInvalidation('someone-else', 2, []));
  });
  // B notices the gap (after a second's grace) and clears its LRU: miss1 is looked up again.
  await until(
    'B has noticed',
    async () => {
      await getRedirect(b.app, 'miss1');
      return b.lookups() > primaryReads || b.replicaReads().found > found;
    },
    5000,
  );
  assert.equal(b.replicaReads().found, found, 'no replica answer taken');
  assert.equal(b.lookups(), primaryReads + 1);
  assert.equal((await replicaStatus(b.app)).state, 'up', 'though the replica is within the lag bound');

  // Caught up again, past the gap: its answers are taken once more.
  await replay();
  await untilReadsReplica(b, 'miss-after');
});

test('a replica that goes down, or hangs, costs a read at most DATABASE_REPLICA_TIMEOUT_MS; it takes reads again once it is back', async (t) => {
  const codes = Array.from({ length: 30 }, (_, i) => `dn${i}`);
  await replicated(codes);
  const TIMEOUT_MS = 300;
  const a = await instance(t, { DATABASE_REPLICA_TIMEOUT_MS: String(TIMEOUT_MS) });
  await until('the replica takes reads', inState(a.app, 'up'));

  // Hung: every process of the standby stopped. The read in flight waits out the timeout, then the primary answers.
  standby.pause();
  t.after(() => standby.resume());
  const started = performance.now();
  assert.deepEqual(await getRedirect(a.app, 'dn0'), { status: 302, location: 'https://example.com/dn0' });
  const tookMs = performance.now() - started;
  // The timeout was waited out (the replica was asked, and hung), and little more: the primary's
  // lookup, with room for a busy machine.
  assert.ok(tookMs >= TIMEOUT_MS - 5, `answered in ${tookMs.toFixed(0)} ms: before the replica's timeout`);
  assert.ok(tookMs < TIMEOUT_MS + 1000, `answered in ${tookMs.toFixed(0)} ms`);
  assert.equal(a.replicaReads().failed, 1);
  assert.equal((await replicaStatus(a.app)).state, 'down');
  const answers = await Promise.all(codes.slice(1, 10).map((code) => getRedirect(a.app, code)));
  for (const [i, res] of answers.entries()) assert.deepEqual(res, { status: 302, location: `https://example.com/dn${i + 1}` });
  assert.equal(a.replicaReads().failed, 1, 'a replica that is down is not asked');
  standby.resume();
  await until('the replica takes reads again', inState(a.app, 'up'), 5000);

  // Shut down: refused at once.
  await standby.down();
  t.after(() => standby.up().catch(() => {}));
  const whileDown = await Promise.all(codes.slice(10, 20).map((code) => getRedirect(a.app, code)));
  for (const [i, res] of whileDown.entries()) assert.deepEqual(res, { status: 302, location: `https://example.com/dn${i + 10}` });
  assert.equal((await replicaStatus(a.app)).state, 'down');

  await standby.up();
  await until('the replica takes reads again', inState(a.app, 'up'), 10_000);
  const foundBefore = a.replicaReads().found;
  const back = await Promise.all(codes.slice(20).map((code) => getRedirect(a.app, code)));
  for (const [i, res] of back.entries()) assert.deepEqual(res, { status: 302, location: `https://example.com/dn${i + 20}` });
  assert.equal(a.replicaReads().found - foundBefore, 10);
});

test("a standby that is connected but receives nothing falls behind by the primary's measure, and takes no reads", async (t) => {
  await replicated(['ws1', 'ws2']);
  const a = await instance(t, { DATABASE_REPLICA_MAX_LAG_MS: '600' });
  await until('the replica takes reads', inState(a.app, 'up'));
  const [sender] = (await sql(primary.url, 'SELECT pid FROM pg_stat_replication')).rows as { pid: number }[];
  assert.ok(sender !== undefined, 'the primary has a WAL sender');
  process.kill(sender.pid, 'SIGSTOP');
  t.after(() => {
    process.kill(sender.pid, 'SIGCONT');
  });

  // The standby has replayed all it received: by its own measure it is not behind at all.
  await changeBehindTheBack('ws1', 'https://example.com/ws1-on-the-primary');
  await until('the replica is lagging', inState(a.app, 'lagging'), 5000);
  const own = (await sql(replicaUrl, 'SELECT pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() AS idle')).rows as { idle: boolean }[];
  assert.equal(own[0]?.idle, true, 'the standby sees nothing left to replay');
  assert.deepEqual(await getRedirect(a.app, 'ws1'), { status: 302, location: 'https://example.com/ws1-on-the-primary' });
  assert.equal(a.replicaReads().found, 0);

  process.kill(sender.pid, 'SIGCONT');
  await until('the replica takes reads again', inState(a.app, 'up'), 10_000);
  assert.deepEqual(await getRedirect(a.app, 'ws2'), { status: 302, location: 'https://example.com/ws2' });
  assert.equal(a.replicaReads().found, 1);
});

test('with two replicas, both take reads in turn, and one that goes down leaves the reads to the other', async (t) => {
  const codes = Array.from({ length: 40 }, (_, i) => `two${i}`);
  const { second, secondUrl } = await secondStandby(t, codes);
  const a = await instance(t, { DATABASE_REPLICA_URLS: `${replicaUrl},${secondUrl}` });
  await until('both take reads', async () => {
    const { replicas } = (await a.app.inject({ url: '/readyz' })).json<{ replicas: ReplicaStatus[] }>();
    return replicas.length === 2 && replicas.every((replica) => replica.state === 'up');
  });

  for (const code of codes.slice(0, 20))
    assert.deepEqual(await getRedirect(a.app, code), { status: 302, location: `https://example.com/${code}` });
  assert.equal(a.replicaReads().found, 20);
  assert.equal(a.lookups(), 0);
  // Each standby has a connection of the service whose last statement was a lookup of links.
  const looked = async (target: string) =>
    (
      await sql(
        target,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'shortener' AND query LIKE '%AS wanted (code, domain_id)%'",
      )
    ).rows[0] as { n: number };
  assert.ok((await looked(replicaUrl)).n > 0, 'the first replica was read');
  assert.ok((await looked(secondUrl)).n > 0, 'the second replica was read');

  await second.down();
  const secondName = `127.0.0.1:${second.port}/shortener`;
  await until('the second replica is down', async () => {
    const res = await a.app.inject({ url: '/readyz' });
    return res.json<{ replicas: ReplicaStatus[] }>().replicas.some((replica) => replica.name === secondName && replica.state === 'down');
  });
  const rest = await Promise.all(codes.slice(20).map(async (code) => ({ code, res: await getRedirect(a.app, code) })));
  for (const { code, res } of rest) assert.deepEqual(res, { status: 302, location: `https://example.com/${code}` });
  assert.deepEqual(a.replicaReads(), { found: 40, missed: 0, failed: 0, stoodIn: 0 });
  assert.equal(a.lookups(), 0, 'the first replica answered them all');
});

test('with two replicas, one of which has not replayed a change, the change is never answered from that one', async (t) => {
  const codes = Array.from({ length: 12 }, (_, i) => `pc${i}`);
  const { second, secondUrl } = await secondStandby(t, codes);
  const env = { DATABASE_REPLICA_URLS: `${replicaUrl},${secondUrl}`, DATABASE_REPLICA_MAX_LAG_MS: '20000' };
  const { prefix, first: a, last: b } = await onRedis(t, 2, env, 'pc');

  // The second replica stops replaying; A changes the links; Redis loses them, so B reads Postgres.
  await sql(second.url, 'SELECT pg_wal_replay_pause()'); // stopped with it at the end
  const since = Date.now();
  for (const code of codes) await a.app.links.change(onDefault(code), { url: `https://example.com/${code}-v2` });
  await withRedis(SHARED_REDIS_URL, (redis) => redis.del(...codes.map((code) => redisLinkKey(prefix, code))));
  const firstName = `127.0.0.1:${standby.port}/shortener`;
  await until("the first replica has caught up past the changes, by B's measure", async () => {
    const res = await b.app.inject({ url: '/readyz' });
    const first = res.json<{ replicas: ReplicaStatus[] }>().replicas.find((replica) => replica.name === firstName);
    return first?.lagMs !== null && first?.lagMs !== undefined && first.lagMs < Date.now() - since;
  });
  const readsBefore = b.replicaReads();
  // One code per batch: the replicas take them in turn, so the second is asked for about half.
  for (const code of codes) assert.deepEqual(await getRedirect(b.app, code), { status: 302, location: `https://example.com/${code}-v2` });
  const reads = b.replicaReads();
  assert.ok(reads.found - readsBefore.found >= 1, 'the first replica answered some');
  assert.ok(reads.missed - readsBefore.missed >= 1, "the second replica's answers were refused");
  assert.equal(reads.found - readsBefore.found + reads.missed - readsBefore.missed, codes.length);
});

test('a server that is not a standby of this primary is never read: the primary itself, or a standby of another cluster', async (t) => {
  await insertRawLinks(url, ['ns1', 'ns2']);
  const a = await instance(t, { DATABASE_REPLICA_URLS: url });
  await until('the probe has found out', inState(a.app, 'not-standby'));
  assert.deepEqual(await getRedirect(a.app, 'ns1'), { status: 302, location: 'https://example.com/ns1' });
  assert.deepEqual(a.replicaReads(), { found: 0, missed: 0, failed: 0, stoodIn: 0 });
  assert.equal(a.lookups(), 1);

  // Another cluster with the same schema and a link of the same code to elsewhere, and a standby of it.
  const other = await PrivatePostgres.start();
  t.after(() => other.stop());
  const otherUrl = await other.createDatabase('shortener');
  await migrate(otherUrl, pino({ level: 'silent' }));
  await sql(otherUrl, "INSERT INTO links (code, url) VALUES ('ns2', 'https://example.com/ns2-elsewhere')");
  const otherStandby = await PrivatePostgres.replicaOf(other);
  t.after(() => otherStandby.stop());
  await otherStandby.caughtUpWith(other);
  const b = await instance(t, { DATABASE_REPLICA_URLS: otherStandby.urlOf('shortener') });
  await until('the probe has found out', inState(b.app, 'not-standby'));
  assert.deepEqual(await getRedirect(b.app, 'ns2'), { status: 302, location: 'https://example.com/ns2' });
  assert.deepEqual(b.replicaReads(), { found: 0, missed: 0, failed: 0, stoodIn: 0 });
});

// Last: it stops the primary.
test('with the primary down, a standby stands in for the links it has; a code it lacks, or has in a state older than one known here, is a 503', async (t) => {
  await replicated(['pd1', 'pd2', 'pd3']);
  const { prefix, last: a } = await onRedis(t, 1, { DATABASE_REPLICA_MAX_LAG_MS: '300' }, 'pd');

  // Deleted through this instance while the standby's replay is paused: the standby still has it.
  await pauseReplay(t);
  await a.app.links.remove(onDefault('pd3'));
  await withRedis(SHARED_REDIS_URL, (redis) => redis.del(redisLinkKey(prefix, 'pd3')));

  await primary.down();
  t.after(() => primary.up().catch(() => {}));
  // Past the lag bound, the standby is no replica to read any more, but it may stand in.
  await until('the standby is behind the bound', inState(a.app, 'lagging'));
  assert.deepEqual(await getRedirect(a.app, 'pd1'), { status: 302, location: 'https://example.com/pd1' });
  assert.equal(a.replicaReads().stoodIn, 1);
  assert.equal((await getRedirect(a.app, 'pd3')).status, 503, "the standby's state of pd3 predates its deletion");
  assert.equal((await getRedirect(a.app, 'pd-unknown1')).status, 503);
  assert.equal(a.replicaReads().stoodIn, 1);

  // A stand-in answer is not cached: with the primary back, it answers again.
  await primary.up();
  await replay();
  await changeBehindTheBack('pd1', 'https://example.com/pd1-v2');
  await until('the primary answers again', async () => (await getRedirect(a.app, 'pd1')).location === 'https://example.com/pd1-v2', 15_000);
  // The breaker may still be open for a moment; the deletion is answered once the primary (or a
  // replica that has replayed it) is asked.
  await until('the deletion is answered', async () => (await getRedirect(a.app, 'pd3')).status === 404, 15_000);
  assert.deepEqual(await getRedirect(a.app, 'pd2'), { status: 302, location: 'https://example.com/pd2' });
});
