// The queries of the links table. Each is one round trip, whatever the number of links.

import type { Link } from '../core/link.ts';
import type { LinkOptions } from '../core/link-options.ts';
import type { ShortCode } from '../core/codes.ts';
import { keyOf, splitKey, type LinkKey } from '../core/domains.ts';
import type { Queryable } from './pool.ts';
import { LINK_EVENT_DATA, LINK_EVENT_HOST, outboxCtes } from '../webhooks/store.ts';

interface LinkRow {
  domain_id: string;
  code: ShortCode;
  url: string;
  expires_at: Date | null;
  disabled: boolean;
  deleted: boolean;
  version: number;
  options: LinkOptions | null;
}

/** A link by what names it in the API: its domain and its code there. */
export interface LinkRef {
  readonly domainId: number;
  readonly code: ShortCode;
}

/** What the redirect path's lookup reads from (tests recognise the statement by it). */
export const LOOKUP_SOURCE = 'FROM unnest($1::text[], $2::bigint[]) AS wanted (code, domain_id)';

/** The links `keys` name (core/domains.ts), by key; absent keys are left out: one statement, one index probe per key. */
export async function findLinks(db: Queryable, keys: readonly LinkKey[]): Promise<Map<LinkKey, Link>> {
  const domains: number[] = [];
  const codes: string[] = [];
  for (const key of keys) {
    const { domainId, code } = splitKey(key);
    domains.push(domainId);
    codes.push(code);
  }
  const { rows } = await db.query<LinkRow>(
    `SELECT l.domain_id, l.code, l.url, l.expires_at, l.disabled, l.deleted, l.version, l.options
     ${LOOKUP_SOURCE} JOIN links l USING (domain_id, code)`,
    [codes, domains],
  );
  const found = new Map<LinkKey, Link>();
  for (const row of rows) {
    const link = linkOf(row);
    found.set(keyOf(link), link);
  }
  return found;
}

function linkOf(row: LinkRow): Link {
  return {
    domainId: Number(row.domain_id),
    code: row.code,
    url: row.url,
    expiresAt: row.expires_at,
    disabled: row.disabled,
    deleted: row.deleted,
    version: row.version,
    options: row.options,
  };
}

/** An Idempotency-Key of a create: the key, scoped to the API key that sent it (0: none). */
export interface IdempotencyKey {
  readonly scope: number;
  readonly key: string;
  /** SHA-256 of the request it came with. */
  readonly requestHash: Buffer;
}

/** A link to insert, and whether its code was generated (false: chosen by its creator). */
export interface NewLink extends Link {
  readonly generated: boolean;
  readonly workspaceId: number;
  /** The API key that creates it, or null. */
  readonly ownerKeyId: number | null;
  readonly title: string | null;
  readonly tags: readonly string[];
  readonly idempotency: IdempotencyKey | undefined;
}

export interface Inserted {
  /** Keys of the links written (core/domains.ts). */
  readonly written: Set<string>;
  /** Keys of links written whose Idempotency-Key was taken meanwhile (by a create on another instance). */
  readonly keyTaken: Set<string>;
}

/**
 * One statement, committed on its own: the links, then the Idempotency-Keys of those written, and
 * their `link.created` events (webhooks/store.ts). A link whose key is not in `written` met an
 * existing row of its domain (or an earlier row of the same batch); one whose Idempotency-Key was
 * taken meanwhile is written but not announced (it is removed, write/write-queue.ts).
 */
