// Click analytics written to Postgres (migrations/0009_analytics.sql): the rollups per link and per
// workspace and the orphan visits, written by the click flusher after the click counts (one
// statement for the orphan visits, one for the workspaces' rows of the whole batch, added up in the
// service, then one transaction per chunk of the links' rows); the daily salts; the partitions.

import type pg from 'pg';
import type { ShortCode } from '../core/codes.ts';
import { linkKey, splitKey, type LinkKey } from '../core/domains.ts';
import { WorkspaceRows, type Orphans, type RollupBatch, type RollupRows } from './rollups.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';

export interface RollupLimits {
  /** Most values per link, day and dimension (ANALYTICS_VALUES_MAX). */
  readonly valuesMax: number;
  /** Most values per workspace, day and dimension. */
  readonly workspaceValuesMax: number;
}

/** A busy minute's rollups take Postgres seconds: more than a redirect's lookup may wait. */
const ROLLUP_STATEMENT_TIMEOUT_MS = 120_000;
/**
 * How long the client waits for a rollup statement's answer: past the server's own cancel (the
 * pool's query_timeout, BREAKER_TIMEOUT_MS, is a lookup's, and would give up on a chunk that
 * Postgres takes seconds over, and throw that work away).
 */
const ROLLUP_READ_TIMEOUT_MS = ROLLUP_STATEMENT_TIMEOUT_MS + 5000;

/**
 * Runs `work` in a transaction of the rollups': their statement timeout, waited for up to
 * ROLLUP_READ_TIMEOUT_MS (rollupQuery), after the click counts were committed apart (a slow or
 * failed rollup write never holds back nor loses a count).
 */
async function inRollupTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  await inTransaction(pool, async (client) => {
    // One round trip. The rollups' sorts and hashes stay in memory (a busy flush's would spill past
    // the 4 MB default). No JIT: a chunk's statement runs once, and where Postgres's estimates
    // cross jit_above_cost compiling it costs tens of ms; these statements' stay under it, so this
    // is a guard, not a gain (load/enrich-bench.ts gave the same Postgres CPU with it and without:
    // docs/performance.md#click-analytics-what-they-cost-the-hot-path).
    await client.query(`SET LOCAL statement_timeout = ${ROLLUP_STATEMENT_TIMEOUT_MS}; SET LOCAL work_mem = '64MB'; SET LOCAL jit = off`);
    await work(client);
  });
}

/**
 * Adds one chunk of the links' rollup rows (analytics/rollups.ts) in a transaction of its own. The
 * click flusher writes a batch chunk by chunk, paced by ANALYTICS_WRITE_SHARE (analytics/click-flusher.ts),
 * after their workspaces' rows (addWorkspaceRollups).
 */
export async function addRollupChunk(pool: pg.Pool, rows: RollupRows, limits: RollupLimits): Promise<void> {
  if (rows.length === 0) return;
  await inRollupTransaction(pool, (client) => rollupQuery(client, ADD_ROLLUPS, [...chunkParameters(rows), limits.valuesMax]));
}

/**
 * Adds the rows of `chunks` (those not added yet) up per workspace, day, dimension and value, in
 * the service (WorkspaceRows), and writes them in one statement, each workspace within its bound;
 * then marks the chunks, so that a chunk put back after a later failure is not added twice. The
 * links' workspaces are read in one query first.
 */
