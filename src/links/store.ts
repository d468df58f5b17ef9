// The links of the management API in Postgres: a link's details (workspace, creator, click totals),
// its changes, the Idempotency-Keys of creates. The LinkStore runs each through the breaker;
// the statements of the read and write paths are db/links.ts's. A change or deletion writes its
// audit entry (audit/audit.ts) by the same statement, as it writes its event.

import type { ShortCode } from '../core/codes.ts';
import type { Link } from '../core/link.ts';
import type { LinkOptions } from '../core/link-options.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { CHANGED_COLUMNS, linkEvent, linkOf, type LinkRow } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';
import { type LinkRef } from '../core/link.ts';
import { auditCte, auditParams, type Actor, type AuditRows } from '../audit/audit.ts';

/** What may change in a link; a field left out keeps its value. */
export interface LinkChange {
  readonly url?: string;
  readonly expiresAt?: Date | null;
  readonly startsAt?: Date | null;
  readonly disabled?: boolean;
  readonly title?: string | null;
  readonly tags?: readonly string[];
  /** The whole of its options: null removes them all. */
  readonly options?: LinkOptions | null;
  /** true: archived (kept, redirecting, out of the default list); false: back in it. */
  readonly archived?: boolean;
}

const CHANGE_FIELDS = ['url', 'expiresAt', 'startsAt', 'disabled', 'title', 'tags', 'options', 'archived'] as const;

/** A link as a change leaves it: with when it was archived (null: it is not). */
export type ChangedLink = Link & { readonly archivedAt: Date | null };

/** What the audit log records of link `x` (SQL): what a change may change, its options without the password's hash. */
const linkDoc = (x: string) => `jsonb_build_object('url', ${x}.url, 'title', ${x}.title, 'tags', to_jsonb(${x}.tags),
  'expiresAt', ${x}.expires_at, 'startsAt', ${x}.starts_at, 'disabled', ${x}.disabled, 'archived', ${x}.archived_at IS NOT NULL, 'options', CASE WHEN ${x}.options ? 'passwordHash'
    THEN ${x}.options - 'passwordHash' - 'passTag' || '{"password": true}' ELSE ${x}.options END)`;

/** Where an entry of a link's change comes from: the changed row `c` (RETURNING *), named `host/code` (`code` on the default domain). */
const CHANGED_LINK = {
  from: 'changed c LEFT JOIN domains ad ON ad.id = c.domain_id',
  workspaceId: 'c.workspace_id',
  targetId: "coalesce(ad.host || '/', '') || c.code",
} satisfies Partial<AuditRows>;

/**
 * Changes one link and returns its new state (its version one higher), or undefined if there is
 * none; its `link.updated` event and its audit entry (`actor`'s; null: none) are written by the
 * same statement, the entry with the fields asked for as they were and are.
 */
export async function updateLink(
  db: Queryable,
  { domainId, code }: LinkRef,
  change: LinkChange,
  actor: Actor | null = null,
): Promise<ChangedLink | undefined> {
  // `old` locks the row and reads it as it is before the change (the one the change applies to).
  const { rows } = await db.query<LinkRow & { archived_at: Date | null }>(
    `WITH old AS (
       SELECT domain_id, code, url, expires_at, starts_at, disabled, title, tags, options, archived_at FROM links
       WHERE code = $1 AND domain_id = $9 AND NOT deleted FOR UPDATE
     ), changed AS (
     UPDATE links l SET
       url = COALESCE($2, l.url),
       expires_at = CASE WHEN $3 THEN $4::timestamptz ELSE l.expires_at END,
       starts_at = CASE WHEN $19 THEN $20::timestamptz ELSE l.starts_at END,
       disabled = COALESCE($5, l.disabled),
       title = CASE WHEN $6 THEN $7::text ELSE l.title END,
       tags = COALESCE($8::text[], l.tags),
       options = CASE WHEN $10 THEN $11::jsonb ELSE l.options END,
       -- Its targets changed: indexed again, and checked against the lists, by links/target-index.ts.
       target_domains = CASE WHEN $2 IS NOT NULL OR $10 THEN NULL ELSE l.target_domains END,
       expiry_announced = CASE WHEN $3 THEN false ELSE l.expiry_announced END,
       expiring_announced = CASE WHEN $3 THEN false ELSE l.expiring_announced END,
       archived_at = CASE WHEN $21::boolean IS NULL THEN l.archived_at WHEN $21 THEN COALESCE(l.archived_at, now()) END,
       version = l.version + 1
     FROM old WHERE l.code = old.code AND l.domain_id = old.domain_id
     RETURNING l.*
     ), ${linkEvent('link.updated')}, ${auditCte(12, {
       ...CHANGED_LINK,
       from: `${CHANGED_LINK.from} JOIN old o USING (domain_id, code)`,
       before: `${linkDoc('o')} - $18::text[]`,
       after: `${linkDoc('c')} - $18::text[]`,
     })}
     SELECT ${CHANGED_COLUMNS}, archived_at FROM changed`,
    [
      code,
      change.url ?? null,
      change.expiresAt !== undefined,
      change.expiresAt ?? null,
      change.disabled ?? null,
      change.title !== undefined,
      change.title ?? null,
      change.tags ?? null,
      domainId,
      change.options !== undefined,
      change.options === undefined || change.options === null ? null : JSON.stringify(change.options),
      ...auditParams(actor, 'link.update', 'link'),
      CHANGE_FIELDS.filter((field) => change[field] === undefined),
      change.startsAt !== undefined,
      change.startsAt ?? null,
      change.archived ?? null,
    ],
  );
  const row = rows[0];
  return row === undefined ? undefined : { ...linkOf(row), archivedAt: row.archived_at };
}

