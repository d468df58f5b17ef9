// The statements of passkeys (migrations/0018_second_factors.sql): a person's credentials, and the
// challenges of the ceremonies under way. A challenge is taken by the DELETE that finds it: an
// answer signed over it is judged once, whichever instance it reaches.

import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';

/** How long a ceremony's challenge is good for (the browser's own timeout is shorter). */
export const CHALLENGE_TTL_MS = 5 * 60_000;

export interface Passkey {
  readonly id: number;
  readonly personId: number;
  readonly credentialId: Buffer;
  readonly publicKey: Buffer;
  readonly counter: number;
  readonly transports: string[];
  readonly name: string;
  readonly backedUp: boolean;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

interface PasskeyRow {
  id: string;
  person_id: string;
  credential_id: Buffer;
  public_key: Buffer;
  counter: string;
  transports: string[];
  name: string;
  backed_up: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = 'id, person_id, credential_id, public_key, counter, transports, name, backed_up, created_at, last_used_at';

const passkeyOf = (row: PasskeyRow): Passkey => ({
  id: Number(row.id),
  personId: Number(row.person_id),
  credentialId: row.credential_id,
  publicKey: row.public_key,
  counter: Number(row.counter),
  transports: row.transports,
  name: row.name,
  backedUp: row.backed_up,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export interface NewPasskey {
  readonly credentialId: Buffer;
  readonly publicKey: Buffer;
  readonly counter: number;
  readonly transports: readonly string[];
  readonly name: string;
  readonly backedUp: boolean;
}

/** Saves a verified credential; 409 CONFLICT when this credential is registered already. */
export async function savePasskey(db: Queryable, personId: number, passkey: NewPasskey): Promise<Passkey> {
  const { rows } = await db.query<PasskeyRow>(
    `INSERT INTO passkeys (person_id, credential_id, public_key, counter, transports, name, backed_up)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (credential_id) DO NOTHING RETURNING ${COLUMNS}`,
    [personId, passkey.credentialId, passkey.publicKey, passkey.counter, passkey.transports, passkey.name, passkey.backedUp],
  );
  const row = rows[0];
  if (row === undefined) throw new AppError('CONFLICT', 'This passkey is registered already.');
  return passkeyOf(row);
}

export async function personPasskeys(db: Queryable, personId: number): Promise<Passkey[]> {
  const { rows } = await db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE person_id = $1 ORDER BY id`, [personId]);
  return rows.map(passkeyOf);
}

export async function findPasskey(db: Queryable, credentialId: Buffer): Promise<Passkey | undefined> {
  const { rows } = await db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = $1`, [credentialId]);
  return rows[0] === undefined ? undefined : passkeyOf(rows[0]);
}

/** After an assertion verified: its counter, and when. */
export async function passkeyUsed(db: Queryable, id: number, counter: number): Promise<void> {
  await db.query('UPDATE passkeys SET counter = greatest(counter, $2), last_used_at = now() WHERE id = $1', [id, counter]);
}

export async function renamePasskey(db: Queryable, personId: number, id: number, name: string): Promise<Passkey | undefined> {
  const { rows } = await db.query<PasskeyRow>(`UPDATE passkeys SET name = $3 WHERE person_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [
    personId,
    id,
    name,
  ]);
  return rows[0] === undefined ? undefined : passkeyOf(rows[0]);
}

export async function removePasskey(db: Queryable, personId: number, id: number): Promise<Passkey | undefined> {
  const { rows } = await db.query<PasskeyRow>(`DELETE FROM passkeys WHERE person_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [personId, id]);
  return rows[0] === undefined ? undefined : passkeyOf(rows[0]);
}

export type CeremonyPurpose = 'register' | 'sign-in';

/** Remembers a challenge given out; expired ones go on the way. */
export async function saveChallenge(db: Queryable, challenge: string, purpose: CeremonyPurpose, personId: number | null): Promise<void> {
  await db.query(
    `WITH expired AS (DELETE FROM webauthn_challenges WHERE expires_at < now())
     INSERT INTO webauthn_challenges (challenge, purpose, person_id, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
    [challenge, purpose, personId, CHALLENGE_TTL_MS],
  );
}

/** Takes a challenge: true when it was given out for this purpose and person, and is still good; it is gone either way. */
export async function takeChallenge(db: Queryable, challenge: string, purpose: CeremonyPurpose, personId: number | null): Promise<boolean> {
  const { rows } = await db.query<{ live: boolean }>(
    `DELETE FROM webauthn_challenges WHERE challenge = $1 RETURNING expires_at > now() AND purpose = $2 AND person_id IS NOT DISTINCT FROM $3 AS live`,
    [challenge, purpose, personId],
  );
  return rows[0]?.live === true;
}
