// The deliveries of webhook events (migrations/0013_webhooks.sql): the events the worker announces
// itself (expiries, click limits reached), the claim of due deliveries (each by one instance),
// their outcomes, the delivery log, a resend, and the pruning of old ones. The worker runs these on
// its own pool connections, not through the breaker: a background round that fails only waits for
// the next. The outbox the statements changing links write to is db/outbox.ts.

import type pg from 'pg';
import { LINK_EVENT_DATA, LINK_EVENT_HOST, outboxCtes } from '../db/outbox.ts';
import { linkEvent } from '../db/links.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import type { DeliveryState } from '../core/webhooks.ts';
import { TEST_EVENT, type MessageType } from './test-event.ts';

/** Writes a `link.expired` event for each link whose expiry passed and is not yet reported (at most `limit`); returns how many. */
export async function announceExpiries(db: Queryable, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH due AS (
       SELECT domain_id, code FROM links
       WHERE expires_at <= now() AND NOT expiry_announced AND NOT deleted
       ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE links l SET expiry_announced = true FROM due WHERE l.domain_id = due.domain_id AND l.code = due.code
       RETURNING l.*
     ), ${linkEvent('link.expired', 'true', { source: 'marked', name: 'expired' })}
     SELECT count(*) AS n FROM marked`,
    [limit],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Writes a `link.expiring` event for each link that expires within `noticeMs` and was not yet told
 * of (at most `limit`), and marks it told (a new expiresAt clears the mark: links/store.ts); returns
 * how many. A disabled link is not told until enabled again: its expiry changes nothing meanwhile.
 */
export async function announceExpiring(db: Queryable, noticeMs: number, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH due AS (
       SELECT domain_id, code FROM links
       WHERE expires_at > now() AND expires_at <= now() + $2 * interval '1 millisecond'
         AND NOT expiring_announced AND NOT deleted AND NOT disabled
       ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
     ), marked AS (
       UPDATE links l SET expiring_announced = true FROM due WHERE l.domain_id = due.domain_id AND l.code = due.code
       RETURNING l.*
     ), ${linkEvent('link.expiring', 'true', { source: 'marked', name: 'expiring' })}
     SELECT count(*) AS n FROM marked`,
    [limit, noticeMs],
  );
  return Number(rows[0]?.n ?? 0);
}

/** A link whose limit a grant in Redis used up: its `link.click_limit_reached` is to be written to Postgres. */
export interface LimitReached {
  readonly domainId: number;
  readonly code: string;
  readonly limit: number;
}

/**
 * Writes `link.click_limit_reached` for links (domain, code) whose limit a grant in Redis used up,
 * and their count as it then was into link_click_limits, where the link list's filter
 * state=limit_reached reads it (links/list-store.ts): Redis alone cannot be filtered in SQL.
 */
export async function announceLimitsReached(db: Queryable, links: readonly LimitReached[]): Promise<void> {
  await db.query(
    `WITH reached AS (
       SELECT l.workspace_id, 'link.click_limit_reached' AS type, l.domain_id, l.code,
              ${LINK_EVENT_DATA} || ${LINK_EVENT_HOST} || jsonb_build_object('clickLimit', r.lim) AS data
       FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS r (domain_id, code, lim)
       JOIN links l ON l.domain_id = r.domain_id AND l.code = r.code LEFT JOIN domains dm ON dm.id = l.domain_id
     ), counted AS (
       INSERT INTO link_click_limits AS c (domain_id, code, used, lim)
       SELECT domain_id, code, max(data->>'clickLimit')::bigint, max(data->>'clickLimit')::bigint FROM reached GROUP BY domain_id, code
       ON CONFLICT (domain_id, code) DO UPDATE SET used = GREATEST(c.used, EXCLUDED.used), lim = EXCLUDED.lim
     ), ${outboxCtes('reached')}
     SELECT 1`,
    [links.map((link) => link.domainId), links.map((link) => link.code), links.map((link) => link.limit)],
  );
}

/** A delivery claimed for sending, with what its request needs. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly endpointId: number;
  /** Tries so far, this one included: the claim's token (a late answer to an older claim changes nothing). */
  readonly attempts: number;
  readonly url: string;
  readonly secrets: readonly string[];
  readonly msgId: string;
  readonly type: MessageType;
  readonly data: Record<string, unknown>;
  readonly createdAt: Date;
}

