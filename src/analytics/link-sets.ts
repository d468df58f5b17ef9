// The reads of links as a set: a workspace's most clicked links (from the daily counts), which
// links a tag has (bounded), and which of a set were clicked most, of all clicks or of one value
// (from their rollups, migrations/0009_analytics.sql). StatsStore runs them through its breaker.

import type { DayRange } from '../core/day-range.ts';
import type { LinkRef } from '../core/link.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Queryable } from '../db/pool.ts';

/** One value of one dimension (a drill-down): its clicks only. */
export interface ValueFilter {
  dimension: number;
  value: string;
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
  const { rows } = await db.query<TopLinkRow>(
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
  return rows.map(topLinkOf);
}

interface TopLinkRow {
  domain_id: string;
  host: string | null;
  code: string;
  url: string;
  title: string | null;
  clicks: string;
  bot_clicks: string;
}

function topLinkOf(row: TopLinkRow): TopLink {
  return {
    domainId: Number(row.domain_id),
    domainHost: row.host,
    code: row.code,
    url: row.url,
    title: row.title,
    clicks: Number(row.clicks),
    botClicks: Number(row.bot_clicks),
  };
}

export interface TagLinks {
  /** Live links of the workspace with the tag (workspace_tags counts them exactly). */
  total: number;
  /** The `max` with the most clicks of all time (people and bots), or all of them. */
  links: LinkRef[];
}

/**
 * The links with `tag`: found by the tags' index (links_list_tags), ordered by their all-time totals
 * (one narrow row each in link_totals), the first `max` kept. What a tag view then reads per link
 * (its rollups over a range) is the heavy part, and is bounded by `max`.
 */
export async function readTagLinks(db: Queryable, workspaceId: number, tag: string, max: number): Promise<TagLinks> {
  const [count, found] = await Promise.all([
    db.query<{ links: string }>('SELECT links FROM workspace_tags WHERE workspace_id = $1 AND tag = $2', [workspaceId, tag]),
    db.query<{ domain_id: string; code: ShortCode }>(
      `SELECT l.domain_id, l.code FROM links l JOIN link_totals t ON t.domain_id = l.domain_id AND t.code = l.code
       WHERE l.workspace_id = $1 AND l.tags @> ARRAY[$2::text] AND NOT l.deleted
       ORDER BY t.clicks + t.bot_clicks DESC, l.code LIMIT $3`,
      [workspaceId, tag, max],
    ),
  ]);
  return {
    total: Number(count.rows[0]?.links ?? 0),
    links: found.rows.map((row) => ({ domainId: Number(row.domain_id), code: row.code })),
  };
}

/** Of `links`, the `limit` live ones with the most clicks (people and bots) over `range`: of `only`'s value, or all (dimension 0). */
export async function readTopLinksOf(
  db: Queryable,
  links: readonly LinkRef[],
  range: DayRange,
  only: ValueFilter | undefined,
  limit: number,
): Promise<TopLink[]> {
  if (links.length === 0) return [];
  const { rows } = await db.query<TopLinkRow>(
    `SELECT l.domain_id, d.host, l.code, l.url, l.title, c.clicks::text, c.bot_clicks::text
     FROM (SELECT domain_id, code, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks FROM click_rollups
           WHERE (domain_id, code) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))
             AND day BETWEEN $3 AND $4 AND dimension = $5 AND value = $6
           GROUP BY domain_id, code
           ORDER BY sum(clicks) + sum(bot_clicks) DESC, code LIMIT $7) AS c
     JOIN links l ON l.domain_id = c.domain_id AND l.code = c.code AND NOT l.deleted
     JOIN domains d ON d.id = l.domain_id
     ORDER BY c.clicks + c.bot_clicks DESC, l.code`,
    [
      links.map((link) => link.domainId),
      links.map((link) => link.code),
      range.from,
      range.to,
      only?.dimension ?? 0,
      only?.value ?? '',
      limit,
    ],
  );
  return rows.map(topLinkOf);
}
