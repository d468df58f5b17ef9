// The statements shared by a person's second factors (migrations/0018_second_factors.sql): which
// factors a person has, the tickets between a right password and the second step of a sign-in, and
// a session's sign-in methods growing when its person adds a factor. The factors' own rows are in
// totp-store.ts, passkey-store.ts and recovery-store.ts.

import { randomBytes } from 'node:crypto';
import { hashSecret } from '../auth/api-keys.ts';
import type { SignInMethod } from '../auth/sessions.ts';
import type { Queryable } from '../db/pool.ts';

/** How long a ticket waits for its second step. */
export const TICKET_TTL_MS = 5 * 60_000;

/** The second steps a person can take: each factor they have; recovery codes only beside one. */
export type SecondStepMethod = 'totp' | 'passkey' | 'recovery-code';

export interface Factors {
  readonly totp: boolean;
  readonly passkeys: number;
  /** Unused recovery codes. */
  readonly recoveryCodes: number;
}

export async function factorsOf(db: Queryable, personId: number): Promise<Factors> {
  const { rows } = await db.query<{ totp: boolean; passkeys: number; recovery_codes: number }>(
    `SELECT EXISTS (SELECT 1 FROM totp_secrets WHERE person_id = $1 AND secret IS NOT NULL) AS totp,
            (SELECT count(*)::int FROM passkeys WHERE person_id = $1) AS passkeys,
            (SELECT count(*)::int FROM recovery_codes WHERE person_id = $1 AND used_at IS NULL) AS recovery_codes`,
    [personId],
  );
  const row = rows[0] as { totp: boolean; passkeys: number; recovery_codes: number };
  return { totp: row.totp, passkeys: row.passkeys, recoveryCodes: row.recovery_codes };
}

/** A passkey or an authenticator app: recovery codes stand in for those, they are none themselves. */
export const hasFactor = (factors: Factors): boolean => factors.totp || factors.passkeys > 0;

export function stepMethods(factors: Factors): SecondStepMethod[] {
  if (!hasFactor(factors)) return [];
  const methods: SecondStepMethod[] = [];
  if (factors.totp) methods.push('totp');
  if (factors.passkeys > 0) methods.push('passkey');
  if (factors.recoveryCodes > 0) methods.push('recovery-code');
  return methods;
}

/** Whether a workspace the person is a member of requires a second factor. */
export async function secondFactorRequired(db: Queryable, personId: number): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.person_id = $1 AND w.require_second_factor LIMIT 1`,
    [personId],
  );
  return rows.length > 0;
}

/** What the first step of a sign-in answers when a second one is due. */
export interface SecondFactorStep {
  readonly secondFactor: { readonly ticket: string; readonly methods: SecondStepMethod[]; readonly expiresAt: string };
}

/**
 * The second step due after `firstFactor`, with its ticket; undefined for a person without a second
 * factor (signed in at once). Expired tickets go on the way.
 */
export async function secondFactorStep(
  db: Queryable,
  personId: number,
  firstFactor: 'password' | 'sso',
): Promise<SecondFactorStep | undefined> {
  const methods = stepMethods(await factorsOf(db, personId));
  if (methods.length === 0) return undefined;
  const ticket = randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ expires_at: Date }>(
    `WITH expired AS (DELETE FROM second_factor_tickets WHERE expires_at < now())
     INSERT INTO second_factor_tickets (hash, person_id, first_factor, expires_at)
     VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond') RETURNING expires_at`,
    [hashSecret(ticket), personId, firstFactor, TICKET_TTL_MS],
  );
  return { secondFactor: { ticket, methods, expiresAt: (rows[0] as { expires_at: Date }).expires_at.toISOString() } };
}

export interface Ticket {
  readonly personId: number;
  readonly firstFactor: 'password' | 'sso';
}

/** Who a live ticket is for (not taken: a wrong code leaves it for the next try), or undefined. */
export async function ticketHolder(db: Queryable, ticket: string): Promise<Ticket | undefined> {
  const { rows } = await db.query<{ person_id: string; first_factor: 'password' | 'sso' }>(
    `SELECT t.person_id, t.first_factor FROM second_factor_tickets t JOIN people p ON p.id = t.person_id
     WHERE t.hash = $1 AND t.expires_at > now() AND t.created_at >= p.credentials_changed_at`,
    [hashSecret(ticket)],
  );
  const row = rows[0];
  return row === undefined ? undefined : { personId: Number(row.person_id), firstFactor: row.first_factor };
}

/** Takes a ticket for good; false when it was taken already (two right answers at once open one session). */
export async function takeTicket(db: Queryable, ticket: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM second_factor_tickets WHERE hash = $1 AND expires_at > now()', [hashSecret(ticket)]);
  return rowCount === 1;
}

/** Adds `method` to the methods of the session of `token` (its person just proved the factor). */
export async function addSessionMethod(db: Queryable, token: string, method: SignInMethod): Promise<void> {
  await db.query('UPDATE sessions SET methods = array_append(methods, $2) WHERE hash = $1 AND NOT ($2 = ANY (methods))', [
    hashSecret(token),
    method,
  ]);
}