export async function insertLinks(db: Queryable, links: readonly NewLink[]): Promise<Inserted> {
  const domains: number[] = [];
  const codes: string[] = [];
  const urls: string[] = [];
  const expiries: (Date | null)[] = [];
  const generated: boolean[] = [];
  const workspaces: number[] = [];
  const owners: (number | null)[] = [];
  const titles: (string | null)[] = [];
  // Postgres has no arrays of arrays of different lengths: each link's tags go as one JSON array.
  const tags: string[] = [];
  const options: (string | null)[] = [];
  const scopes: (number | null)[] = [];
  const keys: (string | null)[] = [];
  const hashes: (Buffer | null)[] = [];
  for (const link of links) {
    domains.push(link.domainId);
    codes.push(link.code);
    urls.push(link.url);
    expiries.push(link.expiresAt);
    generated.push(link.generated);
    workspaces.push(link.workspaceId);
    owners.push(link.ownerKeyId);
    titles.push(link.title);
    tags.push(JSON.stringify(link.tags));
    options.push(link.options === null ? null : JSON.stringify(link.options));
    scopes.push(link.idempotency?.scope ?? null);
    keys.push(link.idempotency?.key ?? null);
    hashes.push(link.idempotency?.requestHash ?? null);
  }
  const { rows } = await db.query<{ domain_id: string; code: ShortCode; key_taken: boolean }>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::boolean[], $5::bigint[], $6::bigint[], $7::text[], $8::bytea[],
                            $9::bigint[], $10::text[], $11::jsonb[], $12::bigint[], $13::jsonb[])
         AS t(code, url, expires_at, generated, owner_key_id, scope, key, request_hash, workspace_id, title, tags, domain_id, options)
     ), written AS (
       INSERT INTO links (domain_id, code, url, expires_at, generated, owner_key_id, workspace_id, title, tags, options)
       SELECT domain_id, code, url, expires_at, generated, owner_key_id, workspace_id, title,
              ARRAY(SELECT jsonb_array_elements_text(tags)), options FROM input
       ON CONFLICT (domain_id, code) DO NOTHING
       RETURNING *
     ), keyed AS (
       INSERT INTO idempotency_keys (scope, key, request_hash, domain_id, code)
       SELECT i.scope, i.key, i.request_hash, i.domain_id, i.code FROM input i JOIN written w USING (domain_id, code) WHERE i.key IS NOT NULL
       ON CONFLICT DO NOTHING
       RETURNING domain_id, code
     ), created AS (
       SELECT l.workspace_id, 'link.created' AS type, l.domain_id, l.code, ${LINK_EVENT_DATA} || ${LINK_EVENT_HOST} AS data
       FROM written l JOIN input i USING (domain_id, code) LEFT JOIN keyed k USING (domain_id, code)
         LEFT JOIN domains dm ON dm.id = l.domain_id
       WHERE i.key IS NULL OR k.code IS NOT NULL
     ), ${outboxCtes('created')}
     SELECT w.domain_id, w.code, (i.key IS NOT NULL AND k.code IS NULL) AS key_taken
     FROM written w JOIN input i USING (domain_id, code) LEFT JOIN keyed k USING (domain_id, code)`,
    [codes, urls, expiries, generated, owners, scopes, keys, hashes, workspaces, titles, tags, domains, options],
  );
  const written = new Set<string>();
  const keyTaken = new Set<string>();
  for (const row of rows) {
    const key = keyOf({ domainId: Number(row.domain_id), code: row.code });
    written.add(key);
    if (row.key_taken) keyTaken.add(key);
  }
  return { written, keyTaken };
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

/** Reserves a block of ids from the sequence: [start, start + size). */
export async function reserveIdBlock(db: Queryable): Promise<{ start: number; size: number }> {
  const { rows } = await db.query<{ start: string; size: string }>(
    `SELECT nextval('link_id_blocks') AS start, seqincrement AS size
     FROM pg_sequence WHERE seqrelid = 'link_id_blocks'::regclass`,
  );
  const row = rows[0];
  if (row === undefined) throw new Error('sequence link_id_blocks is missing; run the migrations');
  return { start: Number(row.start), size: Number(row.size) };
}

/** What may change in a link; a field left out keeps its value. */
export interface LinkChange {
  readonly url?: string;
  readonly expiresAt?: Date | null;
  readonly disabled?: boolean;
  readonly title?: string | null;
  readonly tags?: readonly string[];
  /** The whole of its options: null removes them all. */
  readonly options?: LinkOptions | null;
}

/** The columns of a LinkRow, from a CTE of changed links. */
const CHANGED_COLUMNS = 'domain_id, code, url, expires_at, disabled, deleted, version, options';

/**
 * Changes one link and returns its new state (its version one higher), or undefined if there is
 * none; its `link.updated` event is written by the same statement.
 */
export async function updateLink(db: Queryable, { domainId, code }: LinkRef, change: LinkChange): Promise<Link | undefined> {
  const { rows } = await db.query<LinkRow>(
    `WITH changed AS (
     UPDATE links SET
       url = COALESCE($2, url),
       expires_at = CASE WHEN $3 THEN $4::timestamptz ELSE expires_at END,
       disabled = COALESCE($5, disabled),
       title = CASE WHEN $6 THEN $7::text ELSE title END,
       tags = COALESCE($8::text[], tags),
       options = CASE WHEN $10 THEN $11::jsonb ELSE options END,
       expiry_announced = CASE WHEN $3 THEN false ELSE expiry_announced END,
       version = version + 1
     WHERE code = $1 AND domain_id = $9 AND NOT deleted
     RETURNING *
     ), ${linkEvent('link.updated')}
     SELECT ${CHANGED_COLUMNS} FROM changed`,
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
    ],
  );
  const row = rows[0];
  return row === undefined ? undefined : linkOf(row);
}

/**
 * Marks a link deleted (its row and code stay) and returns its new state; undefined if there is
 * none, or it was deleted already. Its `link.deleted` event is written by the same statement,
 * unless `announced` is false (a link nobody was given).
 */
export async function deleteLink(db: Queryable, { domainId, code }: LinkRef, announced = true): Promise<Link | undefined> {
  const { rows } = await db.query<LinkRow>(
    `WITH changed AS (
     UPDATE links SET deleted = true, version = version + 1
     WHERE code = $1 AND domain_id = $2 AND NOT deleted
     RETURNING *
     ), ${linkEvent('link.deleted', '$3')}
     SELECT ${CHANGED_COLUMNS} FROM changed`,
    [code, domainId, announced],
  );
  const row = rows[0];
  return row === undefined ? undefined : linkOf(row);
}

/** CTEs writing a `type` event of each link of the CTE `changed` (when `condition`, SQL, holds). */
function linkEvent(type: 'link.updated' | 'link.deleted', condition = 'true'): string {
  return `event AS (
       SELECT l.workspace_id, '${type}' AS type, l.domain_id, l.code, ${LINK_EVENT_DATA} || ${LINK_EVENT_HOST} AS data
       FROM changed l LEFT JOIN domains dm ON dm.id = l.domain_id WHERE ${condition}
     ), ${outboxCtes('event')}`;
}

/** What the management API shows of a link. */
export interface LinkDetails extends Link {
  /** The host of its domain; null on the default domain (BASE_URL's). */
  readonly domainHost: string | null;
  readonly createdAt: Date;
  readonly workspaceId: number;
  readonly ownerKeyId: number | null;
  /** The name of the key that created it, or null. */
  readonly ownerName: string | null;
  readonly title: string | null;
  readonly tags: readonly string[];
  readonly clicks: number;
  readonly botClicks: number;
}

export interface DetailsRow extends LinkRow {
  domain_host: string | null;
  created_at: Date;
  workspace_id: string;
  owner_key_id: string | null;
  owner_name: string | null;
  title: string | null;
  tags: string[];
  clicks: string;
  bot_clicks: string;
}

/** The columns of a DetailsRow, for a query FROM links l LEFT JOIN link_totals t, then DETAILS_JOINS (see findLinkDetails). */
export const DETAILS_COLUMNS = `l.domain_id, dm.host AS domain_host, l.code, l.url, l.expires_at, l.disabled, l.deleted, l.version, l.options, l.created_at, l.workspace_id,
  l.owner_key_id, k.name AS owner_name, l.title, l.tags, coalesce(t.clicks, 0) AS clicks, coalesce(t.bot_clicks, 0) AS bot_clicks`;

/** Its creator's name and its domain's host, read with the link: a domain added on another instance a moment ago included. */
export const DETAILS_JOINS = 'LEFT JOIN api_keys k ON k.id = l.owner_key_id LEFT JOIN domains dm ON dm.id = l.domain_id';

export function detailsOf(row: DetailsRow): LinkDetails {
  return {
    ...linkOf(row),
    domainHost: row.domain_host,
    createdAt: row.created_at,
    workspaceId: Number(row.workspace_id),
    ownerKeyId: row.owner_key_id === null ? null : Number(row.owner_key_id),
    ownerName: row.owner_name,
    title: row.title,
    tags: row.tags,
    clicks: Number(row.clicks),
    botClicks: Number(row.bot_clicks),
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