/**
 * deleteLink (db/links.ts) for the management API: the link marked deleted, its `link.deleted`
 * event (unless `announced` is false) and its audit entry (`actor`'s; null: none), one statement.
 */
export async function deleteManagedLink(
  db: Queryable,
  { domainId, code }: LinkRef,
  announced: boolean,
  actor: Actor | null,
): Promise<Link | undefined> {
  const { rows } = await db.query<LinkRow>(
    `WITH changed AS (
     UPDATE links SET deleted = true, version = version + 1
     WHERE code = $1 AND domain_id = $2 AND NOT deleted
     RETURNING *
     ), ${linkEvent('link.deleted', '$3')}, ${auditCte(4, { ...CHANGED_LINK, before: linkDoc('c'), after: 'NULL::jsonb' })}
     SELECT ${CHANGED_COLUMNS} FROM changed`,
    [code, domainId, announced, ...auditParams(actor, 'link.delete', 'link')],
  );
  const row = rows[0];
  return row === undefined ? undefined : linkOf(row);
}

/** The create an Idempotency-Key was first used for: its request hash and link. */
export interface IdempotencyRecord {
  readonly requestHash: Buffer;
  readonly link: LinkRef;
}

interface IdempotencyRow {
  request_hash: Buffer;
  domain_id: string;
  code: ShortCode;
}

function recordOf(row: IdempotencyRow): IdempotencyRecord {
  return { requestHash: row.request_hash, link: { domainId: Number(row.domain_id), code: row.code } };
}

export async function findIdempotencyKey(db: Queryable, scope: number, key: string): Promise<IdempotencyRecord | undefined> {
  const { rows } = await db.query<IdempotencyRow>(
    'SELECT request_hash, domain_id, code FROM idempotency_keys WHERE scope = $1 AND key = $2',
    [scope, key],
  );
  const row = rows[0];
  return row === undefined ? undefined : recordOf(row);
}

/** The creates that first used each of `keys` (one scope), by key: one round trip for a whole file. */
export async function findIdempotencyKeys(db: Queryable, scope: number, keys: readonly string[]): Promise<Map<string, IdempotencyRecord>> {
  const { rows } = await db.query<IdempotencyRow & { key: string }>(
    'SELECT key, request_hash, domain_id, code FROM idempotency_keys WHERE scope = $1 AND key = ANY($2::text[])',
    [scope, keys],
  );
  return new Map(rows.map((row) => [row.key, recordOf(row)]));
}

