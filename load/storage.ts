// The `storage` scenario's probes: what a link costs in Postgres and in Redis once the service has
// written it (the suite seeds through POST /links; creates write through to Redis under the run's
// key prefix), and what clicks add (rows of link_clicks_daily, counts updated in `link_totals`).
// In Postgres a link is a row of `links` and, since migrations/0005, a row of `link_totals` (its
// click totals, written by a trigger with the link): both are sized, apart.
// What click analytics adds (migrations/0009): rows of click_rollups (per link, day, dimension
// and value) and of workspace_rollups, after one click per link and after twenty from varied
// visitors; both tables (and link_clicks_daily, since 0010) are partitioned by month, so they are
// sized as the sum of their partitions (pg_inherits), less what they held before the clicks.
// Postgres sizes come after VACUUM ANALYZE; Redis is measured key by key with MEMORY
// USAGE (the suite's Redis is shared, so used_memory there says nothing about this run), and again
// on a private redis-server, where used_memory also shows what MEMORY USAGE leaves out: the dict
// buckets and a TTL's entry in the expires dict.

import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainableCommander } from 'ioredis';
import type pg from 'pg';
import { loadConfig } from '../src/config/config.ts';
import { withClient } from '../test/helpers/db.ts';
import { PrivateRedis, scanKeys, withRedis } from '../test/helpers/redis.ts';
import type { AnalyticsStorage, GrownTable, PartitionedSize, PostgresStorage, RedisStorage, TableSize } from './types.ts';

/** Commands per pipeline: each one stays small on a Redis that others use. */
const CHUNK = 1000;

/**
 * `links` and `link_totals` as the seeding left them: run before any click, whose counts UPDATE
 * link_totals. Dead tuples and stale statistics would make the figures drift from run to run, hence VACUUM.
 */
export async function linksStorage(
  databaseUrl: string,
): Promise<Omit<PostgresStorage, 'clickRows' | 'clickBytesPerRow' | 'clickedHeapBytesPerLink' | 'clickedTotals'>> {
  return withClient(databaseUrl, async (client) => {
    await client.query('VACUUM ANALYZE links, link_totals');
    const row = await one<{ links: string; url: string | null; total: string; heap: string; indexes: string }>(
      client,
      `SELECT (SELECT count(*) FROM links) AS links, (SELECT avg(octet_length(url)) FROM links) AS url,
              pg_total_relation_size('links') AS total, pg_relation_size('links') AS heap, pg_indexes_size('links') AS indexes`,
    );
    const links = Number(row.links);
    const byName = await client.query<{ name: string; bytes: string }>(
      `SELECT indexrelid::regclass::text AS name, pg_relation_size(indexrelid) AS bytes
       FROM pg_index WHERE indrelid = 'links'::regclass ORDER BY 1`,
    );
    const totals = await tableSize(client, 'link_totals', links);
    return {
      links,
      urlBytes: Math.round(Number(row.url ?? 0) * 10) / 10,
      totalBytes: Number(row.total),
      heapBytes: Number(row.heap),
      indexBytes: Number(row.indexes),
      bytesPerLink: per(row.total, links),
      heapBytesPerLink: per(row.heap, links),
      indexBytesPerLink: per(row.indexes, links),
      indexBytesPerLinkByName: Object.fromEntries(byName.rows.map((index) => [index.name, per(index.bytes, links)])),
      totals,
      allBytesPerLink: per(row.total, links) + totals.bytesPerLink,
    };
  });
}

/**
 * After clicks: link_clicks_daily (table and key) per row, the heap of `links` per link (clicks no
 * longer write to it), and link_totals per link, where the click counts are written.
 */
export async function clicksStorage(
  databaseUrl: string,
): Promise<Pick<PostgresStorage, 'clickRows' | 'clickBytesPerRow' | 'clickedHeapBytesPerLink' | 'clickedTotals'>> {
  return withClient(databaseUrl, async (client) => {
    await client.query('VACUUM ANALYZE links, link_totals, link_clicks_daily');
    const row = await one<{ links: string; heap: string }>(
      client,
      `SELECT (SELECT count(*) FROM links) AS links, pg_relation_size('links') AS heap`,
    );
    const daily = await partitionedSize(client, 'link_clicks_daily');
    const clickRows = daily.rows;
    const links = Number(row.links);
    return {
      clickRows,
      clickBytesPerRow: clickRows === 0 ? null : per(String(daily.bytes), clickRows),
      clickedHeapBytesPerLink: per(row.heap, links),
      clickedTotals: await tableSize(client, 'link_totals', links),
    };
  });
}

