// The daily digest of a workspace's broken links (workspace.health_digest, docs/target-health.md):
// one statement finds the workspaces with an enabled endpoint taking it, broken links, and no
// digest yet today (UTC); marks the day in health_digests and writes the event to the outbox in the
// same statement. Two instances running it at once: the second waits on the first's row, then sees
// the day marked, and sends nothing.

import { LINK_EVENT_DATA, LINK_EVENT_HOST, outboxCtes } from '../db/outbox.ts';
import type { Queryable } from '../db/pool.ts';

export const DIGEST_EVENT = 'workspace.health_digest';
/** Links a digest lists at most (the most recently broken first); `total` counts them all. */
export const DIGEST_LINKS_MAX = 100;

const BROKEN_OF = `link_health h JOIN links l ON l.domain_id = h.domain_id AND l.code = h.code
  WHERE h.broken AND h.probes AND NOT l.deleted AND l.workspace_id = w.workspace_id`;

/** Writes today's digest for each workspace due one; returns how many were written. */
export async function sendDigests(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day),
     due AS (
       SELECT DISTINCT e.workspace_id FROM webhook_endpoints e
       WHERE e.enabled AND '${DIGEST_EVENT}' = ANY (e.events)
         AND NOT EXISTS (SELECT 1 FROM health_digests d, today WHERE d.workspace_id = e.workspace_id AND d.day >= today.day)
     ), digest AS (
       SELECT w.workspace_id, c.total, b.links FROM due w
       CROSS JOIN LATERAL (SELECT count(*) AS total FROM ${BROKEN_OF}) c
       CROSS JOIN LATERAL (
         SELECT jsonb_agg(x.item ORDER BY x.since DESC, x.code) AS links FROM (
           SELECT ${LINK_EVENT_DATA} || ${LINK_EVENT_HOST} ||
                  jsonb_build_object('health', jsonb_build_object('status', h.last_status, 'failures', h.failures,
                    'brokenSince', h.broken_since)) AS item, h.broken_since AS since, l.code
           FROM ${BROKEN_OF.replace('WHERE', 'LEFT JOIN domains dm ON dm.id = l.domain_id WHERE')}
           ORDER BY h.broken_since DESC, l.code LIMIT ${DIGEST_LINKS_MAX}
         ) x
       ) b
       WHERE c.total > 0
     ), marked AS (
       INSERT INTO health_digests AS d (workspace_id, day) SELECT workspace_id, today.day FROM digest, today
       ON CONFLICT (workspace_id) DO UPDATE SET day = EXCLUDED.day WHERE d.day < EXCLUDED.day
       RETURNING workspace_id
     ), sent AS (
       SELECT g.workspace_id, '${DIGEST_EVENT}' AS type, NULL::bigint AS domain_id, NULL::text AS code,
              jsonb_build_object('day', today.day, 'total', g.total, 'links', g.links) AS data
       FROM digest g JOIN marked m ON m.workspace_id = g.workspace_id, today
     ), ${outboxCtes('sent')}
     SELECT count(*) AS n FROM marked`,
  );
  return Number(rows[0]?.n ?? 0);
}
