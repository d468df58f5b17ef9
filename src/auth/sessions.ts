// Dashboard sessions. Signing in with an API key opens a session: a random 32-byte token in an
// HttpOnly cookie, stored as its SHA-256 (a copy of the database gives no usable session), that acts
// as its key until it expires, is closed, or the key is revoked. Each session has a CSRF token of
// its own, which the dashboard sends back as X-CSRF-Token with every change (authenticate.ts). A
// key has at most SESSIONS_PER_KEY_MAX open sessions: opening one more closes its oldest.

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
}

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
): Promise<OpenedSession & { closed: Buffer[] }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ expires_at: Date; workspace_name: string | null }>(
    `WITH expired AS (DELETE FROM sessions WHERE expires_at < now())
     INSERT INTO sessions (hash, key_id, csrf_token, expires_at)
     VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
     RETURNING expires_at, (SELECT name FROM workspaces WHERE id = $5) AS workspace_name`,
    [hashSecret(token), key.id, csrfToken, ttlMs, key.workspaceId],
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

/** The live session of `token` (not expired, its key not revoked), or undefined. */
export async function findSession(db: Queryable, token: string): Promise<Session | undefined> {
  const { rows } = await db.query<{
    key_id: string;
    name: string;
    role: Role;
    workspace_id: string;
    workspace_name: string;
    csrf_token: string;
    expires_at: Date;
  }>(
    `SELECT s.key_id, k.name, k.role, k.workspace_id, w.name AS workspace_name, s.csrf_token, s.expires_at
     FROM sessions s JOIN api_keys k ON k.id = s.key_id JOIN workspaces w ON w.id = k.workspace_id
     WHERE s.hash = $1 AND s.expires_at > now() AND k.revoked_at IS NULL`,
    [hashSecret(token)],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    key: { id: Number(row.key_id), name: row.name, role: row.role, workspaceId: Number(row.workspace_id) },
    workspaceName: row.workspace_name,
    csrfToken: row.csrf_token,
    expiresAt: row.expires_at,
  };
}

export async function closeSession(db: Queryable, token: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE hash = $1', [hashSecret(token)]);
}
