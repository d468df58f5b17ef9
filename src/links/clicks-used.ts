// The redirects each link with a click limit has given so far (the API's clicksUsed, from which its
// state `limit_reached`): read where the limits are counted (click-limits.ts), one round trip for
// the links of a page that have a limit, none for a page without.

import { keyOf, type LinkKey } from '../core/domains.ts';
import type { LinkDetails } from './store.ts';

/** What counts the redirects of limited links (ClickLimits). */
export interface LimitCounts {
  used(keys: readonly LinkKey[]): Promise<Map<LinkKey, number>>;
}

/**
 * `links` with clicksUsed set on those that have a click limit (0 before their first redirect).
 * Counts that cannot be read (Redis or Postgres failing) leave it null: the list still answers,
 * as a redirect of such a link would be a 503 until they can.
 */
export async function withClicksUsed(links: readonly LinkDetails[], counts: LimitCounts): Promise<LinkDetails[]> {
  const limited = links.filter((link) => link.options?.clickLimit !== undefined).map((link) => keyOf(link));
  if (limited.length === 0) return [...links];
  let used: Map<LinkKey, number>;
  try {
    used = await counts.used(limited);
  } catch {
    return [...links];
  }
  return links.map((link) => (link.options?.clickLimit === undefined ? link : { ...link, clicksUsed: used.get(keyOf(link)) ?? 0 }));
}
