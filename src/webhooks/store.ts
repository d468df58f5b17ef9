// A workspace's webhook endpoints in Postgres (migrations/0013_webhooks.sql): listed with their
// deliveries waiting and dead, added under the workspace's cap, changed, removed, their secrets
// read and rotated, and their delivery logs read. The WebhookStore runs each through the breaker.

import type pg from 'pg';
import type { WebhookEvent } from '../core/webhooks.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import type { DeliveryState } from '../core/webhooks.ts';
import { listDeliveries, resendDelivery, type DeliveryRecord } from './delivery-store.ts';

export interface WebhookEndpoint {
  readonly id: number;
  readonly workspaceId: number;
  readonly url: string;
  readonly description: string;
  readonly events: readonly WebhookEvent[];
  readonly enabled: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Until when the secret before the last rotation signs too; null: none does. */
  readonly previousUntil: Date | null;
  /** Deliveries waiting or under way; dead ones (kept WEBHOOK_LOG_RETENTION_DAYS) whose event no resend has delivered since. */
  readonly pending: number;
  readonly dead: number;
}

interface EndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  events: WebhookEvent[];
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
  previous_until: Date | null;
  pending: string;
  dead: string;
}

const ENDPOINT_COLUMNS = `e.id, e.workspace_id, e.url, e.description, e.events, e.enabled, e.created_at, e.updated_at,
  CASE WHEN e.previous_until > now() THEN e.previous_until END AS previous_until,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state IN ('pending', 'sending')) AS pending,
  (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'dead' AND NOT EXISTS (
     SELECT 1 FROM webhook_deliveries r WHERE r.message_id = d.message_id AND r.endpoint_id = e.id AND r.id > d.id AND r.state = 'delivered')) AS dead`;

function endpointOf(row: EndpointRow): WebhookEndpoint {
  return {
    id: Number(row.id),
    workspaceId: Number(row.workspace_id),
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    previousUntil: row.previous_until,
    pending: Number(row.pending),
    dead: Number(row.dead),
  };
}

export async function listEndpoints(db: Queryable, workspaceId: number): Promise<WebhookEndpoint[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE e.workspace_id = $1 ORDER BY e.id`,
    [workspaceId],
  );
  return rows.map(endpointOf);
}

export async function findEndpoint(db: Queryable, workspaceId: number, id: number): Promise<WebhookEndpoint | undefined> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints e WHERE e.workspace_id = $1 AND e.id = $2`,
    [workspaceId, id],
  );
  const row = rows[0];
  return row === undefined ? undefined : endpointOf(row);
}

export interface EndpointFields {
  readonly url: string;
  readonly description: string;
  readonly events: readonly WebhookEvent[];
  readonly enabled: boolean;
}

/**
 * Adds an endpoint unless the workspace has `max` already (undefined then). The count and the
 * insert are one statement under the workspace's row lock, so instances adding at once stay within it.
 */
export async function insertEndpoint(
  pool: pg.Pool,
  workspaceId: number,
  fields: EndpointFields,
  secret: string,
  max: number,
): Promise<WebhookEndpoint | undefined> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO webhook_endpoints (workspace_id, url, description, events, enabled, secret)
       SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT count(*) FROM webhook_endpoints WHERE workspace_id = $1) < $7
       RETURNING id`,
      [workspaceId, fields.url, fields.description, fields.events, fields.enabled, secret, max],
    );
    const row = rows[0];
    return row === undefined ? undefined : findEndpoint(client, workspaceId, Number(row.id));
  });
}

/** Changes the fields given; undefined if the workspace has no such endpoint. */
export async function updateEndpoint(
  db: Queryable,
  workspaceId: number,
  id: number,
  change: Partial<EndpointFields>,
): Promise<WebhookEndpoint | undefined> {
  const { rowCount } = await db.query(
    `UPDATE webhook_endpoints SET url = COALESCE($3, url), description = COALESCE($4, description),
       events = COALESCE($5, events), enabled = COALESCE($6, enabled), updated_at = now()
     WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id, change.url ?? null, change.description ?? null, change.events ?? null, change.enabled ?? null],
  );
  return rowCount === 0 ? undefined : findEndpoint(db, workspaceId, id);
}

