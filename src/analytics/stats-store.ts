// The analytics as the stats routes read them (migrations/0009_analytics.sql): a link's or a
// workspace's rollups over a range of days, per day and per dimension with their unique visitors,
// the workspace's most clicked links and its orphan visits. StatsStore runs each read, and the
// click counts' (click-store.ts), through the list's pool and breaker: a year of a busy workspace
// is a heavier read than a redirect's, and must not take its connections.

import type { DayRange } from '../core/day-range.ts';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import { readStats, type ClickStats } from './click-store.ts';
import type { LinkRef } from '../core/link.ts';

/** One value of a dimension over a range; `other`: the values past the stored bound, and past the answer's limit. */
export interface ValueCount {
  value: string;
  other?: true;
  clicks: number;
  botClicks: number;
  visitors: number;
}

export interface DayVisitors {
  day: string;
  clicks: number;
  botClicks: number;
  visitors: number;
}

export interface RangeAnalytics {
  range: { clicks: number; botClicks: number; visitors: number };
  /** Every day of the range, oldest first. */
  daily: DayVisitors[];
  /** Dimension id -> its values, the most clicked first, `other` last. */
  dimensions: Map<number, ValueCount[]>;
}

interface CountRow {
  dimension: number;
  value: string;
  clicks: string;
  bot_clicks: string;
  visitors: string;
}

interface DayRow {
  day: string;
  clicks: string;
  bot_clicks: string;
  visitors: string;
}

/**
 * The reads of a rollup table: `owner` is the SQL condition that picks its link or workspace, with
 * $1 and $2 free for it. Sketches are united set-based: each element of the range read once, the
 * greatest rank kept per register, then estimated (hll_count).
 */
function rollupQueries(table: string, owner: string) {
  return {
    // Each day of the range (zero-filled), then the whole range, from the rows of dimension 0.
    days: `
      WITH rows AS MATERIALIZED (
        SELECT day, clicks, bot_clicks, visitors FROM ${table} WHERE ${owner} AND day BETWEEN $3 AND $4 AND dimension = 0
      ), registers AS (
        SELECT max(x & 63) AS rank FROM rows, unnest(visitors) AS x GROUP BY x >> 6
      )
      SELECT to_char(g.day, 'YYYY-MM-DD') AS day, coalesce(r.clicks, 0)::text AS clicks, coalesce(r.bot_clicks, 0)::text AS bot_clicks,
             coalesce(hll_estimate(r.visitors), 0)::text AS visitors
      FROM generate_series($3::date, $4::date, interval '1 day') AS g (day) LEFT JOIN rows r ON r.day = g.day
      UNION ALL
      SELECT NULL, (SELECT coalesce(sum(clicks), 0) FROM rows)::text, (SELECT coalesce(sum(bot_clicks), 0) FROM rows)::text,
             hll_count(count(*), coalesce(sum(power(2::float8, -rank)), 0))::text FROM registers
      ORDER BY 1 NULLS LAST`,
    // The top $6 values of each dimension in $5 over the range, and the rest as one '' (other).
    values: `
      WITH rows AS MATERIALIZED (
        SELECT dimension, value, clicks, bot_clicks, visitors FROM ${table}
        WHERE ${owner} AND day BETWEEN $3 AND $4 AND dimension = ANY($5::smallint[])
      ), v AS (
        SELECT dimension, value, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks FROM rows GROUP BY dimension, value
      ), shown AS (
        SELECT dimension, value, clicks, bot_clicks,
               CASE WHEN value <> '' AND row_number() OVER (PARTITION BY dimension ORDER BY value = '', clicks + bot_clicks DESC, value) <= $6
                    THEN value ELSE '' END AS shown
        FROM v
      ), registers AS (
        SELECT s.dimension, s.shown, max(x & 63) AS rank
        FROM rows r JOIN shown s ON s.dimension = r.dimension AND s.value = r.value, unnest(r.visitors) AS x
        GROUP BY s.dimension, s.shown, x >> 6
      ), estimates AS (
        SELECT dimension, shown, hll_count(count(*), sum(power(2::float8, -rank))) AS visitors FROM registers GROUP BY dimension, shown
      )
      SELECT s.dimension, s.shown AS value, sum(s.clicks)::text AS clicks, sum(s.bot_clicks)::text AS bot_clicks,
             coalesce(max(e.visitors), 0)::text AS visitors
      FROM shown s LEFT JOIN estimates e ON e.dimension = s.dimension AND e.shown = s.shown
      GROUP BY s.dimension, s.shown
      ORDER BY s.dimension, s.shown = '', sum(s.clicks) + sum(s.bot_clicks) DESC, s.shown`,
  };
}