/** The tables analytics writes with the click counts: the rollups, and the daily counts beside them. */
const CLICK_TABLES = ['click_rollups', 'workspace_rollups', 'link_clicks_daily'] as const;
type ClickTable = (typeof CLICK_TABLES)[number];
export type ClickTableSizes = Readonly<Record<ClickTable, PartitionedSize>>;

/** The rows and bytes of the click tables now: before any click, the floor that analyticsStorage subtracts. */
export async function clickTableSizes(databaseUrl: string): Promise<ClickTableSizes> {
  return withClient(databaseUrl, async (client) => {
    await client.query(`VACUUM ANALYZE ${CLICK_TABLES.join(', ')}`);
    const sizes: Partial<Record<ClickTable, PartitionedSize>> = {};
    for (const table of CLICK_TABLES) sizes[table] = await partitionedSize(client, table);
    return sizes as ClickTableSizes;
  });
}

/**
 * What `links` clicked links cost in the click tables since `before` (their sizes before any
 * click), each clicked `clicksPerLink` times on one UTC day: per clicked link and day.
 */
export async function analyticsStorage(
  databaseUrl: string,
  before: ClickTableSizes,
  links: number,
  clicksPerLink: number,
): Promise<AnalyticsStorage> {
  const now = await clickTableSizes(databaseUrl);
  const grown = (table: ClickTable): GrownTable => {
    const rows = now[table].rows - before[table].rows;
    const bytes = now[table].bytes - before[table].bytes;
    const indexBytes = now[table].indexBytes - before[table].indexBytes;
    return {
      rows,
      bytes,
      indexBytes,
      rowsPerLink: Math.round((rows / Math.max(1, links)) * 100) / 100,
      bytesPerLink: Math.round(bytes / Math.max(1, links)),
      indexBytesPerLink: Math.round(indexBytes / Math.max(1, links)),
    };
  };
  // Every click is counted in its link's own row (dimension 0).
  const clicks = await withClient(databaseUrl, async (client) =>
    Number(
      (await one<{ n: string }>(client, 'SELECT coalesce(sum(clicks + bot_clicks), 0) AS n FROM click_rollups WHERE dimension = 0')).n,
    ),
  );
  const clickRollups = grown('click_rollups');
  const workspaceRollups = grown('workspace_rollups');
  const clicksDaily = grown('link_clicks_daily');
  return {
    links,
    clicksPerLink,
    clicks,
    clickRollups,
    workspaceRollups,
    clicksDaily,
    analyticsBytesPerLink: clickRollups.bytesPerLink + workspaceRollups.bytesPerLink,
    allBytesPerLink: clickRollups.bytesPerLink + workspaceRollups.bytesPerLink + clicksDaily.bytesPerLink,
  };
}

/**
 * A table partitioned by month: the rows, and pg_total_relation_size (heap, TOAST, indexes) and
 * pg_indexes_size of every partition, the parent having no storage of its own.
 */
async function partitionedSize(client: pg.Client, parent: string): Promise<PartitionedSize> {
  const row = await one<{ rows: string; bytes: string; indexes: string }>(
    client,
    `SELECT (SELECT count(*) FROM ${parent}) AS rows, coalesce(sum(pg_total_relation_size(inhrelid)), 0) AS bytes,
            coalesce(sum(pg_indexes_size(inhrelid)), 0) AS indexes
     FROM pg_inherits WHERE inhparent = '${parent}'::regclass`,
  );
  return { rows: Number(row.rows), bytes: Number(row.bytes), indexBytes: Number(row.indexes) };
}

/** A table's size (after the caller's VACUUM ANALYZE), per link of `links`. */
async function tableSize(client: pg.Client, table: 'link_totals', links: number): Promise<TableSize> {
  const row = await one<{ rows: string; total: string; heap: string; indexes: string }>(
    client,
    `SELECT (SELECT count(*) FROM ${table}) AS rows, pg_total_relation_size('${table}') AS total,
            pg_relation_size('${table}') AS heap, pg_indexes_size('${table}') AS indexes`,
  );
  return {
    rows: Number(row.rows),
    totalBytes: Number(row.total),
    bytesPerLink: per(row.total, links),
    heapBytesPerLink: per(row.heap, links),
    indexBytesPerLink: per(row.indexes, links),
  };
}

