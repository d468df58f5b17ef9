// The Redis test helpers themselves, against real servers: the shared one (only under random
// prefixes) and private redis-server processes started here.

import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { deleteKeys, PrivateRedis, PrivateRedisCluster, randomPrefix, SHARED_REDIS_URL, startMonitor, withRedis } from './redis.ts';

/** Waits (up to 5 s) for an ioredis client to be connected again. */
async function ready(client: Redis): Promise<void> {
  for (let waited = 0; client.status !== 'ready'; waited += 20) {
    if (waited >= 5000) throw new Error(`client still ${client.status} after 5 s`);
    await sleep(20);
  }
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

test('PrivateRedis: start, SET/GET, pause, resume, kill, restart, stop', async (t) => {
  const server = await PrivateRedis.start();
  t.after(() => server.stop());
  assert.equal(server.url, `redis://127.0.0.1:${server.port}`);
  assert.equal((await server.info('server')).process_id, String(server.pid));
  assert.deepEqual(
    await withRedis(server.url, (redis) => redis.config('GET', 'save')),
    ['save', ''],
    'no persistence: a killed server comes back empty',
  );

  const client = new Redis(server.url, { commandTimeout: 200 });
  client.on('error', () => {}); // reconnection noise while the server is down
  t.after(() => client.disconnect());
  await client.set('k', 'v');
  assert.equal(await client.get('k'), 'v');
  assert.equal(await server.commandCalls('set'), 1);
  assert.equal(await server.commandCalls('get'), 1);
  assert.equal(await server.commandCalls('never_ran'), 0);

  server.pause();
  await assert.rejects(client.get('k'), /timed out/i);
  server.resume();
  assert.equal(await client.get('k'), 'v');

  const firstPid = server.pid;
  await server.kill();
  assert.equal(await refused(server.port), true);
  await server.restart();
  assert.notEqual(server.pid, firstPid);
  await ready(client);
  assert.equal(await client.get('k'), null, 'the restarted server is empty');
  await client.set('k', 'again');
  assert.equal(await client.get('k'), 'again');

  await server.stop();
  await server.stop();
  assert.equal(await refused(server.port), true);
});

test('PrivateRedis: stop() ends a paused server', async (t) => {
  const server = await PrivateRedis.start();
  t.after(() => server.stop());
  server.pause();
  await server.stop();
  assert.equal(await refused(server.port), true);
});

test('deleteKeys removes exactly the keys under its prefix on the shared Redis', async (t) => {
  // A glob character in the label: unescaped, `test:a*b:<hex>:*` would also match the decoy.
  const doomed = randomPrefix('a*b');
  const kept = randomPrefix('a*b');
  const decoy = doomed.replace('a*b', 'aZZb');
  t.after(async () => {
    for (const prefix of [doomed, kept, decoy]) await deleteKeys(SHARED_REDIS_URL, prefix);
  });

  await withRedis(SHARED_REDIS_URL, async (redis) => {
    const pipeline = redis.pipeline();
    // More keys than one SCAN page / UNLINK batch (COUNT 1000).
    for (let i = 0; i < 2500; i++) pipeline.set(`${doomed}${i}`, 'x');
    pipeline.set(`${doomed}nested:key`, 'x');
    pipeline.set(`${kept}1`, 'x');
    pipeline.set(`${kept}2`, 'x');
    pipeline.set(`${decoy}1`, 'x');
    await pipeline.exec();
  });

  assert.equal(await deleteKeys(SHARED_REDIS_URL, doomed), 2501);
  await withRedis(SHARED_REDIS_URL, async (redis) => {
    assert.equal(await redis.exists(`${doomed}0`, `${doomed}2499`, `${doomed}nested:key`), 0);
    assert.equal(await redis.exists(`${kept}1`, `${kept}2`, `${decoy}1`), 3);
  });
  assert.equal(await deleteKeys(SHARED_REDIS_URL, doomed), 0);
  assert.equal(await deleteKeys(SHARED_REDIS_URL, kept), 2);
  assert.equal(await deleteKeys(SHARED_REDIS_URL, decoy), 1);
});

test('startMonitor records the commands that touch its prefix, one entry per command', async (t) => {
  const prefix = randomPrefix('monitor');
  const log = await startMonitor(SHARED_REDIS_URL, prefix);
  t.after(() => log.stop());
  assert.deepEqual(log.commands(), [], 'the readiness marker is cleared');

  const client = new Redis(SHARED_REDIS_URL);
  t.after(() => client.disconnect());
  await client.mget(`${prefix}a`, `${prefix}b`, `${prefix}c`);
  await client.get(`${randomPrefix('monitor_other')}x`);
  await client.publish(`${prefix}events`, 'hello');
  // MONITOR escapes arguments; the log shows them as sent.
  const awkward = `${prefix}é "quoted" back\\slash\nnewline\u0000nul`;
  await client.set(awkward, 'x " y');
  t.after(() => deleteKeys(SHARED_REDIS_URL, prefix));
  await log.settle();

  assert.deepEqual(log.commands('mget'), [{ name: 'mget', args: [`${prefix}a`, `${prefix}b`, `${prefix}c`] }]);
  assert.deepEqual(log.commands('MGET'), log.commands('mget'));
  assert.deepEqual(log.commands('publish'), [{ name: 'publish', args: [`${prefix}events`, 'hello'] }]);
  assert.deepEqual(log.commands('set'), [{ name: 'set', args: [awkward, 'x " y'] }]);
  assert.deepEqual(
    log.commands().map((command) => command.name),
    ['mget', 'publish', 'set'],
    'nothing from other prefixes',
  );

  log.clear();
  assert.deepEqual(log.commands(), []);
});

test('PrivateRedisCluster: a Cluster client spreads keys over all three masters', async (t) => {
  const startedAt = performance.now();
  const cluster = await PrivateRedisCluster.start(3);
  t.after(() => cluster.stop());
  t.diagnostic(`cluster of 3 up in ${Math.round(performance.now() - startedAt)} ms`);
  assert.equal(cluster.nodes.length, 3);
  assert.equal(new Set(cluster.urls).size, 3);

  const client = new Cluster(cluster.urls.map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) })));
  t.after(() => client.disconnect());

  // Keys until every master owns at least two, found by the slot each key hashes to (as the
  // cluster itself computes it).
  const prefix = randomPrefix('cluster');
  const keysByMaster = new Map<string, string[]>(cluster.urls.map((url) => [url, []]));
  const firstNode = cluster.urls[0] ?? '';
  for (let i = 0; [...keysByMaster.values()].some((keys) => keys.length < 2); i++) {
    const key = `${prefix}${i}`;
    const slot = await withRedis(firstNode, (redis) => redis.cluster('KEYSLOT', key));
    keysByMaster.get(await cluster.masterOfSlot(slot))?.push(key);
  }

  for (const keys of keysByMaster.values()) {
    for (const key of keys) await client.set(key, `value of ${key}`);
  }
  for (const [url, keys] of keysByMaster) {
    for (const key of keys) assert.equal(await client.get(key), `value of ${key}`);
    // Each key really lives on the master masterOfSlot named (anywhere else a plain GET is
    // answered MOVED; one GET per key as MGET over different slots is CROSSSLOT even on one
    // node), and each SET went there exactly once.
    const direct = await withRedis(url, (redis) => Promise.all(keys.map((key) => redis.get(key))));
    assert.deepEqual(
      direct,
      keys.map((key) => `value of ${key}`),
    );
    const node = cluster.nodes.find((candidate) => candidate.url === url);
    assert.equal(await node?.commandCalls('set'), keys.length);
  }
});