const LINK_ROLLUPS = rollupQueries('click_rollups', 'domain_id = $1 AND code = $2');
const WORKSPACE_ROLLUPS = rollupQueries('workspace_rollups', 'workspace_id = $1 AND $2::text IS NULL');

/**
 * Visitors per day and over `range`, and the top `limit` values of each of `dimensions` (ids) of a
 * link or a workspace; for a link, clicks per day come from its daily counts (readStats), and this
 * adds the visitors. Two round trips; run it through a breaker.
 */
export async function readRollups(
  db: Queryable,
  owner: { link: { domainId: number; code: string } } | { workspaceId: number },
  range: DayRange,
  dimensions: readonly number[],
  limit: number,
): Promise<RangeAnalytics> {
  const [queries, first, second] =
    'link' in owner ? [LINK_ROLLUPS, owner.link.domainId, owner.link.code] : [WORKSPACE_ROLLUPS, owner.workspaceId, null];
  const days = await db.query<DayRow>(queries.days, [first, second, range.from, range.to]);
  const whole = days.rows.pop();
  const byDimension = new Map<number, ValueCount[]>();
  if (dimensions.length > 0) {
    const { rows } = await db.query<CountRow>(queries.values, [first, second, range.from, range.to, dimensions, limit]);
    for (const row of rows) {
      let values = byDimension.get(row.dimension);
      if (values === undefined) {
        values = [];
        byDimension.set(row.dimension, values);
      }
      const count = { clicks: Number(row.clicks), botClicks: Number(row.bot_clicks), visitors: Number(row.visitors) };
      values.push(row.value === '' ? { value: 'other', other: true, ...count } : { value: row.value, ...count });
    }
  }
  return {
    range: { clicks: Number(whole?.clicks ?? 0), botClicks: Number(whole?.bot_clicks ?? 0), visitors: Number(whole?.visitors ?? 0) },
    daily: days.rows.map((row) => ({
      day: row.day,
      clicks: Number(row.clicks),
      botClicks: Number(row.bot_clicks),
      visitors: Number(row.visitors),
    })),
    dimensions: byDimension,
  };
}

export interface TopLink {
  domainId: number;
  domainHost: string | null;
  code: string;
  url: string;
  title: string | null;
  clicks: number;
  botClicks: number;
}

/** The workspace's `limit` most clicked live links over `range` (people and bots), from the daily counts. */
export async function readTopLinks(db: Queryable, workspaceId: number, range: DayRange, limit: number): Promise<TopLink[]> {
  const { rows } = await db.query<{
    domain_id: string;
    host: string | null;
    code: string;
    url: string;
    title: string | null;
    clicks: string;
    bot_clicks: string;
  }>(
    `SELECT l.domain_id, d.host, l.code, l.url, l.title, c.clicks::text, c.bot_clicks::text
     FROM (SELECT c.domain_id, c.code, sum(c.clicks) AS clicks, sum(c.bot_clicks) AS bot_clicks
           FROM link_clicks_daily c JOIN link_totals t ON t.domain_id = c.domain_id AND t.code = c.code
           WHERE t.workspace_id = $1 AND c.day BETWEEN $2 AND $3
           GROUP BY c.domain_id, c.code
           ORDER BY sum(c.clicks) + sum(c.bot_clicks) DESC, c.code LIMIT $4) AS c
     JOIN links l ON l.domain_id = c.domain_id AND l.code = c.code AND NOT l.deleted
     JOIN domains d ON d.id = l.domain_id
     ORDER BY c.clicks + c.bot_clicks DESC, l.code`,
    [workspaceId, range.from, range.to, limit],
  );
  return rows.map((row) => ({
    domainId: Number(row.domain_id),
    domainHost: row.host,
    code: row.code,
    url: row.url,
    title: row.title,
    clicks: Number(row.clicks),
    botClicks: Number(row.bot_clicks),
  }));
}

