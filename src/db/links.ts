// The queries of the links table. Each is one round trip, whatever the number of links.

import type { Link } from '../core/link.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Queryable } from './pool.ts';

interface LinkRow {
  code: ShortCode;
  url: string;
  expires_at: Date | null;
  disabled: boolean;
  version: number;
}

export async function findLinks(db: Queryable, codes: readonly ShortCode[]): Promise<Map<ShortCode, Link>> {
  const { rows } = await db.query<LinkRow>(
    'SELECT code, url, expires_at, disabled, version FROM links WHERE code = ANY($1::text[])',
    [codes],
  );
  const found = new Map<ShortCode, Link>();
  for (const row of rows) found.set(row.code, linkOf(row));
  return found;
}

function linkOf(row: LinkRow): Link {
  return { code: row.code, url: row.url, expiresAt: row.expires_at, disabled: row.disabled, version: row.version };
}

/** A link to insert, and whether its code was generated (false: chosen by its creator). */
export interface NewLink extends Link {
  readonly generated: boolean;
}

/**
 * One multi-row INSERT, committed on its own. Returns the codes that were written; a code that
 * is missing met an existing row (or an earlier row of the same batch) and was not written.
 */
export async function insertLinks(db: Queryable, links: readonly NewLink[]): Promise<Set<string>> {
  const codes: string[] = [];
  const urls: string[] = [];
  const expiries: (Date | null)[] = [];
  const generated: boolean[] = [];
  for (const link of links) {
    codes.push(link.code);
    urls.push(link.url);
    expiries.push(link.expiresAt);
    generated.push(link.generated);
  }
  const { rows } = await db.query<{ code: string }>(
    `INSERT INTO links (code, url, expires_at, generated)
     SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::boolean[])
     ON CONFLICT (code) DO NOTHING
     RETURNING code`,
    [codes, urls, expiries, generated],
  );
  return new Set(rows.map((row) => row.code));
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
}

/** Changes one link and returns its new state (its version one higher), or undefined if no link has this code. */
export async function updateLink(db: Queryable, code: ShortCode, change: LinkChange): Promise<Link | undefined> {
  const { rows } = await db.query<LinkRow>(
    `UPDATE links SET
       url = COALESCE($2, url),
       expires_at = CASE WHEN $3 THEN $4::timestamptz ELSE expires_at END,
       disabled = COALESCE($5, disabled),
       version = version + 1
     WHERE code = $1
     RETURNING code, url, expires_at, disabled, version`,
    [code, change.url ?? null, change.expiresAt !== undefined, change.expiresAt ?? null, change.disabled ?? null],
  );
  const row = rows[0];
  return row === undefined ? undefined : linkOf(row);
}
