// The statements of the links table that the read and write paths run: the redirect's lookup
// (findLinks), the group commit (insertLinks), id blocks, and deletion (a create undone, a link
// deleted). Each is one round trip, whatever the number of links. The management of links (their
// details, changes, Idempotency-Keys, the list) is the links feature's (links/store.ts).

import type { IdempotencyKey, Link, LinkRef, LinkSafety } from '../core/link.ts';
import { linkTargets, type LinkOptions } from '../core/link-options.ts';
import { targetDomains } from '../core/blocklist/entries.ts';
import type { WebhookEvent } from '../core/webhooks.ts';
import type { ShortCode } from '../core/codes.ts';
import { keyOf, splitKey, type LinkKey } from '../core/domains.ts';
import type { Queryable } from './pool.ts';
import { LINK_EVENT_DATA, LINK_EVENT_HOST, outboxCtes } from './outbox.ts';

export interface LinkRow {
  domain_id: string;
  code: ShortCode;
  url: string;
  expires_at: Date | null;
  starts_at: Date | null;
  disabled: boolean;
  safety: LinkSafety | null;
  safety_list: string | null;
  deleted: boolean;
  version: number;
  options: LinkOptions | null;
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
    `SELECT l.domain_id, l.code, l.url, l.expires_at, l.starts_at, l.disabled, l.safety, l.safety_list, l.deleted, l.version, l.options
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

export function linkOf(row: LinkRow): Link {
  return {
    domainId: Number(row.domain_id),
    code: row.code,
    url: row.url,
    expiresAt: row.expires_at,
    startsAt: row.starts_at,
    disabled: row.disabled,
    safety: row.safety,
    safetyList: row.safety_list,
    deleted: row.deleted,
    version: row.version,
    options: row.options,
  };
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
  const starts: (Date | null)[] = [];
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
  // Each link's index keys (migrations/0021_link_safety.sql), as one JSON array like its tags.
  const targets: string[] = [];
  for (const link of links) {
    targets.push(JSON.stringify(targetDomains(linkTargets(link.url, link.options).map((target) => target.url))));
    domains.push(link.domainId);
    codes.push(link.code);
    urls.push(link.url);
    expiries.push(link.expiresAt);
    starts.push(link.startsAt);
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
                            $9::bigint[], $10::text[], $11::jsonb[], $12::bigint[], $13::jsonb[], $14::timestamptz[], $15::jsonb[])
         AS t(code, url, expires_at, generated, owner_key_id, scope, key, request_hash, workspace_id, title, tags, domain_id, options, starts_at,
              target_domains)
     ), written AS (
       INSERT INTO links (domain_id, code, url, expires_at, starts_at, generated, owner_key_id, workspace_id, title, tags, options, target_domains)
       SELECT domain_id, code, url, expires_at, starts_at, generated, owner_key_id, workspace_id, title,
              ARRAY(SELECT jsonb_array_elements_text(tags)), options, ARRAY(SELECT jsonb_array_elements_text(target_domains)) FROM input
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
    [codes, urls, expiries, generated, owners, scopes, keys, hashes, workspaces, titles, tags, domains, options, starts, targets],
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

/** The columns of a LinkRow, from a CTE of changed links. */
export const CHANGED_COLUMNS = 'domain_id, code, url, expires_at, starts_at, disabled, safety, safety_list, deleted, version, options';

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

/**
 * CTEs writing a `type` event of each link of the CTE `source` (by default `changed`) when `condition`
 * (SQL, on its rows as `l`) holds, its data the link's and `extra` (SQL: `|| jsonb_build_object(…)`);
 * the event CTE is called `name` (by default `event`).
 */
export function linkEvent(
  type: WebhookEvent,
  condition = 'true',
  { source = 'changed', name = 'event', extra = '' }: { source?: string; name?: string; extra?: string } = {},
): string {
  return `${name} AS (
       SELECT l.workspace_id, '${type}' AS type, l.domain_id, l.code, ${LINK_EVENT_DATA} || ${LINK_EVENT_HOST}${extra} AS data
       FROM ${source} l LEFT JOIN domains dm ON dm.id = l.domain_id WHERE ${condition}
     ), ${outboxCtes(name)}`;
}
