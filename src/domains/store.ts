// The short domains of workspaces (core/domains.ts) in Postgres: listed with their links, added,
// changed, and removed with their links moved, each through the breaker. Domain 0, the default,
// has no host here: its host is BASE_URL's. The read of every domain for the host table is the
// read path's (db/domain-rows.ts). Each change writes its audit entry (audit/audit.ts) in its own
// statement or transaction.

import type { LinkKey } from '../core/domains.ts';
import type { Link, LinkSafety } from '../core/link.ts';
import type { LinkOptions } from '../core/link-options.ts';
import type { ShortCode } from '../core/codes.ts';
import type pg from 'pg';
import { DOMAIN_COLUMNS, domainOf, type DomainRow } from '../db/domain-rows.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';
import { type DomainFallbacks, type DomainRecord } from '../core/domains.ts';
import { EXPIRED } from './verification-store.ts';
import { auditCte, auditParams, recordAudit, type Actor } from '../audit/audit.ts';

/** How many live links of workspace $1 are on domain d. */
const LINKS_ON = '(SELECT count(*) FROM links l WHERE l.workspace_id = $1 AND l.domain_id = d.id AND NOT l.deleted) AS links';

/** What the audit log records of domain `x`'s fallbacks (SQL). */
const fallbacksDoc = (x: string) =>
  `jsonb_build_object('rootRedirect', ${x}.root_redirect, 'notFoundRedirect', ${x}.not_found_redirect, 'expiredRedirect', ${x}.expired_redirect)`;

/** What the audit log records of domain `x` (SQL). */
const domainDoc = (x: string) => `jsonb_build_object('host', ${x}.host, 'status', ${x}.verification_status) || ${fallbacksDoc(x)}`;

const FALLBACK_FIELDS = ['rootRedirect', 'notFoundRedirect', 'expiredRedirect'] as const;

/** A domain, with how many of the workspace's links are on it. */
export type CountedDomain = DomainRecord & { readonly links: number };

const countedOf = (row: DomainRow & { links: string }): CountedDomain => ({ ...domainOf(row), links: Number(row.links) });

/** The domains a workspace may put links on (the default first, then its own by host), with how many of its links each has. */
async function readWorkspaceDomains(db: Queryable, workspaceId: number): Promise<CountedDomain[]> {
  const { rows } = await db.query<DomainRow & { links: string }>(
    `SELECT ${DOMAIN_COLUMNS}, ${LINKS_ON}
     FROM domains d WHERE d.id = 0 OR d.workspace_id = $1
     ORDER BY d.id <> 0, d.host`,
    [workspaceId],
  );
  return rows.map(countedOf);
}

/** What adding a host came to: the domain, or who holds the host. */
export type DomainAddition =
  { readonly outcome: 'added'; readonly domain: DomainRecord } | { readonly outcome: 'taken' } | { readonly outcome: 'pending-elsewhere' };

/** A new domain's verification: its token, and whether it is served at once (DOMAIN_VERIFICATION=false). */
export interface NewVerification {
  readonly token: string;
  readonly verified: boolean;
  /** How long another workspace's pending claim holds the host. */
  readonly pendingTtlMs: number;
}

/**
 * Adds a domain to a workspace. Another workspace's pending claim that expired, with no link on
 * it, goes first; a host held otherwise is 'taken', or 'pending-elsewhere' while another
 * workspace's claim is pending.
 */
async function insertDomain(
  db: Queryable,
  workspaceId: number,
  host: string,
  fallbacks: DomainFallbacks,
  verification: NewVerification,
  actor: Actor | null,
): Promise<DomainAddition> {
  await db.query(`DELETE FROM domains d WHERE d.host = $2 AND d.workspace_id <> $3 AND ${EXPIRED}`, [
    verification.pendingTtlMs,
    host,
    workspaceId,
  ]);
  const { rows } = await db.query<DomainRow>(
    `WITH added AS (
       INSERT INTO domains AS d (workspace_id, host, root_redirect, not_found_redirect, expired_redirect,
         verification_token, verification_status, verified_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $7 = 'verified' THEN now() END)
       ON CONFLICT (host) DO NOTHING RETURNING ${DOMAIN_COLUMNS}
     ), ${auditCte(8, { from: 'added a', workspaceId: 'a.workspace_id', targetId: 'a.host', before: 'NULL::jsonb', after: domainDoc('a') })}
     SELECT * FROM added`,
    [
      workspaceId,
      host,
      fallbacks.rootRedirect,
      fallbacks.notFoundRedirect,
      fallbacks.expiredRedirect,
      verification.token,
      verification.verified ? 'verified' : 'pending',
      ...auditParams(actor, 'domain.add', 'domain'),
    ],
  );
  const row = rows[0];
  if (row !== undefined) return { outcome: 'added', domain: domainOf(row) };
  const holder = await db.query<{ workspace_id: string; verification_status: string }>(
    'SELECT workspace_id, verification_status FROM domains WHERE host = $1',
    [host],
  );
  const held = holder.rows[0];
  const elsewhere = held !== undefined && Number(held.workspace_id) !== workspaceId && held.verification_status === 'pending';
  return { outcome: elsewhere ? 'pending-elsewhere' : 'taken' };
}

