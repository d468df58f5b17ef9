// The list scenario's data: a workspace of many links written straight into Postgres with a few
// INSERT … SELECT FROM generate_series statements, about 50k links/s (POST /links took 5.9k
// creates/s at 400 connections in the create scenario the same day: nearly 3 minutes a million),
// shaped like a real workspace's: alias-shaped codes, targets of 55–120 characters (85 on
// average) with paths and query strings, titles on 40 % and tags on 60 % (words and tags drawn
// with a Zipf-like skew, so that searches and filters meet common and rare values), 20 creator
// keys, 3 % disabled, 10 % with an expiry (half of them past), two years of creation dates in
// insertion order, and skewed click totals. The codes ('l-1', 'l-2', …) hold a hyphen: aliases of
// letters and digits alone would be logged for the code space (migrations/0002), which every
// instance reads at start.
//
// The link list's indexes (those of migrations/0006_link_list.sql on links and link_totals) are
// dropped before the load and built after it, each of the migration's own CREATE INDEX statements
// timed: how long the migration holds writes to links per million links (README, "Upgrading").
// The click totals are written by a statement of their own shaped like the migration's copy (and
// timed apart), with skewed counts, instead of by the trigger that adds them with each link.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { createApiKey } from '../src/auth/api-keys.ts';
import { MIGRATIONS_DIR } from '../src/db/migrate.ts';
import { withClient } from '../test/helpers/db.ts';
import { DOMAINS, SECTIONS, SOURCES, TAGS, WORDS } from './list-words.ts';
import type { IndexBuild, ListSeeding } from './types.ts';

export const LIST_WORKSPACE_ID = 1;
const CREATORS = 20;
const LIST_MIGRATION = '0006_link_list.sql';

/** What the benchmark needs to know of the seeded data. */
export interface SeededList {
  readonly links: number;
  /** Creator key ids, most prolific first. */
  readonly creators: readonly number[];
  readonly seeding: ListSeeding;
}

/**
 * The link list's index statements in the migration, in its order: every CREATE INDEX on links
 * or link_totals, as written there.
 */
export async function listIndexStatements(): Promise<{ name: string; table: string; sql: string }[]> {
  const text = await readFile(join(MIGRATIONS_DIR, LIST_MIGRATION), 'utf8');
  const found = [...text.matchAll(/^CREATE INDEX (?:CONCURRENTLY )?(?:IF NOT EXISTS )?(\w+) ON (\w+)\b[^;]*;/gm)];
  return found
    .map(([sql, name, table]) => ({ name: name ?? '', table: table ?? '', sql }))
    .filter((index) => index.table === 'links' || index.table === 'link_totals');
}

/**
 * Draws an element of the array parameter `param` with P(rank k) ∝ about 1/k when `skew` is 1
 * (log-uniform ranks), steeper above 1. `random()` is evaluated per row.
 */
const pick = (param: string, skew: number) =>
  `(${param})[floor(power(cardinality(${param}) + 1, ${skew === 1 ? 'random()' : `power(random(), ${skew})`}))::int]`;

// $1 links, $2 words, $3 tags, $4 domains, $5 sections, $6 sources, $7 creator key ids.
// OFFSET 0 keeps the inner query apart, so that each of its random() columns is drawn once per row.
const INSERT_LINKS = `
INSERT INTO links (workspace_id, code, url, title, tags, owner_key_id, disabled, expires_at, created_at)
SELECT ${LIST_WORKSPACE_ID}, 'l-' || i,
  'https://' || domain || '/' || section || '/' || to_char(created, 'YYYY') || '/' || slug || '?id=' || substr(md5(i::text), 1, 10)
    || CASE WHEN r_utm < 0.5 THEN '&utm_source=' || source || '&utm_campaign=' || campaign ELSE '' END,
  CASE WHEN r_title < 0.4 THEN initcap(t1) || ' ' || t2 || ' ' || t3 || CASE WHEN r_long < 0.5 THEN ' ' || t4 ELSE '' END END,
  CASE WHEN r_tags < 0.6
    THEN ARRAY(SELECT DISTINCT ${pick('$3::text[]', 2)} FROM generate_series(0, floor(r_tags / 0.2)::int))
    ELSE '{}' END,
  CASE WHEN r_owner < 0.85 THEN ${pick('$7::bigint[]', 1)} END,
  r_state < 0.03,
  CASE WHEN r_state >= 0.03 AND r_state < 0.08 THEN created + (now() - created) * random()
       WHEN r_state >= 0.08 AND r_state < 0.13 THEN now() + random() * interval '365 days' END,
  created
FROM (
  SELECT i, now() - interval '730 days' * (1 - i::float8 / $1) - random() * interval '1 hour' AS created,
    random() AS r_utm, random() AS r_title, random() AS r_long, random() AS r_tags, random() AS r_owner, random() AS r_state,
    ${pick('$4::text[]', 1)} AS domain, ${pick('$5::text[]', 1)} AS section,
    ${pick('$2::text[]', 1.2)} || '-' || ${pick('$2::text[]', 1.2)} AS slug,
    ${pick('$6::text[]', 1)} AS source, ${pick('$2::text[]', 1.2)} AS campaign,
    ${pick('$2::text[]', 1.5)} AS t1, ${pick('$2::text[]', 1.5)} AS t2, ${pick('$2::text[]', 1.5)} AS t3, ${pick('$2::text[]', 1.5)} AS t4
  FROM generate_series(1, $1::int) AS i
  OFFSET 0
) AS drawn`;