/** What the management API shows of a link. */
export interface LinkDetails extends Link {
  /** The host of its domain; null on the default domain (BASE_URL's). */
  readonly domainHost: string | null;
  readonly createdAt: Date;
  readonly workspaceId: number;
  readonly ownerKeyId: number | null;
  /** The person whose key created it (their membership's, or a personal API key), or null. */
  readonly ownerPersonId: number | null;
  /** The name of the key that created it, or null. */
  readonly ownerName: string | null;
  readonly title: string | null;
  readonly tags: readonly string[];
  readonly clicks: number;
  readonly botClicks: number;
  /** Redirects counted against its click limit (links/click-limits.ts); null: it has none, or the count was not read. */
  readonly clicksUsed: number | null;
  /** When it was archived (kept, redirecting, out of the default list); null or absent: it is not (a link just created). */
  readonly archivedAt?: Date | null;
}

export interface DetailsRow extends LinkRow {
  domain_host: string | null;
  created_at: Date;
  workspace_id: string;
  owner_key_id: string | null;
  owner_person_id: string | null;
  owner_name: string | null;
  title: string | null;
  tags: string[];
  clicks: string;
  bot_clicks: string;
  archived_at: Date | null;
}

/** The columns of a DetailsRow, for a query FROM links l LEFT JOIN link_totals t, then DETAILS_JOINS (see findLinkDetails). */
export const DETAILS_COLUMNS = `l.domain_id, dm.host AS domain_host, l.code, l.url, l.expires_at, l.starts_at, l.disabled, l.safety, l.safety_list, l.deleted, l.version, l.options, l.created_at, l.workspace_id,
  l.owner_key_id, k.person_id AS owner_person_id, k.name AS owner_name, l.title, l.tags, coalesce(t.clicks, 0) AS clicks, coalesce(t.bot_clicks, 0) AS bot_clicks, l.archived_at`;

/** Its creator's name and its domain's host, read with the link: a domain added on another instance a moment ago included. */
export const DETAILS_JOINS = 'LEFT JOIN api_keys k ON k.id = l.owner_key_id LEFT JOIN domains dm ON dm.id = l.domain_id';

export function detailsOf(row: DetailsRow): LinkDetails {
  return {
    ...linkOf(row),
    domainHost: row.domain_host,
    createdAt: row.created_at,
    workspaceId: Number(row.workspace_id),
    ownerKeyId: row.owner_key_id === null ? null : Number(row.owner_key_id),
    ownerPersonId: row.owner_person_id === null ? null : Number(row.owner_person_id),
    ownerName: row.owner_name,
    title: row.title,
    tags: row.tags,
    clicks: Number(row.clicks),
    botClicks: Number(row.bot_clicks),
    clicksUsed: null,
    archivedAt: row.archived_at,
  };
}

/** A link that is not deleted, with its workspace, creator and click totals. */
export async function findLinkDetails(db: Queryable, { domainId, code }: LinkRef): Promise<LinkDetails | undefined> {
  const { rows } = await db.query<DetailsRow>(
    `SELECT ${DETAILS_COLUMNS}
     FROM links l LEFT JOIN link_totals t ON t.domain_id = l.domain_id AND t.code = l.code ${DETAILS_JOINS}
     WHERE l.code = $1 AND l.domain_id = $2 AND NOT l.deleted`,
    [code, domainId],
  );
  const row = rows[0];
  return row === undefined ? undefined : detailsOf(row);
}

export class LinkStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  /** The link `ref` names, unless deleted, with its workspace, creator and click totals. */
  details(ref: LinkRef): Promise<LinkDetails | undefined> {
    return this.#breaker.run(() => findLinkDetails(this.#db, ref));
  }

  /** Applies `change` to the link, audited as `actor`'s (null: not); its new state, or undefined if there is none. */
  change(ref: LinkRef, change: LinkChange, actor: Actor | null): Promise<ChangedLink | undefined> {
    return this.#breaker.run(() => updateLink(this.#db, ref, change, actor));
  }

  /** Deletes the link (`announced` false: no link.deleted event), audited; its new state, or undefined if there is none. */
  remove(ref: LinkRef, announced: boolean, actor: Actor | null): Promise<Link | undefined> {
    return this.#breaker.run(() => deleteManagedLink(this.#db, ref, announced, actor));
  }

  idempotencyKey(scope: number, key: string): Promise<IdempotencyRecord | undefined> {
    return this.#breaker.run(() => findIdempotencyKey(this.#db, scope, key));
  }

  idempotencyKeys(scope: number, keys: readonly string[]): Promise<Map<string, IdempotencyRecord>> {
    return this.#breaker.run(() => findIdempotencyKeys(this.#db, scope, keys));
  }
}
