// One-time tokens sent by email (migrations/0016_people.sql): verifying an address, resetting a
// password. A random 32-byte token in a link; only its SHA-256 is kept. A token is used at most once
// (the UPDATE that marks it used is the check), expires, and a reset token made before the
// person's last change of credentials no longer works.

import { randomBytes } from 'node:crypto';
import { hashSecret } from '../auth/api-keys.ts';
import type { Queryable } from '../db/pool.ts';

export type TokenPurpose = 'verify-email' | 'reset-password';

export const TOKEN_TTL_MS: Record<TokenPurpose, number> = { 'verify-email': 24 * 3_600_000, 'reset-password': 3_600_000 };

export async function makeEmailToken(
  db: Queryable,
  personId: number,
  purpose: TokenPurpose,
  email: string,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ expires_at: Date }>(
    `INSERT INTO email_tokens (hash, person_id, purpose, email, expires_at) VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')
     RETURNING expires_at`,
    [hashSecret(token), personId, purpose, email, TOKEN_TTL_MS[purpose]],
  );
  return { token, expiresAt: (rows[0] as { expires_at: Date }).expires_at };
}

/**
 * Uses the token: marks it used if it is unused, unexpired, of `purpose`, and (for a reset) newer
 * than the person's last change of credentials; who it was for, or undefined.
 */
export async function useEmailToken(
  db: Queryable,
  token: string,
  purpose: TokenPurpose,
): Promise<{ personId: number; email: string } | undefined> {
  const { rows } = await db.query<{ person_id: string; email: string }>(
    `UPDATE email_tokens t SET used_at = now() FROM people p
     WHERE t.hash = $1 AND t.purpose = $2 AND t.used_at IS NULL AND t.expires_at > now() AND p.id = t.person_id
       AND ($2 <> 'reset-password' OR t.created_at >= p.credentials_changed_at)
     RETURNING t.person_id, t.email`,
    [hashSecret(token), purpose],
  );
  const row = rows[0];
  return row === undefined ? undefined : { personId: Number(row.person_id), email: row.email };
}