export interface OrphanVisits {
  visits: number;
  daily: { day: string; visits: number }[];
  /** The most requested missing paths; `other` for those past the stored bound. */
  top: { domainId: number; domainHost: string | null; path: string; other?: true; visits: number }[];
}

/**
 * Requests for paths that named no link on the workspace's domains over `range`; the default
 * domain's belong to the default workspace (1), whose keys are the operator's.
 */
export async function readOrphans(db: Queryable, workspaceId: number, range: DayRange, limit: number): Promise<OrphanVisits> {
  const mine = `o.domain_id IN (SELECT id FROM domains WHERE workspace_id = $1 OR (id = 0 AND $1 = 1)) AND o.day BETWEEN $2 AND $3`;
  const daily = await db.query<{ day: string; visits: string }>(
    `SELECT to_char(g.day, 'YYYY-MM-DD') AS day, coalesce(sum(o.visits), 0)::text AS visits
     FROM generate_series($2::date, $3::date, interval '1 day') AS g (day)
     LEFT JOIN orphan_visits o ON o.day = g.day AND ${mine}
     GROUP BY g.day ORDER BY g.day`,
    [workspaceId, range.from, range.to],
  );
  const top = await db.query<{ domain_id: string; host: string | null; path: string; visits: string }>(
    `SELECT o.domain_id, d.host, o.path, sum(o.visits)::text AS visits
     FROM orphan_visits o JOIN domains d ON d.id = o.domain_id
     WHERE ${mine}
     GROUP BY o.domain_id, d.host, o.path ORDER BY o.path = '', sum(o.visits) DESC, o.path LIMIT $4`,
    [workspaceId, range.from, range.to, limit],
  );
  const days = daily.rows.map((row) => ({ day: row.day, visits: Number(row.visits) }));
  return {
    visits: days.reduce((sum, day) => sum + day.visits, 0),
    daily: days,
    top: top.rows.map((row) => ({
      domainId: Number(row.domain_id),
      domainHost: row.host,
      path: row.path === '' ? 'other' : row.path,
      ...(row.path === '' ? { other: true as const } : {}),
      visits: Number(row.visits),
    })),
  };
}

export class StatsStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  /** A link's click counts over `range`: totals and per day; undefined if it has none. */
  clicks(link: LinkRef, range: DayRange): Promise<ClickStats | undefined> {
    return this.#breaker.run(() => readStats(this.#db, link, range));
  }

  /** The rollups of a link or a workspace over `range`, with at most `limit` values of each dimension of `ids`. */
  rollups(
    owner: { link: LinkRef } | { workspaceId: number },
    range: DayRange,
    ids: readonly number[],
    limit: number,
  ): Promise<RangeAnalytics> {
    return this.#breaker.run(() => readRollups(this.#db, owner, range, ids, limit));
  }

  topLinks(workspaceId: number, range: DayRange, limit: number): Promise<TopLink[]> {
    return this.#breaker.run(() => readTopLinks(this.#db, workspaceId, range, limit));
  }

  orphans(workspaceId: number, range: DayRange, limit: number): Promise<OrphanVisits> {
    return this.#breaker.run(() => readOrphans(this.#db, workspaceId, range, limit));
  }
}
