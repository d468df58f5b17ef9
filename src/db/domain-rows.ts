// Short domains as rows (migrations/0007_domains.sql), and the read of them all that the host table
// serves (resolve/hosts.ts). Domain 0, the default, has no host here: its host is BASE_URL's.
// The domains' management is the domains feature's (domains/store.ts).

import type { DomainRecord } from '../core/domains.ts';
import type { Queryable } from './pool.ts';

export interface DomainRow {
  id: string;
  workspace_id: string | null;
  host: string | null;
  root_redirect: string | null;
  not_found_redirect: string | null;
  expired_redirect: string | null;
  created_at: Date;
}

export const DOMAIN_COLUMNS = 'd.id, d.workspace_id, d.host, d.root_redirect, d.not_found_redirect, d.expired_redirect, d.created_at';

export function domainOf(row: DomainRow): DomainRecord {
  return {
    id: Number(row.id),
    host: row.host,
    workspaceId: row.workspace_id === null ? null : Number(row.workspace_id),
    rootRedirect: row.root_redirect,
    notFoundRedirect: row.not_found_redirect,
    expiredRedirect: row.expired_redirect,
    createdAt: row.created_at,
  };
}

/** Every domain of the deployment, the default first: what the host table serves. */
export async function readAllDomains(db: Queryable): Promise<DomainRecord[]> {
  const { rows } = await db.query<DomainRow>(`SELECT ${DOMAIN_COLUMNS} FROM domains d ORDER BY d.id`);
  return rows.map(domainOf);
}
