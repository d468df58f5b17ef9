// The small trend the link list shows beside each link's clicks (GET /links?include=trend): its
// clicks by people on each of the last TREND_DAYS UTC days, oldest first, today last. One query for
// the whole page, by the primary key of link_clicks_daily (domain_id, code, day): at most a page of
// links times TREND_DAYS rows, whatever the size of the workspace.

import type { LinkRef } from '../core/link.ts';
import type { Queryable } from '../db/pool.ts';

export const TREND_DAYS = 14;

/** The key a link's trend is found under in trendsOf's answer. */
export const trendKey = (link: LinkRef): string => `${link.domainId}/${link.code}`;

/** Each link's trend (a day without a row counts 0), by trendKey; one statement for all of them. */
export async function trendsOf(db: Queryable, links: readonly LinkRef[]): Promise<Map<string, number[]>> {
  const trends = new Map<string, number[]>();
  if (links.length === 0) return trends;
  for (const link of links)
    trends.set(
      trendKey(link),
      Array.from({ length: TREND_DAYS }, () => 0),
    );
  const { rows } = await db.query<{ domain_id: string; code: string; age: number; clicks: string }>(
    `WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day)
     SELECT d.domain_id, d.code, (today.day - d.day) AS age, d.clicks
     FROM unnest($1::bigint[], $2::text[]) AS p(domain_id, code), today, link_clicks_daily d
     WHERE d.domain_id = p.domain_id AND d.code = p.code COLLATE "C"
       AND d.day > today.day - ${TREND_DAYS} AND d.day <= today.day`,
    [links.map((link) => link.domainId), links.map((link) => link.code)],
  );
  for (const row of rows) {
    const trend = trends.get(`${row.domain_id}/${row.code}`);
    if (trend !== undefined) trend[TREND_DAYS - 1 - row.age] = Number(row.clicks);
  }
  return trends;
}
