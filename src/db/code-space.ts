// The queries of the code space (resolve/code-space.ts): its one settings row and the alias log.

import type { Queryable } from './pool.ts';

export interface CodeSpaceRow {
  readonly codeLength: number;
  readonly keyFingerprint: string;
}

/** Records a code length and key fingerprint if none is yet, and returns those recorded. */
export async function claimCodeSpace(db: Queryable, codeLength: number, keyFingerprint: string): Promise<CodeSpaceRow> {
  await db.query('UPDATE code_space SET code_length = $1, key_fingerprint = $2 WHERE code_length IS NULL', [
    codeLength,
    keyFingerprint,
  ]);
  const { rows } = await db.query<{ code_length: number; key_fingerprint: string }>(
    'SELECT code_length, key_fingerprint FROM code_space',
  );
  const row = rows[0];
  if (row === undefined) throw new Error('table code_space is empty; run the migrations');
  return { codeLength: row.code_length, keyFingerprint: row.key_fingerprint };
}

/** Aliases logged after `version`, oldest first, at most `limit` of them. */
export async function readAliasLog(
  db: Queryable,
  version: number,
  limit: number,
): Promise<{ version: number; code: string }[]> {
  const { rows } = await db.query<{ version: string; code: string }>(
    'SELECT version, code FROM alias_log WHERE version > $1 ORDER BY version LIMIT $2',
    [version, limit],
  );
  return rows.map((row) => ({ version: Number(row.version), code: row.code }));
}
