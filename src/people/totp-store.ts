// The statements of a person's authenticator app (migrations/0018_second_factors.sql totp_secrets):
// its sealed secret (totp.ts seals and opens it), one being set up, and the step of the last code
// taken. A code is taken by an UPDATE that only moves last_used_step forward: two requests with the
// same code at once, on any instances, take it once.

import type { Queryable } from '../db/pool.ts';

export interface TotpRow {
  /** Sealed (totp.ts); null until confirmed. */
  readonly secret: Buffer | null;
  readonly pendingSecret: Buffer | null;
  readonly confirmedAt: Date | null;
}

export async function totpRow(db: Queryable, personId: number): Promise<TotpRow | undefined> {
  const { rows } = await db.query<{ secret: Buffer | null; pending_secret: Buffer | null; confirmed_at: Date | null }>(
    'SELECT secret, pending_secret, confirmed_at FROM totp_secrets WHERE person_id = $1',
    [personId],
  );
  const row = rows[0];
  return row === undefined ? undefined : { secret: row.secret, pendingSecret: row.pending_secret, confirmedAt: row.confirmed_at };
}

/** Starts setting up an app (a new one replaces one being set up; a confirmed one keeps working until it is replaced). */
export async function startTotp(db: Queryable, personId: number, sealed: Buffer): Promise<void> {
  await db.query(
    `INSERT INTO totp_secrets (person_id, pending_secret, pending_at) VALUES ($1, $2, now())
     ON CONFLICT (person_id) DO UPDATE SET pending_secret = excluded.pending_secret, pending_at = now()`,
    [personId, sealed],
  );
}

/** The pending secret `sealed` becomes the app's, its code's `step` taken; false if another set-up replaced it meanwhile. */
export async function confirmTotp(db: Queryable, personId: number, sealed: Buffer, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE totp_secrets SET secret = pending_secret, confirmed_at = now(), last_used_step = $3, pending_secret = NULL, pending_at = NULL
     WHERE person_id = $1 AND pending_secret = $2`,
    [personId, sealed, step],
  );
  return rowCount === 1;
}

/** Takes the code of `step`: false when a code of this step or a later one was taken already. */
export async function takeTotpStep(db: Queryable, personId: number, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE totp_secrets SET last_used_step = $2
     WHERE person_id = $1 AND secret IS NOT NULL AND (last_used_step IS NULL OR last_used_step < $2)`,
    [personId, step],
  );
  return rowCount === 1;
}

/** Removes the app (and any set-up under way); whether there was a confirmed one. */
export async function removeTotp(db: Queryable, personId: number): Promise<boolean> {
  const { rows } = await db.query<{ confirmed: boolean }>(
    'DELETE FROM totp_secrets WHERE person_id = $1 RETURNING secret IS NOT NULL AS confirmed',
    [personId],
  );
  return rows[0]?.confirmed === true;
}
