// The statements of a person's recovery codes (migrations/0018_second_factors.sql recovery_codes):
// kept as hashes (recovery-codes.ts), replaced ten at a time, each taken once by the UPDATE that
// marks it used.

import type { Queryable } from '../db/pool.ts';

/** The person's codes are these from now on; the old ones, used or not, stop working. */
export async function replaceRecoveryCodes(db: Queryable, personId: number, hashes: readonly Buffer[]): Promise<void> {
  await db.query('DELETE FROM recovery_codes WHERE person_id = $1', [personId]);
  await db.query('INSERT INTO recovery_codes (person_id, hash) SELECT $1, unnest($2::bytea[])', [personId, hashes]);
}

/** Takes an unused code; false for one the person does not have or used already. */
export async function takeRecoveryCode(db: Queryable, personId: number, hash: Buffer): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE recovery_codes SET used_at = now() WHERE person_id = $1 AND hash = $2 AND used_at IS NULL', [
    personId,
    hash,
  ]);
  return rowCount === 1;
}

export async function removeRecoveryCodes(db: Queryable, personId: number): Promise<void> {
  await db.query('DELETE FROM recovery_codes WHERE person_id = $1', [personId]);
}
