// A workspace's settings (migrations/0016_people.sql, 0019_workspace_brand.sql; docs/settings.md):
// its name, the email domain whose verified people may join it on their own, the factors it
// requires, how long its audit log is kept, its brand, its default domain and its session length.

import type { Queryable } from '../db/pool.ts';
import { isHostName } from '../config/schema.ts';
import { AppError } from '../errors.ts';
import { checkBrandColor, checkBrandLogo, checkBrandName, type Checked, type Logo, type LogoType } from './brand.ts';

export interface Brand {
  readonly name: string | null;
  readonly color: string | null;
  readonly logo: Logo | null;
}

export interface WorkspaceSettings {
  readonly id: number;
  readonly name: string;
  readonly joinDomain: string | null;
  readonly requireSecondFactor: boolean;
  readonly requireSso: boolean;
  readonly auditRetentionDays: number;
  readonly brand: Brand;
  /** The host of the domain a create naming none goes on; null: the deployment's default domain. */
  readonly defaultDomain: string | null;
  /** The most hours a session in it lasts; null: SESSION_TTL_HOURS. */
  readonly sessionHours: number | null;
}

export interface SettingsChange {
  readonly name?: string | undefined;
  readonly joinDomain?: string | null | undefined;
  readonly auditRetentionDays?: number | undefined;
  /** Whether the route may turn it on is the route's to say (member-routes.ts: only a session signed in by SSO). */
  readonly requireSso?: boolean | undefined;
  /** The same (member-routes.ts: only a session signed in with a second factor). */
  readonly requireSecondFactor?: boolean | undefined;
  /** Each part left out is kept; null removes it. The logo is a data: URL. */
  readonly brand?: { readonly name?: string | null; readonly color?: string | null; readonly logo?: string | null } | undefined;
  /** The id of a served domain of the workspace (the route checks the host it was named by), or null. */
  readonly defaultDomainId?: number | null | undefined;
  readonly sessionHours?: number | null | undefined;
}

export const SESSION_HOURS_MAX = 8760;

export async function readSettings(db: Queryable, workspaceId: number): Promise<WorkspaceSettings> {
  const { rows } = await db.query<{
    id: string;
    name: string;
    join_domain: string | null;
    require_second_factor: boolean;
    require_sso: boolean;
    audit_retention_days: number;
    brand_name: string | null;
    brand_color: string | null;
    brand_logo: Buffer | null;
    brand_logo_type: LogoType | null;
    default_domain: string | null;
    session_hours: number | null;
  }>(
    `SELECT w.id, w.name, w.join_domain, w.require_second_factor, w.require_sso, w.audit_retention_days,
            w.brand_name, w.brand_color, w.brand_logo, w.brand_logo_type, d.host AS default_domain, w.session_hours
     FROM workspaces w LEFT JOIN domains d ON d.id = w.default_domain_id WHERE w.id = $1`,
    [workspaceId],
  );
  const row = rows[0];
  if (row === undefined) throw new AppError('WORKSPACE_NOT_FOUND');
  return {
    id: Number(row.id),
    name: row.name,
    joinDomain: row.join_domain,
    requireSecondFactor: row.require_second_factor,
    requireSso: row.require_sso,
    auditRetentionDays: row.audit_retention_days,
    brand: {
      name: row.brand_name,
      color: row.brand_color,
      logo: row.brand_logo === null || row.brand_logo_type === null ? null : { type: row.brand_logo_type, bytes: row.brand_logo },
    },
    defaultDomain: row.default_domain,
    sessionHours: row.session_hours,
  };
}

function invalid(field: string, message: string): never {
  throw new AppError('WORKSPACE_SETTINGS_INVALID', message, { field });
}

/** A checked value, or its error on its field. */
function checked<T>(verdict: Checked<T>, field: string): T {
  if (!verdict.ok) throw new AppError(verdict.code, undefined, { field });
  return verdict.value;
}

/** `raw` checked when it is a value; null and undefined as they are. */
function orNull<T, R>(raw: T | null | undefined, check: (value: T) => R): R | null | undefined {
  if (raw === null) return null;
  return raw === undefined ? undefined : check(raw);
}

/**
 * Applies a change; 400 WORKSPACE_SETTINGS_INVALID, SESSION_HOURS_INVALID or a BRAND_* code for a
 * value it does not take (on its field), 409 CONFLICT for a name another workspace has.
 */
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
  const hours = change.sessionHours;
  if (typeof hours === 'number' && (!Number.isInteger(hours) || hours < 1 || hours > SESSION_HOURS_MAX))
    throw new AppError('SESSION_HOURS_INVALID', undefined, { field: 'sessionHours' });
  const brand = change.brand ?? {};
  const brandName = orNull(brand.name, (name) => checked(checkBrandName(name), 'brand.name'));
  const brandColor = orNull(brand.color, (color) => checked(checkBrandColor(color), 'brand.color'));
  const logo = orNull(brand.logo, (url) => checked(checkBrandLogo(url), 'brand.logo'));
  // $n::boolean says "this one is set" (to null too); each column keeps its value otherwise.
  await db.query(
    `UPDATE workspaces SET
       name = coalesce($2, name),
       join_domain = CASE WHEN $3 THEN $4 ELSE join_domain END,
       audit_retention_days = coalesce($5, audit_retention_days),
       require_sso = coalesce($6, require_sso),
       require_second_factor = coalesce($7, require_second_factor),
       brand_name = CASE WHEN $8 THEN $9 ELSE brand_name END,
       brand_color = CASE WHEN $10 THEN $11 ELSE brand_color END,
       brand_logo = CASE WHEN $12 THEN $13::bytea ELSE brand_logo END,
       brand_logo_type = CASE WHEN $12 THEN $14 ELSE brand_logo_type END,
       default_domain_id = CASE WHEN $15 THEN $16::bigint ELSE default_domain_id END,
       session_hours = CASE WHEN $17 THEN $18::integer ELSE session_hours END
     WHERE id = $1`,
    [
      workspaceId,
      change.name ?? null,
      joinDomain !== undefined,
      joinDomain ?? null,
      days ?? null,
      change.requireSso ?? null,
      change.requireSecondFactor ?? null,
      brandName !== undefined,
      brandName ?? null,
      brandColor !== undefined,
      brandColor ?? null,
      logo !== undefined,
      logo?.bytes ?? null,
      logo?.type ?? null,
      change.defaultDomainId !== undefined,
      change.defaultDomainId ?? null,
      hours !== undefined,
      hours ?? null,
    ],
  );
  return readSettings(db, workspaceId);
}

/** The settings as the audit log keeps them: a logo by its type and size, not its bytes. */
export function auditedSettings(settings: WorkspaceSettings): object {
  const { logo } = settings.brand;
  return { ...settings, brand: { ...settings.brand, logo: logo === null ? null : { type: logo.type, bytes: logo.bytes.length } } };
}
