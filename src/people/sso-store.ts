// The statements of single sign-on (migrations/0017_sso.sql): which person an identity of a provider
// (issuer, subject) signs in, and what matching a person by email needs. Functions take a Queryable,
// run in the transaction of the sign-in that matches or creates the person.

import type { Queryable } from '../db/pool.ts';

/** The person `(issuer, subject)` is linked to, or undefined. */
export async function identityPerson(db: Queryable, issuer: string, subject: string): Promise<number | undefined> {
  const { rows } = await db.query<{ person_id: string }>('SELECT person_id FROM sso_identities WHERE issuer = $1 AND subject = $2', [
    issuer,
    subject,
  ]);
  return rows[0] === undefined ? undefined : Number(rows[0].person_id);
}

/** Links `(issuer, subject)` to a person; a link made meanwhile by another sign-in of the same identity stays. */
export async function linkIdentity(db: Queryable, issuer: string, subject: string, personId: number): Promise<void> {
  await db.query('INSERT INTO sso_identities (issuer, subject, person_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
    issuer,
    subject,
    personId,
  ]);
}

/** Whether the person is linked to another subject of `issuer` (the provider gave their address to someone new?). */
export async function linkedElsewhereAt(db: Queryable, personId: number, issuer: string, subject: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM sso_identities WHERE person_id = $1 AND issuer = $2 AND subject <> $3 LIMIT 1', [
    personId,
    issuer,
    subject,
  ]);
  return rows.length > 0;
}

/** Whether some workspace takes people of `domain` on their own (its join_domain). */
export async function domainIsJoinable(db: Queryable, domain: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM workspaces WHERE join_domain = $1 LIMIT 1', [domain]);
  return rows.length > 0;
}

/**
 * The address of a person it was never verified for is now, by the provider: the password set by
 * whoever typed it in goes, and so do their sessions (the hashes of those closed, to forget).
 */
export async function claimAddress(db: Queryable, personId: number): Promise<Buffer[]> {
  await db.query('UPDATE people SET password_hash = NULL, email_verified_at = now(), credentials_changed_at = now() WHERE id = $1', [
    personId,
  ]);
  const { rows } = await db.query<{ hash: Buffer }>('DELETE FROM sessions WHERE person_id = $1 RETURNING hash', [personId]);
  return rows.map((row) => row.hash);
}