export async function addWorkspaceRollups(pool: pg.Pool, chunks: readonly RollupRows[], limits: RollupLimits): Promise<void> {
  const pending = chunks.filter((chunk) => !chunk.workspacesAdded && chunk.length > 0);
  if (pending.length === 0) return;
  // Each link once: a chunk's rows of a link stand together, and a link may be in several chunks.
  const links = new Map<LinkKey, number | undefined>();
  for (const chunk of pending) {
    for (let row = 0; row < chunk.length; row++) {
      if (row > 0 && chunk.codes[row] === chunk.codes[row - 1] && chunk.domainIds[row] === chunk.domainIds[row - 1]) continue;
      links.set(linkKey(chunk.domainIds[row] as number, chunk.codes[row] as ShortCode), undefined);
    }
  }
  const keys = [...links.keys()];
  const parts = keys.map(splitKey);
  await inRollupTransaction(pool, async (client) => {
    const { rows: found } = await client.query<{ n: string; workspace_id: string }>(
      `SELECT i.n, t.workspace_id FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS i (domain_id, code, n)
       JOIN link_totals t ON t.domain_id = i.domain_id AND t.code = i.code`,
      [numberArray(parts.map((key) => key.domainId)), textArray(parts.map((key) => key.code))],
    );
    for (const { n, workspace_id } of found) links.set(keys[Number(n) - 1] as LinkKey, Number(workspace_id));
    const rows = WorkspaceRows.of(pending, (domainId, code) => links.get(linkKey(domainId, code as ShortCode)));
    if (rows.length > 0) {
      await rollupQuery(client, ADD_WORKSPACE_ROLLUPS, [
        numberArray(rows.workspaceIds),
        `{${rows.days.join(',')}}`,
        numberArray(rows.dimensions),
        textArray(rows.values),
        numberArray(rows.clicks),
        numberArray(rows.bots),
        textArray(rows.sketches),
        limits.workspaceValuesMax,
      ]);
    }
  });
  for (const chunk of pending) chunk.workspacesAdded = true;
}

/** Adds a batch's visits to unknown codes, at most `valuesMax` paths per domain and day (the rest under ''), in one statement of the rollups'. */
export async function addOrphanVisits(pool: pg.Pool, orphans: Orphans, valuesMax: number): Promise<void> {
  const domains: number[] = [];
  const days: string[] = [];
  const paths: string[] = [];
  const visits: number[] = [];
  for (const [day, byDomain] of orphans) {
    for (const [domainId, byPath] of byDomain) {
      for (const [path, count] of byPath) {
        domains.push(domainId);
        days.push(day);
        paths.push(path);
        visits.push(count);
      }
    }
  }
  if (domains.length === 0) return;
  await inRollupTransaction(pool, (client) => rollupQuery(client, ADD_ORPHANS, [domains, days, paths, visits, valuesMax]));
}

/** A whole batch, as the click flusher writes it but without pauses: its orphan visits, its workspaces' rows, then each chunk in a transaction of its own. */
export async function addRollupBatch(pool: pg.Pool, rollups: RollupBatch, limits: RollupLimits): Promise<void> {
  await addOrphanVisits(pool, rollups.orphans, limits.valuesMax);
  await addWorkspaceRollups(pool, rollups.chunks, limits);
  for (const chunk of rollups.chunks) await addRollupChunk(pool, chunk, limits);
}

/** `a.x = b.x AND …` for each of `names`. */
function sameColumns(a: string, b: string, names: readonly string[]): string {
  return names.map((name) => `${a}.${name} = ${b}.${name}`).join(' AND ');
}

/**
 * The rows of `from` (those `where` keeps) added up per `columns`: clicks summed, sketches
 * appended (hll_concat) and merged once past 4096 elements.
 */
function addedUp(from: string, columns: string, where = 'true'): string {
  return `SELECT ${columns}, clicks, bot_clicks, CASE WHEN cardinality(visitors) > 4096 THEN hll_merge(visitors, '{}') ELSE visitors END AS visitors
    FROM (
      SELECT ${columns}, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks, hll_concat(visitors) AS visitors
      FROM ${from} WHERE ${where} GROUP BY ${columns}
    ) AS added`;
}

/**
 * The CTEs that place each row of CTE `from` (one row per owner, day, dimension and value) in
 * `table` (owned by the `owner` columns), as CTE `${name}`: a value already stored for its row
 * keeps its place; a new one takes one while fewer than `limit` are stored (the most clicked
 * first), and is counted under '' (other) past it; the rows that went to '' are added up
 * (addedUp).
 *
 * The stored values are read once per (owner, day, dimension) the input names, by an index range
 * scan each (the aggregate keeps the subquery a nested loop): probing each row instead makes
 * Postgres hash the whole month's partition for every statement (EXPLAIN ANALYZE of
 * load/enrich-bench.ts's flushes: docs/performance.md#click-analytics-what-they-cost-the-hot-path).
 */
