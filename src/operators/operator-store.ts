// The statements of the deployment's operators (docs/operators.md): who is one, the workspaces
// they see, a workspace's suspension (its links blocked under the list name "suspended", by one
// statement each way), and an entry of the operators' own blocklist.

import { SUSPENDED_LIST } from '../config/blocklist-settings.ts';
import type { Link } from '../core/link.ts';
import { CHANGED_COLUMNS, linkOf, type LinkRow } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';

/** Whether the person is an operator of the deployment. */
export async function isOperator(db: Queryable, personId: number): Promise<boolean> {
  const { rows } = await db.query<{ operator: boolean }>('SELECT operator FROM people WHERE id = $1', [personId]);
  return rows[0]?.operator === true;
}

/** Makes the person with `email` an operator, or not; false if nobody has that address. */
export async function setOperator(db: Queryable, email: string, operator: boolean): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE people SET operator = $2 WHERE email = lower($1)', [email, operator]);
  return rowCount === 1;
}

export async function listOperators(db: Queryable): Promise<{ id: number; name: string; email: string }[]> {
  const { rows } = await db.query<{ id: string; name: string; email: string }>(
    'SELECT id, name, email FROM people WHERE operator ORDER BY id',
  );
  return rows.map((row) => ({ id: Number(row.id), name: row.name, email: row.email }));
}

export interface WorkspaceSummary {
  readonly id: number;
  readonly name: string;
  readonly members: number;
  readonly links: number;
  readonly suspended: boolean;
  readonly suspendedAt: Date | null;
}

/** Every workspace with its members and live links counted, suspended ones first, then by name. */
export async function workspaceSummaries(db: Queryable): Promise<WorkspaceSummary[]> {
  const { rows } = await db.query<{ id: string; name: string; members: string; links: string; suspended_at: Date | null }>(
    `SELECT w.id, w.name, w.suspended_at,
            (SELECT count(*) FROM memberships m WHERE m.workspace_id = w.id) AS members,
            (SELECT count(*) FROM links l WHERE l.workspace_id = w.id AND NOT l.deleted) AS links
     FROM workspaces w ORDER BY w.suspended_at IS NULL, w.name, w.id`,
  );
  return rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    members: Number(row.members),
    links: Number(row.links),
    suspended: row.suspended_at !== null,
    suspendedAt: row.suspended_at,
  }));
}

/** The workspace's name and whether it is suspended; undefined for none. */
export async function workspaceState(db: Queryable, id: number): Promise<{ name: string; suspended: boolean } | undefined> {
  const { rows } = await db.query<{ name: string; suspended: boolean }>(
    'SELECT name, suspended_at IS NOT NULL AS suspended FROM workspaces WHERE id = $1',
    [id],
  );
  return rows[0];
}

/** Marks the workspace suspended, or lifts the mark; false when it already was so. Its links follow in batches (suspendedLinks). */
export async function markSuspended(db: Queryable, id: number, suspended: boolean): Promise<boolean> {
  const { rowCount } = await db.query(
    suspended
      ? 'UPDATE workspaces SET suspended_at = now() WHERE id = $1 AND suspended_at IS NULL'
      : 'UPDATE workspaces SET suspended_at = NULL WHERE id = $1 AND suspended_at IS NOT NULL',
    [id],
  );
  return rowCount === 1;
}

/**
 * Up to `limit` links of the workspace brought in line with its suspension, one version newer: while
 * it is suspended, its links nothing else acted on (safety IS NULL) are blocked under SUSPENDED_LIST;
 * once it is not, exactly those are unblocked, left to be indexed and judged by the blocklists again
 * (links/safety.ts: a list may have named them meanwhile). The workspace's state is read by the same
 * statement, so that a batch after a change of mind does nothing. Returns the links changed, to
 * announce; [] when none is left. Batches, not one statement: each link is a new version in every
 * index of links (about 1 ms), and a big workspace would outlast DB_STATEMENT_TIMEOUT_MS.
 */
export async function suspendedLinks(db: Queryable, id: number, limit: number): Promise<Link[]> {
  const { rows } = await db.query<LinkRow>(
    `WITH w AS (SELECT id, suspended_at IS NOT NULL AS suspended FROM workspaces WHERE id = $1),
     todo AS (
       SELECT l.domain_id, l.code FROM links l, w
       WHERE l.workspace_id = w.id AND NOT l.deleted
         AND CASE WHEN w.suspended THEN l.safety IS NULL ELSE l.safety = 'blocked' AND l.safety_list = $2 END
       LIMIT $3
     )
     UPDATE links l SET
       safety = CASE WHEN w.suspended THEN 'blocked' END,
       safety_list = CASE WHEN w.suspended THEN $2 END,
       target_domains = CASE WHEN w.suspended THEN l.target_domains END,
       version = l.version + 1
     FROM todo, w WHERE l.domain_id = todo.domain_id AND l.code = todo.code
     RETURNING ${prefixed('l')}`,
    [id, SUSPENDED_LIST, limit],
  );
  return rows.map(linkOf);
}

const prefixed = (alias: string) =>
  CHANGED_COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');

/** Adds an entry to the operators' blocklist (operator_blocklist); false if it was there already. */
export async function addOperatorEntry(db: Queryable, entry: string, reason: string, personId: number): Promise<boolean> {
  const { rowCount } = await db.query(
    'INSERT INTO operator_blocklist (entry, reason, added_by) VALUES ($1, $2, $3) ON CONFLICT (entry) DO NOTHING',
    [entry, reason.slice(0, 500), personId],
  );
  return rowCount === 1;
}