async function one<T extends object>(client: pg.Client, sql: string): Promise<T> {
  const row = (await client.query<T>(sql)).rows[0];
  if (row === undefined) throw new Error(`no row from: ${sql}`);
  return row;
}

const per = (bytes: string, n: number): number => Math.round(Number(bytes) / Math.max(1, n));

/** The run's link keys on the suite's Redis (under `prefix`), then the same values on a private server. */
export async function redisStorage(redisUrl: string, prefix: string): Promise<RedisStorage> {
  const entries: [string, string][] = [];
  let usage = 0;
  let withTtl = 0;
  let keyBytes = 0;
  await withRedis(redisUrl, async (redis) => {
    const seen = new Set<string>();
    await scanKeys(redis, `${prefix}link:`, async (found) => {
      // SCAN may return a key twice.
      const keys = found.filter((key) => !seen.has(key));
      for (const key of keys) seen.add(key);
      if (keys.length === 0) return;
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0').pttl(key).get(key);
      const replies = (await pipeline.exec()) ?? [];
      keys.forEach((key, i) => {
        const [bytes, ttl, value] = [0, 1, 2].map((k) => replies[3 * i + k]?.[1]);
        // A key gone between SCAN and the pipeline (expired) is left out.
        if (typeof bytes !== 'number' || typeof value !== 'string') return;
        usage += bytes;
        if (typeof ttl === 'number' && ttl > 0) withTtl++;
        keyBytes += key.length;
        entries.push([key.slice(prefix.length), value]);
      });
    });
  });
  const keys = entries.length;
  const mean = (total: number) => Math.round(total / Math.max(1, keys));
  return {
    keys,
    keysWithTtl: withTtl,
    keyBytes: mean(keyBytes),
    valueBytes: mean(entries.reduce((sum, [, value]) => sum + value.length, 0)),
    memoryUsagePerKey: mean(usage),
    private: keys === 0 ? null : await privateServerFigures(entries),
  };
}

/**
 * On a redis-server of its own (nothing else allocates there): used_memory before and after
 * writing the entries under the default key prefix, after giving each a TTL, and after writing as
 * many negative entries (empty values with a TTL, in database 1). null if redis-server cannot start.
 */
async function privateServerFigures(entries: readonly [string, string][]): Promise<RedisStorage['private']> {
  const config = loadConfig({});
  const keyPrefix = config.redisKeyPrefix;
  let server: PrivateRedis;
  try {
    server = await PrivateRedis.start();
  } catch (err) {
    console.error(`storage: no private redis-server (${err instanceof Error ? err.message : String(err)}); only MEMORY USAGE is measured`);
    return null;
  }
  try {
    const write = (db: number, command: (pipeline: ChainableCommander, key: string, value: string) => void) =>
      withRedis(`${server.url}/${db}`, async (redis) => {
        for (let i = 0; i < entries.length; i += CHUNK) {
          const pipeline = redis.pipeline();
          for (const [name, value] of entries.slice(i, i + CHUNK)) command(pipeline, keyPrefix + name, value);
          await pipeline.exec();
        }
      });
    const before = await settledMemory(server);
    await write(0, (p, key, value) => p.set(key, value));
    const plain = await settledMemory(server);
    await write(0, (p, key) => p.pexpire(key, config.redisTtlMs));
    const expiring = await settledMemory(server);
    // The TTL does not change the size; a long one keeps the entries until they are counted.
    await write(1, (p, key) => p.set(key, '', 'PX', config.redisTtlMs));
    const negative = await settledMemory(server);
    const perKey = (bytes: number) => Math.round(bytes / entries.length);
    return {
      keyPrefix,
      bytesPerKey: perKey(plain - before),
      ttlBytesPerKey: perKey(expiring - plain),
      negativeBytesPerKey: perKey(negative - expiring),
    };
  } finally {
    await server.stop();
  }
}

/**
 * used_memory once it holds still: a dict that grew is rehashed incrementally (by the server's
 * cron, 1 ms every 100 ms), and frees its old table only when done.
 */
async function settledMemory(server: PrivateRedis): Promise<number> {
  const read = async () => Number((await server.info('memory')).used_memory);
  let last = await read();
  let still = 0;
  for (let polls = 0; polls < 100 && still < 5; polls++) {
    await sleep(100);
    const now = await read();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}
