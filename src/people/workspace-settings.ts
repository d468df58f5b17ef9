// A workspace's settings (migrations/0016_people.sql): its name, the email domain whose verified
// people may join it on their own, the factors it requires, and how long its audit log is kept.

import type { Queryable } from '../db/pool.ts';
import { isHostName } from '../config/schema.ts';
import { AppError } from '../errors.ts';

export interface WorkspaceSettings {
  readonly id: number;
  readonly name: string;
  readonly joinDomain: string | null;
  readonly requireSecondFactor: boolean;
  readonly requireSso: boolean;
  readonly auditRetentionDays: number;
}

export interface SettingsChange {
  readonly name?: string | undefined;
  readonly joinDomain?: string | null | undefined;
  readonly auditRetentionDays?: number | undefined;
  /** Whether the route may turn it on is the route's to say (member-routes.ts: only a session signed in by SSO). */
  readonly requireSso?: boolean | undefined;
  /** The same (member-routes.ts: only a session signed in with a second factor). */
  readonly requireSecondFactor?: boolean | undefined;
}

export async function readSettings(db: Queryable, workspaceId: number): Promise<WorkspaceSettings> {
  const { rows } = await db.query<{
    id: string;
    name: string;
    join_domain: string | null;
    require_second_factor: boolean;
    require_sso: boolean;
    audit_retention_days: number;
  }>('SELECT id, name, join_domain, require_second_factor, require_sso, audit_retention_days FROM workspaces WHERE id = $1', [workspaceId]);
  const row = rows[0];
  if (row === undefined) throw new AppError('WORKSPACE_NOT_FOUND');
  return {
    id: Number(row.id),
    name: row.name,
    joinDomain: row.join_domain,
    requireSecondFactor: row.require_second_factor,
    requireSso: row.require_sso,
    auditRetentionDays: row.audit_retention_days,
  };
}

function invalid(field: string, message: string): never {
  throw new AppError('WORKSPACE_SETTINGS_INVALID', message, { field });
}

/** Applies a change; 400 WORKSPACE_SETTINGS_INVALID for a value it does not take, 409 CONFLICT for a name another workspace has. */
export async function writeSettings(db: Queryable, workspaceId: number, change: SettingsChange): Promise<WorkspaceSettings> {
  let joinDomain = change.joinDomain;
  if (typeof joinDomain === 'string') {
    joinDomain = joinDomain.trim().toLowerCase().replace(/^@/, '');
    if (joinDomain === '') joinDomain = null;
    else if (!isHostName(joinDomain) || !joinDomain.includes('.'))
      invalid('joinDomain', 'joinDomain must be a domain such as example.com, or null.');
  }
  const days = change.auditRetentionDays;
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 3650))
    invalid('auditRetentionDays', 'auditRetentionDays must be 1 to 3650.');
  await db.query(
    `UPDATE workspaces SET
       name = coalesce($2, name),
       join_domain = CASE WHEN $3 THEN $4 ELSE join_domain END,
       audit_retention_days = coalesce($5, audit_retention_days),
       require_sso = coalesce($6, require_sso),
       require_second_factor = coalesce($7, require_second_factor)
     WHERE id = $1`,
    [
      workspaceId,
      change.name ?? null,
      joinDomain !== undefined,
      joinDomain ?? null,
      days ?? null,
      change.requireSso ?? null,
      change.requireSecondFactor ?? null,
    ],
  );
  return readSettings(db, workspaceId);
}
