// The queries of the code space (resolve/code-space.ts): its one settings row and the alias log.

import { linkKey, type LinkKey } from '../core/domains.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Queryable } from './pool.ts';

export interface CodeSpaceRow {
  readonly codeLength: number;
  readonly keyFingerprint: string;
}

/** Records a code length and key fingerprint if none is yet, and returns those recorded. */
export async function claimCodeSpace(db: Queryable, codeLength: number, keyFingerprint: string): Promise<CodeSpaceRow> {
  await db.query('UPDATE code_space SET code_length = $1, key_fingerprint = $2 WHERE code_length IS NULL', [codeLength, keyFingerprint]);
  const { rows } = await db.query<{ code_length: number; key_fingerprint: string }>('SELECT code_length, key_fingerprint FROM code_space');
  const row = rows[0];
  if (row === undefined) throw new Error('table code_space is empty; run the migrations');
  return { codeLength: row.code_length, keyFingerprint: row.key_fingerprint };
}

export interface CodeSpaceRead {
  /** The first id no block has been reserved for: every id handed out so far is below it. */
  readonly mark: number;
  /** Aliases logged after the version asked for, oldest first, by link key (core/domains.ts). */
  readonly aliases: { version: number; key: LinkKey }[];
}

/** The id mark and the aliases logged after `version` (at most `limit`), in one round trip. */
export async function readCodeSpace(db: Queryable, version: number, limit: number): Promise<CodeSpaceRead> {
  const { rows } = await db.query<{ mark: string; version: string | null; domain_id: string | null; code: ShortCode | null }>(
    `SELECT m.mark, a.version, a.domain_id, a.code
     FROM (SELECT CASE WHEN s.is_called THEN s.last_value + p.seqincrement ELSE s.last_value END AS mark
           FROM link_id_blocks s, pg_sequence p WHERE p.seqrelid = 'link_id_blocks'::regclass) m
     LEFT JOIN LATERAL (SELECT version, domain_id, code FROM alias_log WHERE version > $1 ORDER BY version LIMIT $2) a ON true
     ORDER BY a.version`,
    [version, limit],
  );
  const mark = Number(rows[0]?.mark ?? Number.NaN);
  if (!Number.isSafeInteger(mark)) throw new Error('sequence link_id_blocks is missing; run the migrations');
  const aliases: { version: number; key: LinkKey }[] = [];
  for (const row of rows) {
    if (row.version !== null && row.code !== null)
      aliases.push({ version: Number(row.version), key: linkKey(Number(row.domain_id), row.code) });
  }
  return { mark, aliases };
}