/** Removes an endpoint and its deliveries (waiting ones are not sent); false if there was none. */
export async function deleteEndpoint(db: Queryable, workspaceId: number, id: number): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

export interface EndpointSecret {
  readonly secret: string;
  readonly previousUntil: Date | null;
}

export async function readSecret(db: Queryable, workspaceId: number, id: number): Promise<EndpointSecret | undefined> {
  const { rows } = await db.query<{ secret: string; previous_until: Date | null }>(
    `SELECT secret, CASE WHEN previous_until > now() THEN previous_until END AS previous_until
     FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  );
  const row = rows[0];
  return row === undefined ? undefined : { secret: row.secret, previousUntil: row.previous_until };
}

/** A new secret; the one it replaces signs too for `overlapMs` more. */
export async function rotateSecret(
  db: Queryable,
  workspaceId: number,
  id: number,
  secret: string,
  overlapMs: number,
): Promise<EndpointSecret | undefined> {
  const { rows } = await db.query<{ previous_until: Date | null }>(
    `UPDATE webhook_endpoints SET previous_secret = secret, secret = $3,
       previous_until = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 millisecond' END, updated_at = now()
     WHERE workspace_id = $1 AND id = $2 RETURNING previous_until`,
    [workspaceId, id, secret, overlapMs],
  );
  const row = rows[0];
  return row === undefined ? undefined : { secret, previousUntil: row.previous_until };
}

export class WebhookStore {
  readonly #db: Queryable;
  readonly #pool: pg.Pool;
  readonly #breaker: DbBreaker;

  /** `pool`: for the create's transaction (the count of endpoints under the workspace's lock). */
  constructor(db: Queryable, pool: pg.Pool, breaker: DbBreaker) {
    this.#db = db;
    this.#pool = pool;
    this.#breaker = breaker;
  }

  endpoints(workspaceId: number): Promise<WebhookEndpoint[]> {
    return this.#breaker.run(() => listEndpoints(this.#db, workspaceId));
  }

  endpoint(workspaceId: number, id: number): Promise<WebhookEndpoint | undefined> {
    return this.#breaker.run(() => findEndpoint(this.#db, workspaceId, id));
  }

  /** Adds an endpoint unless the workspace has `max` already (undefined then). */
  add(workspaceId: number, fields: EndpointFields, secret: string, max: number): Promise<WebhookEndpoint | undefined> {
    return this.#breaker.run(() => insertEndpoint(this.#pool, workspaceId, fields, secret, max));
  }

  change(workspaceId: number, id: number, change: Partial<EndpointFields>): Promise<WebhookEndpoint | undefined> {
    return this.#breaker.run(() => updateEndpoint(this.#db, workspaceId, id, change));
  }

  remove(workspaceId: number, id: number): Promise<boolean> {
    return this.#breaker.run(() => deleteEndpoint(this.#db, workspaceId, id));
  }

  secret(workspaceId: number, id: number): Promise<EndpointSecret | undefined> {
    return this.#breaker.run(() => readSecret(this.#db, workspaceId, id));
  }

  rotate(workspaceId: number, id: number, secret: string, overlapMs: number): Promise<EndpointSecret | undefined> {
    return this.#breaker.run(() => rotateSecret(this.#db, workspaceId, id, secret, overlapMs));
  }

  deliveries(
    endpointId: number,
    page: { state: DeliveryState | undefined; before: number | undefined; limit: number },
  ): Promise<DeliveryRecord[]> {
    return this.#breaker.run(() => listDeliveries(this.#db, endpointId, page));
  }

  resend(endpointId: number, deliveryId: number): Promise<DeliveryRecord | undefined> {
    return this.#breaker.run(() => resendDelivery(this.#db, endpointId, deliveryId));
  }
}
