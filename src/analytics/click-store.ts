// Click counts in Postgres: totals per link (link_totals, a narrow table of their own: see
// migrations/0005_workspaces.sql) and one row per link per UTC day (link_clicks_daily). Written
// by the click flusher, one statement per flush however many links it holds; read by the stats
// route.

import { STATS_MAX_DAYS, type DayRange } from '../core/day-range.ts';
import { splitKey, type LinkKey } from '../core/domains.ts';
import type { Queryable } from '../db/pool.ts';
import { outboxCtes } from '../db/outbox.ts';
import type { LinkRef } from '../core/link.ts';

/** Links per `link.clicked` event: a flush's counts of a workspace go in events of at most this many. */
export const CLICKED_EVENT_LINKS = 1000;

/** Clicks on one link since the last flush: by people, and by bots (isbot on the User-Agent). */
export interface ClickCount {
  clicks: number;
  bots: number;
}

/** Counts waiting to be written: UTC day ('YYYY-MM-DD') -> link key (core/domains.ts) -> count. */
export type DailyCounts = ReadonlyMap<string, ReadonlyMap<string, ClickCount>>;

/**
 * Adds `counts` to the totals of their links and to their daily rows, in one statement (one
 * round trip, one commit), with the `link.clicked` events of workspaces that have an endpoint
 * taking them (none is looked for otherwise). A key with no row in links is left out, not an error. Rows are locked
 * in (domain, code) order, so that instances flushing the same links at once wait for each other instead
 * of deadlocking. Returns how many daily rows were written.
 */
export async function addClicks(db: Queryable, counts: DailyCounts): Promise<number> {
  const domains: number[] = [];
  const codes: string[] = [];
  const days: string[] = [];
  const clicks: number[] = [];
  const bots: number[] = [];
  for (const [day, byCode] of counts) {
    for (const [key, count] of byCode) {
      const { domainId, code } = splitKey(key as LinkKey);
      domains.push(domainId);
      codes.push(code);
      days.push(day);
      clicks.push(count.clicks);
      bots.push(count.bots);
    }
  }
  if (codes.length === 0) return 0;
  const { rowCount } = await db.query(
    `WITH input AS (
       SELECT domain_id, code, day, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks
       FROM unnest($1::text[], $2::date[], $3::bigint[], $4::bigint[], $5::bigint[]) AS i (code, day, clicks, bot_clicks, domain_id)
       GROUP BY domain_id, code, day
     ), locked AS MATERIALIZED (
       SELECT domain_id, code FROM link_totals WHERE (domain_id, code) IN (SELECT domain_id, code FROM input)
       ORDER BY domain_id, code FOR NO KEY UPDATE
     ), totals AS (
       UPDATE link_totals l SET clicks = l.clicks + t.clicks, bot_clicks = l.bot_clicks + t.bot_clicks
       FROM (SELECT domain_id, code, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks FROM input GROUP BY domain_id, code) AS t
       WHERE l.domain_id = t.domain_id AND l.code = t.code AND (l.domain_id, l.code) IN (SELECT domain_id, code FROM locked)
       RETURNING l.domain_id, l.code
     ), clicked AS (
       SELECT c.workspace_id, 'link.clicked' AS type, NULL::bigint AS domain_id, NULL::text AS code,
              jsonb_build_object('counts', jsonb_agg(jsonb_build_object('domainId', c.domain_id, 'domainHost', c.host, 'code', c.code,
                'day', c.day, 'clicks', c.clicks, 'botClicks', c.bot_clicks) ORDER BY c.domain_id, c.code, c.day)) AS data
       FROM (
         SELECT l.workspace_id, i.domain_id, dm.host, i.code, i.day, i.clicks, i.bot_clicks,
                (row_number() OVER (PARTITION BY l.workspace_id ORDER BY i.domain_id, i.code, i.day) - 1) / ${CLICKED_EVENT_LINKS} AS chunk
         FROM input i JOIN links l ON l.domain_id = i.domain_id AND l.code = i.code LEFT JOIN domains dm ON dm.id = i.domain_id
         WHERE EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.enabled AND 'link.clicked' = ANY (e.events))
           AND l.workspace_id IN (SELECT e.workspace_id FROM webhook_endpoints e WHERE e.enabled AND 'link.clicked' = ANY (e.events))
           AND (i.domain_id, i.code) IN (SELECT domain_id, code FROM totals)
       ) c
       GROUP BY c.workspace_id, c.chunk
     ), ${outboxCtes('clicked')}
     INSERT INTO link_clicks_daily AS d (domain_id, code, day, clicks, bot_clicks)
     SELECT domain_id, code, day, clicks, bot_clicks FROM input WHERE (domain_id, code) IN (SELECT domain_id, code FROM totals)
     ORDER BY domain_id, code, day
     ON CONFLICT (domain_id, code, day) DO UPDATE
       SET clicks = d.clicks + excluded.clicks, bot_clicks = d.bot_clicks + excluded.bot_clicks`,
    [codes, days, clicks, bots, domains],
  );
  return rowCount ?? 0;
}

export interface ClickStats {
  total: { clicks: number; botClicks: number };
  /** Every day of the range, oldest first; days without clicks are zero. */
  daily: { day: string; clicks: number; botClicks: number }[];
}

interface StatsRow {
  total_clicks: string;
  total_bot_clicks: string;
  day: string;
  clicks: string;
  bot_clicks: string;
}

/**
 * The click totals of a link and its clicks per UTC day over `range` (both ends included; make it
 * with statsRange, core/day-range.ts), zero-filled; undefined when there is no such link. Clicks
 * of the last CLICK_FLUSH_INTERVAL_MS are not in yet. One round trip; run it through the breaker.
 */
export async function readStats(db: Queryable, { domainId, code }: LinkRef, range: DayRange): Promise<ClickStats | undefined> {
  const span = (Date.parse(range.to) - Date.parse(range.from)) / 86_400_000;
  if (!(span >= 0 && span < STATS_MAX_DAYS))
    throw new RangeError(`stats range ${range.from}..${range.to} is not within ${STATS_MAX_DAYS} days`);
  const { rows } = await db.query<StatsRow>(
    `SELECT l.clicks::text AS total_clicks, l.bot_clicks::text AS total_bot_clicks, to_char(g.day, 'YYYY-MM-DD') AS day,
            coalesce(d.clicks, 0)::text AS clicks, coalesce(d.bot_clicks, 0)::text AS bot_clicks
     FROM link_totals l
     CROSS JOIN LATERAL (SELECT $2::date + n AS day FROM generate_series(0, $3::date - $2::date) AS n) AS g
     LEFT JOIN link_clicks_daily d ON d.domain_id = l.domain_id AND d.code = l.code AND d.day = g.day
     WHERE l.code = $1 AND l.domain_id = $4
     ORDER BY g.day`,
    [code, range.from, range.to, domainId],
  );
  const first = rows[0];
  if (first === undefined) return undefined;
  return {
    total: { clicks: Number(first.total_clicks), botClicks: Number(first.total_bot_clicks) },
    daily: rows.map((row) => ({ day: row.day, clicks: Number(row.clicks), botClicks: Number(row.bot_clicks) })),
  };
}