/** Changes the fallbacks given (undefined: kept) of a workspace's domain; undefined when it has no such domain. */
async function updateDomain(
  db: Queryable,
  workspaceId: number,
  host: string,
  change: Partial<DomainFallbacks>,
  actor: Actor | null,
): Promise<CountedDomain | undefined> {
  // `old` locks the row and reads it as it is before the change (the one the change applies to).
  const { rows } = await db.query<DomainRow & { links: string }>(
    `WITH old AS (
       SELECT id, root_redirect, not_found_redirect, expired_redirect FROM domains WHERE workspace_id = $1 AND host = $2 FOR UPDATE
     ), changed AS (
       UPDATE domains AS d SET
         root_redirect = CASE WHEN $3 THEN $4 ELSE d.root_redirect END,
         not_found_redirect = CASE WHEN $5 THEN $6 ELSE d.not_found_redirect END,
         expired_redirect = CASE WHEN $7 THEN $8 ELSE d.expired_redirect END
       FROM old WHERE d.id = old.id RETURNING ${DOMAIN_COLUMNS}, ${LINKS_ON}
     ), ${auditCte(9, {
       from: 'changed c JOIN old o USING (id)',
       workspaceId: 'c.workspace_id',
       targetId: 'c.host',
       before: `${fallbacksDoc('o')} - $15::text[]`,
       after: `${fallbacksDoc('c')} - $15::text[]`,
     })}
     SELECT * FROM changed`,
    [
      workspaceId,
      host,
      change.rootRedirect !== undefined,
      change.rootRedirect ?? null,
      change.notFoundRedirect !== undefined,
      change.notFoundRedirect ?? null,
      change.expiredRedirect !== undefined,
      change.expiredRedirect ?? null,
      ...auditParams(actor, 'domain.update', 'domain'),
      FALLBACK_FIELDS.filter((field) => change[field] === undefined),
    ],
  );
  const row = rows[0];
  return row === undefined ? undefined : countedOf(row);
}

export type DomainRemoval =
  | { readonly outcome: 'removed'; readonly moved: readonly Link[]; readonly left: readonly LinkKey[] }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'in-use' }
  | { readonly outcome: 'conflict'; readonly codes: readonly string[] };

interface MovedRow {
  code: ShortCode;
  url: string;
  expires_at: Date | null;
  starts_at: Date | null;
  disabled: boolean;
  safety: LinkSafety | null;
  safety_list: string | null;
  version: number;
  options: LinkOptions | null;
}

/** The domain a removed one's links move to: its id, and its host (for the audit log). */
export interface MoveTarget {
  readonly id: number;
  readonly host: string;
}

/**
 * Removes a workspace's domain, in one transaction with its audit entry (`actor`'s; null: none).
 * Its live links move to `target` (a domain the caller has checked the workspace may use), each one
 * version newer; without `target`, a domain that still has live links is 'in-use'. An alias that exists on the target already is a
 * 'conflict' (the first few are named), and nothing changes. The rows of its deleted links go
 * (their codes are nowhere to be asked for once the host is gone). `left`: the keys of the links
 * the domain had, whose cached copies are now to be dropped everywhere.
 */
async function removeDomain(
  pool: pg.Pool,
  workspaceId: number,
  host: string,
  target: MoveTarget | null,
  actor: Actor | null,
): Promise<DomainRemoval> {
  return inTransaction(
    pool,
    async (client) => {
      const removal = await removeInTransaction(client, workspaceId, host, target?.id ?? null);
      if (removal.outcome !== 'removed' || actor === null) return removal;
      await recordAudit(client, actor, {
        workspaceId,
        action: 'domain.remove',
        targetType: 'domain',
        targetId: host,
        before: removal.before,
        after: target === null ? null : { linksMovedTo: target.host, links: removal.moved.length },
      });
      return removal;
    },
    (removal) => removal.outcome === 'removed',
  );
}

type Removed = Extract<DomainRemoval, { outcome: 'removed' }> & { readonly before: object };

