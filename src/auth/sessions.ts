// Dashboard sessions. Signing in with an API key opens a session: a random 32-byte token in an
// HttpOnly cookie, stored as its SHA-256 (a copy of the database gives no usable session), that acts
// as its key until it expires, is closed, or the key is revoked. Each session has a CSRF token of
// its own, which the dashboard sends back as X-CSRF-Token with every change (authenticate.ts). A
// key has at most SESSIONS_PER_KEY_MAX open sessions: opening one more closes its oldest.
//
// A person's session (src/people) is opened with the key of their membership and also knows the
// person: it has a public id (to list and close it without its secret), the client's truncated
// address and user agent, and it ends after SESSION_IDLE_MINUTES without a request as well as at
// its absolute expiry. last_seen_at is written at most once a minute per session.
//
// A workspace may set a shorter length (its sessionHours, docs/settings.md): a session in it ends
// that many hours after it began, even if it began before the setting (least() skips a NULL).

import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import { hashSecret } from './api-keys.ts';
import type { Principal, Role } from './roles.ts';

/** 32 bytes in base64url. */
export const SESSION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface OpenedSession {
  readonly token: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
  /** The name of the key's workspace, read by the same statement. */
  readonly workspaceName: string;
}

export interface Session {
  readonly key: Principal;
  readonly workspaceName: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
  /** The person of a person's session; null for one opened with an API key. */
  readonly personId: number | null;
  /** Its public id (a person's session), to list and close it by. */
  readonly publicId: string | null;
  /** How its person signed in; empty for a key's session. */
  readonly methods: readonly SignInMethod[];
  /** What its workspace requires of a person's session: single sign-on, a second factor. */
  readonly requires: { readonly sso: boolean; readonly secondFactor: boolean };
}

/** Who a person's session is for, and from where. */
export interface SessionHolder {
  readonly personId: number;
  /** Truncated (audit.ts truncatedAddress). */
  readonly address: string;
  readonly userAgent: string;
  /** How they proved who they are (sign-in methods: 'password', 'sso', 'passkey', 'totp', 'recovery-code'). */
  readonly methods: readonly SignInMethod[];
}

export type SignInMethod = 'password' | 'sso' | 'passkey' | 'totp' | 'recovery-code';

/** Methods that are a second factor, or a passkey (a factor the person has, verified by one they know or are). */
export const SECOND_FACTORS: readonly SignInMethod[] = ['passkey', 'totp', 'recovery-code'];

/**
 * Opens a session for `key`, and drops expired ones on the way (one statement); then closes the
 * key's oldest sessions beyond `maxPerKey` (a second statement, so that it sees every session
 * opened before it ends: concurrent sign-ins leave at most `maxPerKey`). `closed`: their hashes.
 */
export async function openSession(
  db: Queryable,
  key: Pick<Principal, 'id' | 'workspaceId'>,
  ttlMs: number,
  maxPerKey: number,
  holder?: SessionHolder,
): Promise<OpenedSession & { closed: Buffer[] }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ expires_at: Date; workspace_name: string | null }>(
    `WITH expired AS (DELETE FROM sessions WHERE expires_at < now())
     INSERT INTO sessions (hash, key_id, csrf_token, expires_at, person_id, public_id, address, user_agent, methods)
     VALUES ($1, $2, $3, now() + least($4 * interval '1 millisecond', (SELECT session_hours FROM workspaces WHERE id = $5) * interval '1 hour'),
             $6, $7, $8, left($9, 200), $10)
     RETURNING expires_at, (SELECT name FROM workspaces WHERE id = $5) AS workspace_name`,
    [
      hashSecret(token),
      key.id,
      csrfToken,
      ttlMs,
      key.workspaceId,
      holder?.personId ?? null,
      holder === undefined ? null : randomBytes(12).toString('base64url'),
      holder?.address ?? null,
      holder?.userAgent ?? null,
      holder?.methods ?? [],
    ],
  );
  const row = rows[0] as { expires_at: Date; workspace_name: string | null };
  const trimmed = await db.query<{ hash: Buffer }>(
    `DELETE FROM sessions WHERE hash IN (
       SELECT hash FROM sessions WHERE key_id = $1 ORDER BY created_at DESC, hash OFFSET $2
     ) RETURNING hash`,
    [key.id, maxPerKey],
  );
  return {
    token,
    csrfToken,
    expiresAt: row.expires_at,
    workspaceName: row.workspace_name ?? '',
    closed: trimmed.rows.map((closed) => closed.hash),
  };
}

/**
 * The live session of `token` (not expired, not idle `idleMs` if a person's, its key not revoked),
 * or undefined; a person's session found live is marked seen (at most once a minute).
 */