// The migration's copy of the click totals (one row per link), with skewed counts: 30 % of links
// never clicked, the others from a Pareto distribution (α 1.2: median 1, p99 about 90, a few in the
// hundreds of thousands), a tenth of them or less by bots.
const COPY_TOTALS = `
INSERT INTO link_totals (code, workspace_id, clicks, bot_clicks)
SELECT code, workspace_id, clicks, floor(clicks * 0.1 * random())
FROM (
  SELECT code, workspace_id,
    CASE WHEN random() < 0.7 THEN least(floor(2 * power(1 - random(), -1 / 1.2)) - 2, 1e9)::bigint ELSE 0 END AS clicks
  FROM links
  OFFSET 0
) AS drawn`;

async function timed(client: pg.Client, sql: string, values?: unknown[]): Promise<number> {
  const t0 = performance.now();
  await client.query(sql, values);
  return (performance.now() - t0) / 1000;
}

const seconds = (s: number) => Math.round(s * 100) / 100;

/** Seeds `count` links into the workspace of a freshly migrated database; `log` tells the steps. */
export async function seedList(databaseUrl: string, count: number, log: (line: string) => void): Promise<SeededList> {
  const indexes = await listIndexStatements();
  if (indexes.length === 0) throw new Error(`no CREATE INDEX on links or link_totals in migrations/${LIST_MIGRATION}`);
  return withClient(databaseUrl, async (client) => {
    const creators: number[] = [];
    for (let k = 1; k <= CREATORS; k++) {
      creators.push((await createApiKey(client, { name: `creator ${k}`, role: 'member', workspaceId: LIST_WORKSPACE_ID })).id);
    }
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    // The totals are copied below as the migration copies them; the trigger would write them row by row.
    await client.query('ALTER TABLE links DISABLE TRIGGER links_add_totals');
    const linksSeconds = await timed(client, INSERT_LINKS, [count, WORDS, TAGS, DOMAINS, SECTIONS, SOURCES, creators]);
    const totalsSeconds = await timed(client, COPY_TOTALS);
    await client.query('ALTER TABLE links ENABLE TRIGGER links_add_totals');
    log(
      `list: seeded ${count.toLocaleString('en-US')} links in ${linksSeconds.toFixed(1)} s, their totals in ${totalsSeconds.toFixed(1)} s`,
    );

    const builds: IndexBuild[] = [];
    for (const index of indexes) {
      const took = await timed(client, index.sql);
      const size = await client.query<{ bytes: string }>('SELECT pg_relation_size($1::regclass) AS bytes', [index.name]);
      builds.push({ name: index.name, table: index.table, seconds: seconds(took), bytes: Number(size.rows[0]?.bytes ?? 0) });
      log(`list: CREATE INDEX ${index.name} took ${took.toFixed(2)} s`);
    }
    const vacuumSeconds = await timed(client, 'VACUUM ANALYZE links, link_totals, workspace_tags');
    const settings = await client.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['server_version', 'maintenance_work_mem',
         'max_parallel_maintenance_workers', 'shared_buffers', 'work_mem']) AS name`,
    );
    const sizes = await client.query<{ links: string; totals: string }>(
      `SELECT pg_total_relation_size('links') AS links, pg_total_relation_size('link_totals') AS totals`,
    );
    return {
      links: count,
      creators,
      seeding: {
        linksSeconds: seconds(linksSeconds),
        totalsSeconds: seconds(totalsSeconds),
        linksPerSecond: Math.round(count / linksSeconds),
        indexes: builds,
        indexSeconds: seconds(builds.reduce((sum, b) => sum + b.seconds, 0)),
        vacuumSeconds: seconds(vacuumSeconds),
        linksBytes: Number(sizes.rows[0]?.links ?? 0),
        totalsBytes: Number(sizes.rows[0]?.totals ?? 0),
        postgres: Object.fromEntries(settings.rows.map((row) => [row.name, row.setting])),
      },
    };
  });
}