async function removeInTransaction(
  db: Queryable,
  workspaceId: number,
  host: string,
  moveTo: number | null,
): Promise<Exclude<DomainRemoval, { outcome: 'removed' }> | Removed> {
  const found = await db.query<{ id: string; before: object }>(
    `SELECT d.id, ${domainDoc('d')} AS before FROM domains d WHERE d.workspace_id = $1 AND d.host = $2 FOR UPDATE`,
    [workspaceId, host],
  );
  const id = found.rows[0]?.id;
  if (id === undefined) return { outcome: 'not-found' };
  const live = await db.query<{ code: string }>('SELECT code FROM links WHERE domain_id = $1 AND NOT deleted LIMIT 1', [id]);
  if (live.rows.length > 0 && moveTo === null) return { outcome: 'in-use' };
  if (moveTo !== null) {
    const clash = await db.query<{ code: string }>(
      `SELECT a.code FROM links a JOIN links b ON b.domain_id = $2 AND b.code = a.code
       WHERE a.domain_id = $1 AND NOT a.deleted ORDER BY a.code LIMIT 10`,
      [id, moveTo],
    );
    if (clash.rows.length > 0) return { outcome: 'conflict', codes: clash.rows.map((row) => row.code) };
  }
  // Rows that name a deleted link of the domain, then those links (their totals go by cascade).
  const gone = await db.query<{ code: ShortCode }>('SELECT code FROM links WHERE domain_id = $1 AND deleted', [id]);
  await db.query(
    'DELETE FROM link_clicks_daily d USING links l WHERE l.domain_id = $1 AND l.deleted AND d.domain_id = l.domain_id AND d.code = l.code',
    [id],
  );
  await db.query(
    'DELETE FROM click_rollups r USING links l WHERE l.domain_id = $1 AND l.deleted AND r.domain_id = l.domain_id AND r.code = l.code',
    [id],
  );
  await db.query(
    'DELETE FROM idempotency_keys k USING links l WHERE l.domain_id = $1 AND l.deleted AND k.domain_id = l.domain_id AND k.code = l.code',
    [id],
  );
  await db.query('DELETE FROM links WHERE domain_id = $1 AND deleted', [id]);
  let moved: Link[] = [];
  if (moveTo !== null) {
    // Totals, days, rollups and Idempotency-Keys follow by ON UPDATE CASCADE (migrations/0008, 0009).
    const { rows } = await db.query<MovedRow>(
      `UPDATE links SET domain_id = $2, version = version + 1 WHERE domain_id = $1
       RETURNING code, url, expires_at, starts_at, disabled, safety, safety_list, version, options`,
      [id, moveTo],
    );
    moved = rows.map((row) => ({
      domainId: moveTo,
      code: row.code,
      url: row.url,
      expiresAt: row.expires_at,
      startsAt: row.starts_at,
      disabled: row.disabled,
      safety: row.safety,
      safetyList: row.safety_list,
      deleted: false,
      version: row.version,
      options: row.options,
    }));
  }
  await db.query('DELETE FROM domains WHERE id = $1', [id]);
  const prefix = `${id}:`;
  const left = [...gone.rows, ...moved].map((link) => `${prefix}${link.code}` as LinkKey);
  return { outcome: 'removed', moved, left, before: found.rows[0]?.before ?? {} };
}

export class DomainStore {
  readonly #db: Queryable;
  readonly #pool: pg.Pool;
  readonly #breaker: DbBreaker;

  /** `pool`: for the removal's transaction. */
  constructor(db: Queryable, pool: pg.Pool, breaker: DbBreaker) {
    this.#db = db;
    this.#pool = pool;
    this.#breaker = breaker;
  }

  /** The default domain and the workspace's own, each with the workspace's live links on it. */
  list(workspaceId: number): Promise<CountedDomain[]> {
    return this.#breaker.run(() => readWorkspaceDomains(this.#db, workspaceId));
  }

  /** Adds `host` to the workspace (see insertDomain); audited as `actor`'s (null: not). */
  add(
    workspaceId: number,
    host: string,
    fallbacks: DomainFallbacks,
    verification: NewVerification,
    actor: Actor | null,
  ): Promise<DomainAddition> {
    return this.#breaker.run(() => insertDomain(this.#db, workspaceId, host, fallbacks, verification, actor));
  }

  /** Changes the fallbacks given; undefined if the workspace has no such domain. Audited. */
  change(workspaceId: number, host: string, change: Partial<DomainFallbacks>, actor: Actor | null): Promise<CountedDomain | undefined> {
    return this.#breaker.run(() => updateDomain(this.#db, workspaceId, host, change, actor));
  }

  /** Removes the workspace's `host`, its live links moved to domain `moveTo` (see removeDomain). Audited. */
  remove(workspaceId: number, host: string, moveTo: MoveTarget | null, actor: Actor | null): Promise<DomainRemoval> {
    return this.#breaker.run(() => removeDomain(this.#pool, workspaceId, host, moveTo, actor));
  }
}