interface ClaimRow {
  id: string;
  endpoint_id: string;
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  msg_id: string;
  type: MessageType;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface ClaimLimits {
  /** Endpoints served per claim. */
  readonly endpoints: number;
  /** Deliveries under way per endpoint, across instances. */
  readonly inFlight: number;
  /** How long a claim holds a delivery: past it, the delivery is due again (its instance died). */
  readonly leaseMs: number;
}

/**
 * Claims due deliveries: locks up to `endpoints` endpoints with due deliveries that no other
 * instance is claiming for (SKIP LOCKED), then, for each, leases its due deliveries, oldest first,
 * up to its cap less those under way; a delivery whose link has an earlier one waiting or under way
 * to the same endpoint waits for it. One transaction, two statements. The endpoints are locked
 * FOR NO KEY UPDATE: against other claims, but not against the foreign key of a new delivery
 * (FOR KEY SHARE), so that no create, change or click flush waits for a claim (FOR UPDATE made
 * writes wait 400 ms at the median behind a backlog of 2,000 deliveries: npm run fleet).
 */
export async function claimDeliveries(pool: pg.Pool, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  return inTransaction(pool, async (client) => {
    const { rows: endpoints } = await client.query<{ id: string }>(
      `SELECT e.id FROM webhook_endpoints e
       WHERE e.enabled AND EXISTS (
         SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state IN ('pending', 'sending') AND d.next_attempt_at <= now())
       ORDER BY random() LIMIT $1 FOR NO KEY UPDATE SKIP LOCKED`,
      [limits.endpoints],
    );
    if (endpoints.length === 0) return [];
    const { rows } = await client.query<ClaimRow>(
      `WITH ep AS (
         SELECT e.id, e.url, e.secret, CASE WHEN e.previous_until > now() THEN e.previous_secret END AS previous_secret,
                $2 - (SELECT count(*) FROM webhook_deliveries s
                      WHERE s.endpoint_id = e.id AND s.state = 'sending' AND s.next_attempt_at > now()) AS room
         FROM webhook_endpoints e WHERE e.id = ANY ($1::bigint[])
       ), picked AS (
         SELECT d.id, ep.url, ep.secret, ep.previous_secret FROM ep CROSS JOIN LATERAL (
           SELECT d.id FROM webhook_deliveries d
           WHERE d.endpoint_id = ep.id AND d.state IN ('pending', 'sending') AND d.next_attempt_at <= now()
             AND NOT EXISTS (
               SELECT 1 FROM webhook_deliveries p
               WHERE d.code IS NOT NULL AND p.endpoint_id = d.endpoint_id AND p.domain_id = d.domain_id AND p.code = d.code
                 AND p.state IN ('pending', 'sending') AND p.code IS NOT NULL AND p.message_id < d.message_id)
           ORDER BY d.message_id LIMIT greatest(ep.room, 0)
         ) d
       )
       UPDATE webhook_deliveries d SET state = 'sending', attempts = d.attempts + 1, last_attempt_at = now(),
         next_attempt_at = now() + $3 * interval '1 millisecond'
       FROM picked, webhook_messages m
       WHERE d.id = picked.id AND m.id = d.message_id
       RETURNING d.id, d.endpoint_id, d.attempts, picked.url, picked.secret, picked.previous_secret, m.msg_id, m.type, m.data, m.created_at`,
      [endpoints.map((row) => row.id), limits.inFlight, limits.leaseMs],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      endpointId: Number(row.endpoint_id),
      attempts: row.attempts,
      url: row.url,
      secrets: row.previous_secret === null ? [row.secret] : [row.secret, row.previous_secret],
      msgId: row.msg_id,
      type: row.type,
      data: row.data,
      createdAt: row.created_at,
    }));
  });
}

/** What came of one try. */
export interface DeliveryOutcome {
  readonly id: number;
  readonly attempts: number;
  /** delivered; pending (again, at `retryAt`); or dead. */
  readonly state: 'delivered' | 'pending' | 'dead';
  readonly retryAt: Date | null;
  readonly status: number | null;
  readonly error: string | null;
  readonly latencyMs: number;
}

