// Short domains as rows (migrations/0007_domains.sql), and the read of them all that the host table
// serves (resolve/hosts.ts). Domain 0, the default, has no host here: its host is BASE_URL's.
// The domains' management is the domains feature's (domains/store.ts).

import type { Brand } from '../core/brand.ts';
import type { DomainRecord, DomainStatus } from '../core/domains.ts';
import { DEFAULT_WORKSPACE_ID } from '../core/link.ts';
import type { BrandReader, BrandRow } from './brand-rows.ts';
import type { Queryable } from './pool.ts';

export interface DomainRow {
  id: string;
  workspace_id: string | null;
  host: string | null;
  root_redirect: string | null;
  not_found_redirect: string | null;
  expired_redirect: string | null;
  created_at: Date;
  verification_token: string | null;
  verification_status: DomainStatus;
  verified_at: Date | null;
  last_checked_at: Date | null;
  check_failures: number;
}

export const DOMAIN_COLUMNS =
  'd.id, d.workspace_id, d.host, d.root_redirect, d.not_found_redirect, d.expired_redirect, d.created_at, ' +
  'd.verification_token, d.verification_status, d.verified_at, d.last_checked_at, d.check_failures';

export function domainOf(row: DomainRow): DomainRecord {
  return {
    id: Number(row.id),
    host: row.host,
    workspaceId: row.workspace_id === null ? null : Number(row.workspace_id),
    rootRedirect: row.root_redirect,
    notFoundRedirect: row.not_found_redirect,
    expiredRedirect: row.expired_redirect,
    createdAt: row.created_at,
    verification: {
      token: row.verification_token,
      status: row.verification_status,
      verifiedAt: row.verified_at,
      lastCheckedAt: row.last_checked_at,
      failures: row.check_failures,
    },
  };
}

/**
 * Every domain of the deployment, the default first, with its workspace's brand (the default
 * domain's: the first workspace's) and which workspaces have it as their default: what the host table serves. One query every REFRESH_MS; a
 * logo's bytes are read only when they changed (brand-rows.ts).
 */
export async function readServedDomains(
  db: Queryable,
  brands: BrandReader,
): Promise<{ domains: DomainRecord[]; brands: ReadonlyMap<number, Brand>; workspaceDefaults: ReadonlyMap<number, number> }> {
  const { rows } = await db.query<DomainRow & BrandRow & { workspace_default: boolean }>(
    `SELECT ${DOMAIN_COLUMNS}, w.id AS brand_workspace, w.brand_name, w.brand_color, w.brand_logo_type, md5(w.brand_logo) AS logo_hash, ` +
      `d.workspace_id IS NOT NULL AND w.default_domain_id IS NOT DISTINCT FROM d.id AS workspace_default ` +
      `FROM domains d LEFT JOIN workspaces w ON w.id = coalesce(d.workspace_id, ${DEFAULT_WORKSPACE_ID}) ORDER BY d.id`,
  );
  // A workspace's default domain (its settings) is one of its own: the row of that domain says so.
  const workspaceDefaults = new Map(rows.filter((row) => row.workspace_default).map((row) => [Number(row.workspace_id), Number(row.id)]));
  return { domains: rows.map(domainOf), brands: await brands.of(db, rows), workspaceDefaults };
}
