// A workspace's webhook endpoints in Postgres (migrations/0013_webhooks.sql): listed with their
// deliveries waiting and dead, added under the workspace's cap, changed, removed, their secrets
// read and rotated, and their delivery logs read. The WebhookStore runs each through the breaker.
// Each change writes its audit entry (audit/audit.ts) in its own statement or transaction; the
// secret never is in one.

import type pg from 'pg';
import type { WebhookEvent } from '../core/webhooks.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import type { DeliveryState } from '../core/webhooks.ts';
import { enqueueTestEvent, listDeliveries, resendDelivery, type DeliveryRecord } from './delivery-store.ts';
import { auditCte, auditParams, recordAudit, type Actor } from '../audit/audit.ts';

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

const FIELDS = ['url', 'description', 'events', 'enabled'] as const;

/** What the audit log records of endpoint `x` (SQL): its fields, never its secret. */
const endpointDoc = (x: string) =>
  `jsonb_build_object('url', ${x}.url, 'description', ${x}.description, 'events', to_jsonb(${x}.events), 'enabled', ${x}.enabled)`;

/** Where an entry of an endpoint's change comes from: the changed row `c` (RETURNING *). */
const CHANGED = { from: 'changed c', workspaceId: 'c.workspace_id', targetId: 'c.id' };

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
  actor: Actor | null,
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
    if (row === undefined) return undefined;
    if (actor !== null) {
      const { url, description, events, enabled } = fields;
      const after = { url, description, events, enabled };
      await recordAudit(client, actor, { workspaceId, action: 'webhook.create', targetType: 'webhook', targetId: row.id, after });
    }
    return findEndpoint(client, workspaceId, Number(row.id));
  });
}

/** Changes the fields given; undefined if the workspace has no such endpoint. */
export async function updateEndpoint(
  db: Queryable,
  workspaceId: number,
  id: number,
  change: Partial<EndpointFields>,
  actor: Actor | null,
): Promise<WebhookEndpoint | undefined> {
  // `old` locks the row and reads it as it is before the change (the one the change applies to).
  const { rows } = await db.query(
    `WITH old AS (
       SELECT id, url, description, events, enabled FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 FOR UPDATE
     ), changed AS (
       UPDATE webhook_endpoints e SET url = COALESCE($3, e.url), description = COALESCE($4, e.description),
         events = COALESCE($5, e.events), enabled = COALESCE($6, e.enabled), updated_at = now()
       FROM old WHERE e.id = old.id RETURNING e.*
     ), ${auditCte(7, {
       ...CHANGED,
       from: 'changed c JOIN old o USING (id)',
       before: `${endpointDoc('o')} - $13::text[]`,
       after: `${endpointDoc('c')} - $13::text[]`,
     })}
     SELECT id FROM changed`,
    [
      workspaceId,
      id,
      change.url ?? null,
      change.description ?? null,
      change.events ?? null,
      change.enabled ?? null,
      ...auditParams(actor, 'webhook.update', 'webhook'),
      FIELDS.filter((field) => change[field] === undefined),
    ],
  );
  return rows.length === 0 ? undefined : findEndpoint(db, workspaceId, id);
}

/** Removes an endpoint and its deliveries (waiting ones are not sent); false if there was none. */
export async function deleteEndpoint(db: Queryable, workspaceId: number, id: number, actor: Actor | null): Promise<boolean> {
  const { rows } = await db.query(
    `WITH changed AS (DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 RETURNING *),
     ${auditCte(3, { ...CHANGED, before: endpointDoc('c'), after: 'NULL::jsonb' })}
     SELECT id FROM changed`,
    [workspaceId, id, ...auditParams(actor, 'webhook.delete', 'webhook')],
  );
  return rows.length > 0;
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
  actor: Actor | null,
): Promise<EndpointSecret | undefined> {
  const { rows } = await db.query<{ previous_until: Date | null }>(
    `WITH changed AS (
       UPDATE webhook_endpoints SET previous_secret = secret, secret = $3,
         previous_until = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 millisecond' END, updated_at = now()
       WHERE workspace_id = $1 AND id = $2 RETURNING id, workspace_id, previous_until
     ), ${auditCte(5, { ...CHANGED, before: 'NULL::jsonb', after: "jsonb_build_object('previousSecretExpiresAt', c.previous_until)" })}
     SELECT previous_until FROM changed`,
    [workspaceId, id, secret, overlapMs, ...auditParams(actor, 'webhook.secret-rotate', 'webhook')],
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

  /** Adds an endpoint unless the workspace has `max` already (undefined then). Each change is audited as `actor`'s. */
  add(workspaceId: number, fields: EndpointFields, secret: string, max: number, actor: Actor): Promise<WebhookEndpoint | undefined> {
    return this.#breaker.run(() => insertEndpoint(this.#pool, workspaceId, fields, secret, max, actor));
  }

  change(workspaceId: number, id: number, change: Partial<EndpointFields>, actor: Actor): Promise<WebhookEndpoint | undefined> {
    return this.#breaker.run(() => updateEndpoint(this.#db, workspaceId, id, change, actor));
  }

  remove(workspaceId: number, id: number, actor: Actor): Promise<boolean> {
    return this.#breaker.run(() => deleteEndpoint(this.#db, workspaceId, id, actor));
  }

  secret(workspaceId: number, id: number): Promise<EndpointSecret | undefined> {
    return this.#breaker.run(() => readSecret(this.#db, workspaceId, id));
  }

  rotate(workspaceId: number, id: number, secret: string, overlapMs: number, actor: Actor): Promise<EndpointSecret | undefined> {
    return this.#breaker.run(() => rotateSecret(this.#db, workspaceId, id, secret, overlapMs, actor));
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

  /** A test event for the endpoint, due now; undefined if the workspace has no such endpoint. */
  sendTest(workspaceId: number, endpointId: number): Promise<DeliveryRecord | undefined> {
    return this.#breaker.run(() => enqueueTestEvent(this.#db, workspaceId, endpointId));
  }
}