/** Records tries' outcomes, in one statement; a delivery claimed again since (its lease ran out) is left alone. */
export async function recordOutcomes(db: Queryable, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries d SET state = o.state, next_attempt_at = COALESCE(o.retry_at, d.next_attempt_at),
       last_status = o.status, last_error = o.error, last_latency_ms = o.latency,
       delivered_at = CASE WHEN o.state = 'delivered' THEN now() END
     FROM unnest($1::bigint[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[], $7::int[])
       AS o (id, attempts, state, retry_at, status, error, latency)
     WHERE d.id = o.id AND d.attempts = o.attempts AND d.state = 'sending'`,
    [
      outcomes.map((o) => o.id),
      outcomes.map((o) => o.attempts),
      outcomes.map((o) => o.state),
      outcomes.map((o) => o.retryAt),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.error),
      outcomes.map((o) => o.latencyMs),
    ],
  );
}

/** A delivery as the log shows it. */
export interface DeliveryRecord {
  readonly id: number;
  readonly msgId: string;
  readonly type: MessageType;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly lastStatus: number | null;
  readonly lastError: string | null;
  readonly latencyMs: number | null;
  readonly createdAt: Date;
  readonly lastAttemptAt: Date | null;
  readonly nextAttemptAt: Date | null;
  readonly deliveredAt: Date | null;
}

interface DeliveryRow {
  id: string;
  msg_id: string;
  type: MessageType;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_latency_ms: number | null;
  created_at: Date;
  last_attempt_at: Date | null;
  next_attempt_at: Date;
  delivered_at: Date | null;
}

const DELIVERY_COLUMNS = `d.id, m.msg_id, m.type, d.state, d.attempts, d.last_status, d.last_error, d.last_latency_ms, d.created_at,
  d.last_attempt_at, d.next_attempt_at, d.delivered_at`;

function deliveryOf(row: DeliveryRow): DeliveryRecord {
  return {
    id: Number(row.id),
    msgId: row.msg_id,
    type: row.type,
    state: row.state,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    latencyMs: row.last_latency_ms,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
  };
}

/** An endpoint's deliveries, newest first, before the id `before` (a page's cursor), in `state` if given. */
export async function listDeliveries(
  db: Queryable,
  endpointId: number,
  page: { readonly before: number | undefined; readonly state: DeliveryState | undefined; readonly limit: number },
): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
     WHERE d.endpoint_id = $1 AND ($2::bigint IS NULL OR d.id < $2) AND ($3::text IS NULL OR d.state = $3)
     ORDER BY d.id DESC LIMIT $4`,
    [endpointId, page.before ?? null, page.state ?? null, page.limit],
  );
  return rows.map(deliveryOf);
}

/**
 * Sends a delivery's event again: a new delivery of the same message (the same webhook-id), due
 * now, outside the order of its link's events. undefined if the endpoint has no such delivery.
 */
export async function resendDelivery(db: Queryable, endpointId: number, deliveryId: number): Promise<DeliveryRecord | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `WITH resent AS (
       INSERT INTO webhook_deliveries (message_id, endpoint_id)
       SELECT message_id, endpoint_id FROM webhook_deliveries WHERE id = $2 AND endpoint_id = $1
       RETURNING *
     )
     SELECT ${DELIVERY_COLUMNS} FROM resent d JOIN webhook_messages m ON m.id = d.message_id`,
    [endpointId, deliveryId],
  );
  const row = rows[0];
  return row === undefined ? undefined : deliveryOf(row);
}

/**
 * Writes a test event for the endpoint `endpointId` of `workspaceId` and its delivery, due now: a
 * message of no link (it waits for no other delivery). undefined if the workspace has no such endpoint.
 */
export async function enqueueTestEvent(db: Queryable, workspaceId: number, endpointId: number): Promise<DeliveryRecord | undefined> {
  const { rows } = await db.query<DeliveryRow>(
    `WITH ep AS (
       SELECT e.id, e.workspace_id, w.name FROM webhook_endpoints e JOIN workspaces w ON w.id = e.workspace_id
       WHERE e.workspace_id = $1 AND e.id = $2
     ), message AS (
       INSERT INTO webhook_messages (workspace_id, type, data)
       SELECT workspace_id, $3, jsonb_build_object('test', true, 'workspace', jsonb_build_object('id', workspace_id, 'name', name),
                                                   'webhook', jsonb_build_object('id', id))
       FROM ep RETURNING id, msg_id, type
     ), d AS (
       INSERT INTO webhook_deliveries (message_id, endpoint_id) SELECT message.id, ep.id FROM message, ep RETURNING *
     )
     SELECT d.id, message.msg_id, message.type, d.state, d.attempts, d.last_status, d.last_error, d.last_latency_ms, d.created_at,
            d.last_attempt_at, d.next_attempt_at, d.delivered_at
     FROM d JOIN message ON message.id = d.message_id`,
    [workspaceId, endpointId, TEST_EVENT],
  );
  const row = rows[0];
  return row === undefined ? undefined : deliveryOf(row);
}

/** Removes deliveries delivered or dead before `days` ago, then the messages left with none. */
export async function pruneDeliveries(db: Queryable, days: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH gone AS (
       DELETE FROM webhook_deliveries WHERE state IN ('delivered', 'dead') AND created_at < now() - $1 * interval '1 day'
       RETURNING id, message_id
     ), orphaned AS (
       -- The statement's snapshot still shows the deliveries it deletes: those are not counted.
       DELETE FROM webhook_messages m WHERE m.id IN (SELECT message_id FROM gone)
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id AND d.id NOT IN (SELECT id FROM gone))
       RETURNING 1
     )
     SELECT count(*) AS n FROM gone`,
    [days],
  );
  return Number(rows[0]?.n ?? 0);
}