function placed(name: string, from: string, table: string, owner: readonly string[], limit: string): string {
  const group = [...owner, 'day', 'dimension'];
  const list = group.join(', ');
  const ofInput = group.map((column) => `i.${column}`).join(', ');
  return `
  ${name}_groups AS MATERIALIZED (
    SELECT g.*, s.values, s.n FROM (SELECT DISTINCT ${list} FROM ${from}) AS g
    CROSS JOIN LATERAL (
      SELECT coalesce(array_agg(value), '{}') AS values, count(*) FILTER (WHERE value <> '') AS n
      FROM ${table} s WHERE ${sameColumns('s', 'g', group)}
    ) AS s
  ), ${name}_probed AS (
    SELECT i.*, i.value = '' OR i.value = ANY (g.values) AS stored, g.n
    FROM ${from} i JOIN ${name}_groups g ON ${sameColumns('g', 'i', group)}
  ), ${name}_placed AS (
    SELECT ${list}, value, clicks, bot_clicks, visitors FROM ${name}_probed WHERE stored
    UNION ALL
    SELECT ${ofInput},
      CASE WHEN i.n + row_number() OVER (PARTITION BY ${ofInput} ORDER BY i.clicks + i.bot_clicks DESC, i.value) <= ${limit}
           THEN i.value ELSE '' END,
      i.clicks, i.bot_clicks, i.visitors
    FROM ${name}_probed i WHERE NOT i.stored
  ), ${name} AS (
    SELECT ${list}, value, clicks, bot_clicks, visitors FROM ${name}_placed WHERE value <> ''
    UNION ALL
    ${addedUp(`${name}_placed`, `${list}, value`, "value = ''")}
  )`;
}

// One statement per chunk for the links' rollups (the chunk's arrays parsed and its links looked up
// once). A chunk names a (link, day, dimension, value) once (analytics/rollups.ts): a later
// chunk's row for it meets the stored one (the chunk before's, committed) and is added to it.
const ADD_ROLLUPS = `
  WITH input AS MATERIALIZED (
    SELECT i.domain_id, i.code, i.day, i.dimension, i.value, i.clicks, i.bot_clicks, i.visitors::integer[] AS visitors
    FROM unnest($1::bigint[], $2::text[], $3::date[], $4::smallint[], $5::text[], $6::bigint[], $7::bigint[], $8::text[])
      AS i (domain_id, code, day, dimension, value, clicks, bot_clicks, visitors)
    JOIN link_totals t ON t.domain_id = i.domain_id AND t.code = i.code
  ), ${placed('link_values', 'input', 'click_rollups', ['domain_id', 'code'], '$9')}
  INSERT INTO click_rollups AS r (domain_id, code, day, dimension, value, clicks, bot_clicks, visitors)
  SELECT domain_id, code, day, dimension, value, clicks, bot_clicks, visitors FROM link_values
  ORDER BY domain_id, code, day, dimension, value
  ON CONFLICT (domain_id, code, day, dimension, value) DO UPDATE
    SET clicks = r.clicks + excluded.clicks, bot_clicks = r.bot_clicks + excluded.bot_clicks,
        visitors = hll_add(r.visitors, excluded.visitors)`;

// The workspaces' rows of a flush, added up in the service (one per workspace, day, dimension and
// value, each sketch merged): the links' values before these went to '' (each workspace has its
// own bound).
const ADD_WORKSPACE_ROLLUPS = `
  WITH summed AS MATERIALIZED (
    SELECT i.workspace_id, i.day, i.dimension, i.value, i.clicks, i.bot_clicks, i.visitors::integer[] AS visitors
    FROM unnest($1::bigint[], $2::date[], $3::smallint[], $4::text[], $5::bigint[], $6::bigint[], $7::text[])
      AS i (workspace_id, day, dimension, value, clicks, bot_clicks, visitors)
  ), ${placed('workspace_values', 'summed', 'workspace_rollups', ['workspace_id'], '$8')}
  INSERT INTO workspace_rollups AS r (workspace_id, day, dimension, value, clicks, bot_clicks, visitors)
  SELECT workspace_id, day, dimension, value, clicks, bot_clicks, visitors FROM workspace_values
  ORDER BY workspace_id, day, dimension, value
  ON CONFLICT (workspace_id, day, dimension, value) DO UPDATE
    SET clicks = r.clicks + excluded.clicks, bot_clicks = r.bot_clicks + excluded.bot_clicks,
        visitors = hll_add(r.visitors, excluded.visitors)`;

