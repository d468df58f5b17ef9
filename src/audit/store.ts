// The audit log in Postgres, read: a workspace's entries a keyset page at a time (newest first,
// filtered), and dropped once older than the workspace's audit_retention_days. Every statement on
// the pool and through the breaker the store is given: the auth pool's (db/plugin.ts), as keys and
// sessions are. Writing an entry is audit.ts's, in the transaction of the change.

import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import { recordAudit, type Actor, type AuditEntry } from './audit.ts';
import type { AuditFilter, AuditPageRequest } from './query.ts';

export interface AuditRecord {
  readonly id: number;
  readonly at: Date;
  readonly actorPersonId: number | null;
  readonly actorKeyId: number | null;
  readonly actorName: string | null;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string | null;
  readonly before: unknown;
  readonly after: unknown;
  readonly address: string | null;
}

interface AuditRow {
  id: string;
  at: Date;
  actor_person_id: string | null;
  actor_key_id: string | null;
  actor_name: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before: unknown;
  after: unknown;
  address: string | null;
}

const idOrNull = (id: string | null): number | null => (id === null ? null : Number(id));

function recordOf(row: AuditRow): AuditRecord {
  return {
    id: Number(row.id),
    at: row.at,
    actorPersonId: idOrNull(row.actor_person_id),
    actorKeyId: idOrNull(row.actor_key_id),
    actorName: row.actor_name,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    before: row.before,
    after: row.after,
    address: row.address,
  };
}

/** WHERE conditions of `filter`, their values appended to `values`. */
function conditions(filter: AuditFilter, values: unknown[]): string[] {
  const where: string[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (filter.actorPersonId !== undefined) where.push(`actor_person_id = ${param(filter.actorPersonId)}`);
  if (filter.actorKeyId !== undefined) where.push(`actor_key_id = ${param(filter.actorKeyId)}`);
  if (filter.action !== undefined) {
    // An action is letters, dots and hyphens (query.ts): nothing in a prefix is a LIKE wildcard.
    where.push(filter.action.prefix ? `action LIKE ${param(`${filter.action.value}%`)}` : `action = ${param(filter.action.value)}`);
  }
  if (filter.targetType !== undefined) where.push(`target_type = ${param(filter.targetType)}`);
  if (filter.targetId !== undefined) where.push(`target_id = ${param(filter.targetId)}`);
  if (filter.from !== undefined) where.push(`at >= ${param(filter.from)}`);
  if (filter.to !== undefined) where.push(`at < ${param(filter.to)}`);
  return where;
}

/** A page of `workspaceId`'s entries, newest first; `next`: the id the next page starts below, undefined after the last. */
export async function readAuditPage(
  db: Queryable,
  workspaceId: number,
  { filter, limit, before }: AuditPageRequest,
): Promise<{ entries: AuditRecord[]; next: number | undefined }> {
  const values: unknown[] = [workspaceId];
  const where = ['workspace_id = $1', ...conditions(filter, values)];
  if (before !== undefined) {
    values.push(before);
    where.push(`id < $${values.length}`);
  }
  values.push(limit + 1);
  const { rows } = await db.query<AuditRow>(
    `SELECT id, at, actor_person_id, actor_key_id, actor_name, action, target_type, target_id, before, after, address
     FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $${values.length}`,
    values,
  );
  const entries = rows.slice(0, limit).map(recordOf);
  return { entries, next: rows.length > limit ? entries.at(-1)?.id : undefined };
}

/** Rows one retention statement deletes at most: a short statement, and a short lock on each row. */
export const RETENTION_BATCH = 10_000;
/** Batches one round deletes at most (a backlog goes over the next rounds). */
const RETENTION_BATCHES_MAX = 100;
/** How long entries of no workspace (a failed sign-in for an unknown address) are kept: the column's default. */
export const NO_WORKSPACE_RETENTION_DAYS = 365;

/**
 * One batch: each workspace's entries older than its retention (an index probe a workspace, on
 * audit_log_by_workspace_at), then those of no workspace, RETENTION_BATCH at most.
 */
const DROP_BATCH = `WITH doomed AS (
     (SELECT a.id FROM workspaces w CROSS JOIN LATERAL (
        SELECT id FROM audit_log
        WHERE workspace_id = w.id AND at < now() - make_interval(days => w.audit_retention_days) LIMIT $1
      ) a LIMIT $1)
     UNION ALL
     (SELECT id FROM audit_log WHERE workspace_id IS NULL AND at < now() - make_interval(days => $2) LIMIT $1)
   )
   DELETE FROM audit_log WHERE id IN (SELECT id FROM doomed LIMIT $1)`;

/** Deletes, per workspace, the entries older than its audit_retention_days, a batch per statement; how many it deleted. */
export async function dropExpiredAudit(
  db: Queryable,
  run: <T>(batch: () => Promise<T>) => Promise<T> = (batch) => batch(),
): Promise<number> {
  let dropped = 0;
  for (let batch = 0; batch < RETENTION_BATCHES_MAX; batch++) {
    const { rowCount } = await run(() => db.query(DROP_BATCH, [RETENTION_BATCH, NO_WORKSPACE_RETENTION_DAYS]));
    dropped += rowCount ?? 0;
    if ((rowCount ?? 0) < RETENTION_BATCH) break;
  }
  return dropped;
}

/** What an AuditStore runs on: the auth pool and its breaker (db/plugin.ts). */
export interface AuditStoreDeps {
  readonly db: Queryable;
  readonly breaker: DbBreaker;
}

export class AuditStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  page(workspaceId: number, request: AuditPageRequest): Promise<{ entries: AuditRecord[]; next: number | undefined }> {
    return this.#breaker.run(() => readAuditPage(this.#db, workspaceId, request));
  }

  /** An entry of its own, for what changes nothing (an export): nothing to share a transaction with. */
  record(actor: Actor, entry: AuditEntry): Promise<void> {
    return this.#breaker.run(() => recordAudit(this.#db, actor, entry));
  }

  /** Drops the entries past their workspace's retention (each batch through the breaker); how many. */
  dropExpired(): Promise<number> {
    return dropExpiredAudit(this.#db, (batch) => this.#breaker.run(batch));
  }
}