export async function findSession(db: Queryable, token: string, idleMs: number): Promise<Session | undefined> {
  const { rows } = await db.query<{
    key_id: string;
    name: string;
    role: Role;
    workspace_id: string;
    workspace_name: string;
    csrf_token: string;
    expires_at: Date;
    person_id: string | null;
    public_id: string | null;
    methods: SignInMethod[];
    require_sso: boolean;
    require_second_factor: boolean;
    suspended: boolean;
  }>(
    `WITH live AS (
       SELECT s.hash, s.key_id, k.name, k.role, k.workspace_id, w.name AS workspace_name, s.csrf_token,
              least(s.expires_at, s.created_at + w.session_hours * interval '1 hour') AS expires_at,
              s.person_id, s.public_id, s.last_seen_at, s.methods, w.require_sso, w.require_second_factor,
              w.suspended_at IS NOT NULL AS suspended
       FROM sessions s JOIN api_keys k ON k.id = s.key_id JOIN workspaces w ON w.id = k.workspace_id
       WHERE s.hash = $1 AND least(s.expires_at, s.created_at + w.session_hours * interval '1 hour') > now() AND k.revoked_at IS NULL
         AND (s.person_id IS NULL OR s.last_seen_at > now() - $2 * interval '1 millisecond')
     ), seen AS (
       UPDATE sessions SET last_seen_at = now()
       WHERE hash IN (SELECT hash FROM live WHERE person_id IS NOT NULL AND last_seen_at < now() - interval '1 minute')
     )
     SELECT key_id, name, role, workspace_id, workspace_name, csrf_token, expires_at, person_id, public_id, methods,
            require_sso, require_second_factor, suspended
     FROM live`,
    [hashSecret(token), idleMs],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const personId = row.person_id === null ? null : Number(row.person_id);
  return {
    key: {
      id: Number(row.key_id),
      name: row.name,
      role: row.role,
      workspaceId: Number(row.workspace_id),
      personId,
      suspended: row.suspended,
    },
    workspaceName: row.workspace_name,
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
    personId,
    publicId: row.public_id,
    methods: row.methods,
    requires: { sso: row.require_sso, secondFactor: row.require_second_factor },
  };
}

export async function closeSession(db: Queryable, token: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE hash = $1', [hashSecret(token)]);
}

// ---------------------------------------------------------------------------------------------
// A person's sessions (src/people): listed and closed by their owner, moved between workspaces.

export interface PersonSession {
  readonly id: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  readonly expiresAt: Date;
  readonly address: string | null;
  readonly userAgent: string | null;
  /** Its hash, to tell the current one and to forget it (never shown). */
  readonly hash: Buffer;
}

/** The live sessions of a person, newest first. */
export async function personSessions(db: Queryable, personId: number, idleMs: number): Promise<PersonSession[]> {
  const { rows } = await db.query<{
    public_id: string;
    created_at: Date;
    last_seen_at: Date;
    expires_at: Date;
    address: string | null;
    user_agent: string | null;
    hash: Buffer;
  }>(
    `SELECT * FROM (
       SELECT s.public_id, s.created_at, s.last_seen_at, s.address, s.user_agent, s.hash,
              least(s.expires_at, s.created_at + w.session_hours * interval '1 hour') AS expires_at
       FROM sessions s JOIN api_keys k ON k.id = s.key_id JOIN workspaces w ON w.id = k.workspace_id
       WHERE s.person_id = $1 AND s.last_seen_at > now() - $2 * interval '1 millisecond'
     ) live WHERE expires_at > now()
     ORDER BY created_at DESC`,
    [personId, idleMs],
  );
  return rows.map((row) => ({
    id: row.public_id,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    address: row.address,
    userAgent: row.user_agent,
    hash: row.hash,
  }));
}

/** Closes a person's sessions: the one of `publicId`, or all but `except` (a hash); the hashes closed. */
export async function closePersonSessions(
  db: Queryable,
  personId: number,
  which: { publicId: string } | { except: Buffer | null },
): Promise<Buffer[]> {
  const { rows } =
    'publicId' in which
      ? await db.query<{ hash: Buffer }>('DELETE FROM sessions WHERE person_id = $1 AND public_id = $2 RETURNING hash', [
          personId,
          which.publicId,
        ])
      : await db.query<{ hash: Buffer }>('DELETE FROM sessions WHERE person_id = $1 AND hash IS DISTINCT FROM $2 RETURNING hash', [
          personId,
          which.except,
        ]);
  return rows.map((row) => row.hash);
}

/** Points the session of `token` at another key of its person (switching workspace); false if it is gone. */
export async function moveSession(db: Queryable, token: string, personId: number, keyId: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE sessions SET key_id = $3 WHERE hash = $1 AND person_id = $2', [
    hashSecret(token),
    personId,
    keyId,
  ]);
  return rowCount === 1;
}

export interface SessionPerson {
  readonly person: { id: number; name: string; email: string; emailVerified: boolean };
  readonly workspaces: { id: number; name: string; role: Role }[];
}

/** Who a person's session is for, and the workspaces they may switch to. */
export async function sessionPerson(db: Queryable, personId: number): Promise<SessionPerson | undefined> {
  const { rows } = await db.query<{
    name: string;
    email: string;
    verified: boolean;
    workspace_id: string | null;
    workspace_name: string | null;
    role: Role | null;
  }>(
    `SELECT p.name, p.email, p.email_verified_at IS NOT NULL AS verified, w.id AS workspace_id, w.name AS workspace_name, k.role
     FROM people p
     LEFT JOIN memberships m ON m.person_id = p.id
     LEFT JOIN api_keys k ON k.id = m.key_id AND k.revoked_at IS NULL
     LEFT JOIN workspaces w ON w.id = m.workspace_id AND k.id IS NOT NULL
     WHERE p.id = $1 ORDER BY w.name, w.id`,
    [personId],
  );
  const first = rows[0];
  if (first === undefined) return undefined;
  return {
    person: { id: personId, name: first.name, email: first.email, emailVerified: first.verified },
    workspaces: rows.flatMap((row) =>
      row.workspace_id === null || row.role === null
        ? []
        : [{ id: Number(row.workspace_id), name: row.workspace_name ?? '', role: row.role }],
    ),
  };
}