/** A statement of the rollups', waited for up to ROLLUP_READ_TIMEOUT_MS. */
async function rollupQuery(db: pg.PoolClient, text: string, values: unknown[]): Promise<void> {
  // node-postgres reads query_timeout off the query's config before its client's (lib/client.js); @types/pg leaves it out.
  const query: pg.QueryConfig & { query_timeout: number } = { text, values, query_timeout: ROLLUP_READ_TIMEOUT_MS };
  await db.query(query);
}

/**
 * A chunk's columns as array literals, each made in one pass: node-postgres would quote and
 * escape every element of every array.
 */
function chunkParameters(rows: RollupRows): string[] {
  return [
    numberArray(rows.domainIds),
    textArray(rows.codes),
    `{${rows.days.join(',')}}`,
    numberArray(rows.dimensions),
    textArray(rows.values),
    numberArray(rows.clicks),
    numberArray(rows.bots),
    textArray(Array.from({ length: rows.length }, (_, row) => rows.sketchLiteral(row))),
  ];
}

function numberArray(list: readonly number[]): string {
  return `{${list.join(',')}}`;
}

const ESCAPED = /["\\]/g;

/** A text[] literal: every element quoted, its quotes and backslashes escaped. */
function textArray(list: readonly string[]): string {
  let literal = '{';
  for (let i = 0; i < list.length; i++) {
    const text = list[i] as string;
    literal += `${i === 0 ? '' : ','}"${text.includes('"') || text.includes('\\') ? text.replace(ESCAPED, '\\$&') : text}"`;
  }
  return `${literal}}`;
}

const ADD_ORPHANS = `
  WITH input AS (
    SELECT i.domain_id, i.day, i.path, i.visits
    FROM unnest($1::bigint[], $2::date[], $3::text[], $4::bigint[]) AS i (domain_id, day, path, visits)
    JOIN domains d ON d.id = i.domain_id
  ), counted AS (
    SELECT domain_id, day, count(*) AS n FROM orphan_visits
    WHERE (domain_id, day) IN (SELECT domain_id, day FROM input) AND path <> ''
    GROUP BY domain_id, day
  ), placed AS (
    SELECT i.domain_id, i.day, i.visits,
      CASE WHEN i.path = '' OR o.path IS NOT NULL
             OR coalesce(c.n, 0) + row_number() OVER (PARTITION BY i.domain_id, i.day, o.path IS NULL AND i.path <> '' ORDER BY i.visits DESC, i.path) <= $5
           THEN i.path ELSE '' END AS path
    FROM input i
    LEFT JOIN orphan_visits o ON o.domain_id = i.domain_id AND o.day = i.day AND o.path = i.path
    LEFT JOIN counted c ON c.domain_id = i.domain_id AND c.day = i.day
  )
  INSERT INTO orphan_visits AS o (domain_id, day, path, visits)
  SELECT domain_id, day, path, sum(visits) FROM placed GROUP BY domain_id, day, path ORDER BY domain_id, day, path
  ON CONFLICT (domain_id, day, path) DO UPDATE SET visits = o.visits + excluded.visits`;

/** The salt of `day`'s visitor hashes: `fresh` if no instance made one yet, else the one made. */
export async function daySalt(db: Queryable, day: string, fresh: Buffer): Promise<Buffer> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const { rows } = await db.query<{ salt: Buffer }>(
      `WITH made AS (INSERT INTO visitor_salts (day, salt) VALUES ($1, $2) ON CONFLICT (day) DO NOTHING RETURNING salt)
       SELECT salt FROM made UNION ALL SELECT salt FROM visitor_salts WHERE day = $1`,
      [day, fresh],
    );
    // Empty only when another instance's insert committed after this statement's snapshot: ask again.
    if (rows[0] !== undefined) return rows[0].salt;
  }
  throw new Error(`no visitor salt for ${day}`);
}

/**
 * Creates the partitions of the months from `today`'s to `monthsAhead` after it, and drops those
 * whose days all lie `keepDays` or more before `today` (none when null). Returns how many were dropped.
 */
export async function maintainPartitions(db: Queryable, today: string, keepDays: number | null, monthsAhead: number): Promise<number> {
  const { rows } = await db.query<{ dropped: number }>('SELECT analytics_partitions($1::date, $2, $3) AS dropped', [
    today,
    keepDays,
    monthsAhead,
  ]);
  return rows[0]?.dropped ?? 0;
}
