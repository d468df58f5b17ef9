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
import { readTagLinks, readTopLinks, readTopLinksOf, type TagLinks, type TopLink, type ValueFilter } from './link-sets.ts';

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
    // Each day of the range (zero-filled), then the whole range, from the rows of dimension $5's value $6 (0 and '': every
    // click). A day may have several rows (a set of links): summed, their sketches united.
    days: `
      WITH rows AS MATERIALIZED (
        SELECT day, clicks, bot_clicks, visitors FROM ${table} WHERE ${owner} AND day BETWEEN $3 AND $4 AND dimension = $5 AND value = $6
      ), per_day AS (
        SELECT day, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks, hll_estimate(hll_concat(visitors)) AS visitors FROM rows GROUP BY day
      ), registers AS (
        SELECT max(x & 63) AS rank FROM rows, unnest(visitors) AS x GROUP BY x >> 6
      )
      SELECT to_char(g.day, 'YYYY-MM-DD') AS day, coalesce(r.clicks, 0)::text AS clicks, coalesce(r.bot_clicks, 0)::text AS bot_clicks,
             coalesce(r.visitors, 0)::text AS visitors
      FROM generate_series($3::date, $4::date, interval '1 day') AS g (day) LEFT JOIN per_day r ON r.day = g.day
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

/** The links of a set: $1 their domain ids, $2 their codes (one index range scan per link). */
const OF_LINKS = '(domain_id, code) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))';
const LINK_ROLLUPS = rollupQueries('click_rollups', 'domain_id = $1 AND code = $2');
const LINKS_ROLLUPS = rollupQueries('click_rollups', OF_LINKS);
const WORKSPACE_ROLLUPS = rollupQueries('workspace_rollups', 'workspace_id = $1 AND $2::text IS NULL');

/** Whose rollups are read: a link's, a workspace's, or the sum of a set of links' (a tag's). */
export type RollupOwner = { link: LinkRef } | { workspaceId: number } | { links: readonly LinkRef[] };

/** Every click: the rows of dimension 0. */
const EVERY_CLICK: ValueFilter = { dimension: 0, value: '' };

function ownerParameters(owner: RollupOwner): [ReturnType<typeof rollupQueries>, unknown, unknown] {
  if ('link' in owner) return [LINK_ROLLUPS, owner.link.domainId, owner.link.code];
  if ('links' in owner) return [LINKS_ROLLUPS, owner.links.map((link) => link.domainId), owner.links.map((link) => link.code)];
  return [WORKSPACE_ROLLUPS, owner.workspaceId, null];
}

/**
 * Visitors per day and over `range` (of the clicks of `only`'s value, or of every click), and the top
 * `limit` values of each of `dimensions` (ids) of a link, a workspace or a set of links; for a link,
 * clicks per day come from its daily counts (readStats), and this adds the visitors. Two round
 * trips; run it through a breaker.
 */
export async function readRollups(
  db: Queryable,
  owner: RollupOwner,
  range: DayRange,
  dimensions: readonly number[],
  limit: number,
  only: ValueFilter = EVERY_CLICK,
): Promise<RangeAnalytics> {
  const [queries, first, second] = ownerParameters(owner);
  const days = await db.query<DayRow>(queries.days, [first, second, range.from, range.to, only.dimension, only.value]);
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

  /**
   * The rollups of a link, a workspace or a set of links over `range` (of `only`'s value's clicks, or
   * of all), with at most `limit` values of each dimension of `ids`.
   */
  rollups(owner: RollupOwner, range: DayRange, ids: readonly number[], limit: number, only?: ValueFilter): Promise<RangeAnalytics> {
    return this.#breaker.run(() => readRollups(this.#db, owner, range, ids, limit, only));
  }

  /** The links of a workspace with `tag`: how many, and the `max` most clicked of all time. */
  tagLinks(workspaceId: number, tag: string, max: number): Promise<TagLinks> {
    return this.#breaker.run(() => readTagLinks(this.#db, workspaceId, tag, max));
  }

  /** Of `links`, the `limit` with the most clicks over `range` (of `only`'s value, or all), from their rollups. */
  topLinksOf(links: readonly LinkRef[], range: DayRange, only: ValueFilter | undefined, limit: number): Promise<TopLink[]> {
    return this.#breaker.run(() => readTopLinksOf(this.#db, links, range, only, limit));
  }

  topLinks(workspaceId: number, range: DayRange, limit: number): Promise<TopLink[]> {
    return this.#breaker.run(() => readTopLinks(this.#db, workspaceId, range, limit));
  }

  orphans(workspaceId: number, range: DayRange, limit: number): Promise<OrphanVisits> {
    return this.#breaker.run(() => readOrphans(this.#db, workspaceId, range, limit));
  }
}
