// The statements behind links a blocklist acts on (links/safety.ts): the links an entry may name,
// read through the index of their target domains (migrations/0021_link_safety.sql); the links not
// indexed yet; and the act itself, one statement a batch with each link's event in the outbox.

import type { ShortCode } from '../core/codes.ts';
import type { Link, LinkSafety } from '../core/link.ts';
import type { LinkOptions } from '../core/link-options.ts';
import { CHANGED_COLUMNS, linkEvent, linkOf, type LinkRow } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';

/** A link as a sweep judges it: where it can send people, and the version judged. */
export interface Candidate {
  readonly domainId: number;
  readonly code: ShortCode;
  readonly url: string;
  readonly options: LinkOptions | null;
  readonly version: number;
}

interface CandidateRow {
  domain_id: string;
  code: ShortCode;
  url: string;
  options: LinkOptions | null;
  version: number;
}

const candidateOf = (row: CandidateRow): Candidate => ({
  domainId: Number(row.domain_id),
  code: row.code,
  url: row.url,
  options: row.options,
  version: row.version,
});

/** Where a page of candidates starts: after this link, in (domain_id, code) order. */
export interface After {
  readonly domainId: number;
  readonly code: string;
}

/**
 * Up to `limit` links, not deleted and not acted on, whose target domains hold one of `keys`, after
 * `after`: a bitmap scan of the GIN index, whatever the number of links.
 */
export async function linksNaming(db: Queryable, keys: readonly string[], after: After | null, limit: number): Promise<Candidate[]> {
  const { rows } = await db.query<CandidateRow>(
    `SELECT domain_id, code, url, options, version FROM links
     WHERE target_domains && $1::text[] AND NOT deleted AND safety IS NULL AND (domain_id, code) > ($2::bigint, $3::text)
     ORDER BY domain_id, code LIMIT $4`,
    [keys, after?.domainId ?? -1, after?.code ?? '', limit],
  );
  return rows.map(candidateOf);
}

/** Up to `limit` links whose target domains are not indexed yet (made before 0021, or whose targets changed). */
export async function unindexedLinks(db: Queryable, limit: number): Promise<Candidate[]> {
  const { rows } = await db.query<CandidateRow>(
    `SELECT domain_id, code, url, options, version FROM links WHERE target_domains IS NULL AND NOT deleted ORDER BY domain_id, code LIMIT $1`,
    [limit],
  );
  return rows.map(candidateOf);
}

/** Writes each link's index keys, unless it changed since it was read (then it is read again). */
export async function writeTargetDomains(
  db: Queryable,
  links: readonly Candidate[],
  domains: readonly (readonly string[])[],
): Promise<void> {
  await db.query(
    `UPDATE links l SET target_domains = ARRAY(SELECT jsonb_array_elements_text(i.domains))
     FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::jsonb[]) AS i (domain_id, code, version, domains)
     WHERE l.domain_id = i.domain_id AND l.code = i.code AND l.version = i.version AND l.target_domains IS NULL`,
    [
      links.map((link) => link.domainId),
      links.map((link) => link.code),
      links.map((link) => link.version),
      domains.map((d) => JSON.stringify(d)),
    ],
  );
}

/** A link a sweep found named by a list: the version it judged, and the list. */
export interface Verdict extends Candidate {
  readonly list: string;
}

/**
 * Marks each link blocked or flagged by its list, one version newer, unless it was acted on meanwhile
 * (by another instance's sweep: each link is acted on, and announced, once); its `link.blocked` or
 * `link.flagged` event by the same statement. A link that changed since it was judged is not marked
 * on a stale judgement: it is left to be indexed and judged again (target_domains NULL: safety.ts
 * reads those every few seconds), never passed over. Returns the links marked, as they now are.
 */
export async function markUnsafe(db: Queryable, verdicts: readonly Verdict[], action: LinkSafety): Promise<Link[]> {
  const { rows } = await db.query<LinkRow>(
    `WITH input AS (
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[]) AS i (domain_id, code, version, list)
     ), changed AS (
       UPDATE links l SET safety = $5, safety_list = i.list, version = l.version + 1
       FROM input i
       WHERE l.domain_id = i.domain_id AND l.code = i.code AND l.version = i.version AND l.safety IS NULL AND NOT l.deleted
       RETURNING l.*
     ), changed_meanwhile AS (
       UPDATE links l SET target_domains = NULL
       FROM input i
       WHERE l.domain_id = i.domain_id AND l.code = i.code AND l.version <> i.version AND l.safety IS NULL AND NOT l.deleted
     ), ${linkEvent(action === 'blocked' ? 'link.blocked' : 'link.flagged', 'true', { extra: " || jsonb_build_object('blocklist', l.safety_list)" })}
     SELECT ${CHANGED_COLUMNS} FROM changed`,
    [verdicts.map((v) => v.domainId), verdicts.map((v) => v.code), verdicts.map((v) => v.version), verdicts.map((v) => v.list), action],
  );
  return rows.map(linkOf);
}

/** The deployment's own list (operator_blocklist): its entries, as written. */
export async function operatorEntries(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ entry: string }>('SELECT entry FROM operator_blocklist ORDER BY entry');
  return rows.map((row) => row.entry);
}

/** What tells that the operators' list changed, without reading it: its size and a sum of its entries' hashes. */
export async function operatorListStamp(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ stamp: string }>(
    "SELECT count(*) || '/' || coalesce(sum(hashtext(entry)::bigint), 0) AS stamp FROM operator_blocklist",
  );
  return rows[0]?.stamp ?? '';
}
