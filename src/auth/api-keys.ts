// API keys. A key is a random 32-byte secret, shown once when it is made; only its SHA-256 is
// stored, so a copy of the database gives no usable key. A key belongs to one workspace and has a
// role there (roles.ts). The queries here are the only ones that touch api_keys.

import { createHash, randomBytes } from 'node:crypto';
import { parseId } from '../core/ids.ts';
import { DEFAULT_WORKSPACE_ID } from '../core/link.ts';
import type { Queryable } from '../db/pool.ts';
import type { Principal, Role } from './roles.ts';

const PREFIX = 'sk_';
/** sk_ and 32 bytes in base64url. */
export const KEY_SHAPE = /^sk_[A-Za-z0-9_-]{43}$/;

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export interface NewKey {
  readonly name: string;
  /** member by default. */
  readonly role?: Role;
  /** The default workspace by default. */
  readonly workspaceId?: number;
  /** A person's key: 'personal' (an API key of theirs) or 'member' (the key their membership acts through). None: a service key. */
  readonly person?: { readonly id: number; readonly kind: 'personal' | 'member' } | undefined;
}

export interface CreatedKey extends Principal {
  readonly kind: 'service' | 'personal' | 'member';
  readonly createdAt: Date;
  /** The secret: shown once, never stored. */
  readonly secret: string;
}

export async function createApiKey(
  db: Queryable,
  { name, role = 'member', workspaceId = DEFAULT_WORKSPACE_ID, person }: NewKey,
): Promise<CreatedKey> {
  const secret = PREFIX + randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ id: string; created_at: Date }>(
    `INSERT INTO api_keys (name, hash, role, workspace_id, kind, person_id) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, created_at`,
    [name, hashSecret(secret), role, workspaceId, person?.kind ?? 'service', person?.id ?? null],
  );
  const row = rows[0] as { id: string; created_at: Date };
  const kind = person?.kind ?? 'service';
  return { id: Number(row.id), name, role, workspaceId, personId: person?.id ?? null, kind, createdAt: row.created_at, secret };
}

export interface ApiKeyInfo extends Principal {
  readonly kind: 'service' | 'personal' | 'member';
  /** The name of the person a personal key belongs to; null for a service key. */
  readonly ownerName: string | null;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

interface KeyRow {
  id: string;
  name: string;
  role: Role;
  workspace_id: string;
  kind: 'service' | 'personal' | 'member';
  person_id: string | null;
  owner_name?: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const infoOf = (row: KeyRow): ApiKeyInfo => ({
  id: Number(row.id),
  name: row.name,
  role: row.role,
  workspaceId: Number(row.workspace_id),
  personId: row.person_id === null ? null : Number(row.person_id),
  kind: row.kind,
  ownerName: row.owner_name ?? null,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

const KEY_COLUMNS = 'id, name, role, workspace_id, kind, person_id, created_at, revoked_at';

/** The API keys (service and personal: not those memberships act through) of one workspace, or of all of them; oldest first. */
export async function listApiKeys(db: Queryable, workspaceId?: number, personId?: number): Promise<ApiKeyInfo[]> {
  const { rows } = await db.query<KeyRow>(
    `SELECT k.${KEY_COLUMNS.split(', ').join(', k.')}, p.name AS owner_name FROM api_keys k LEFT JOIN people p ON p.id = k.person_id
     WHERE ($1::bigint IS NULL OR k.workspace_id = $1) AND ($2::bigint IS NULL OR k.person_id = $2) AND k.kind <> 'member' ORDER BY k.id`,
    [workspaceId ?? null, personId ?? null],
  );
  return rows.map(infoOf);
}

/** The active key whose secret hashes to `hash`, or undefined. */
export async function findActiveKey(db: Queryable, hash: Buffer): Promise<Principal | undefined> {
  const { rows } = await db.query<KeyRow & { suspended: boolean }>(
    `SELECT ${KEY_COLUMNS}, EXISTS (SELECT 1 FROM workspaces w WHERE w.id = workspace_id AND w.suspended_at IS NOT NULL) AS suspended
     FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`,
    [hash],
  );
  const row = rows[0];
  return row === undefined ? undefined : { ...infoOf(row), suspended: row.suspended };
}

export type RevokeOutcome = 'revoked' | 'last-admin' | 'not-found';

/**
 * Revokes an active key of `workspaceId` (any workspace when undefined) and closes its sessions,
 * unless it is its workspace's last active admin key.
 */
export async function revokeApiKey(db: Queryable, id: number, workspaceId?: number): Promise<RevokeOutcome> {
  const { rows } = await db.query<{ outcome: RevokeOutcome | null }>(
    `SELECT revoke_api_key($1, coalesce($2::bigint, (SELECT workspace_id FROM api_keys WHERE id = $1))) AS outcome`,
    [id, workspaceId ?? null],
  );
  return rows[0]?.outcome ?? 'not-found';
}

/** Gives a key another role (the CLI's `role`); false if there is no such active key. */
export async function setRole(db: Queryable, id: number, role: Role): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE api_keys SET role = $2 WHERE id = $1 AND revoked_at IS NULL', [id, role]);
  return rowCount === 1;
}

export interface Workspace {
  readonly id: number;
  readonly name: string;
}

export async function listWorkspaces(db: Queryable): Promise<(Workspace & { keys: number; links: number })[]> {
  const { rows } = await db.query<{ id: string; name: string; keys: string; links: string }>(
    `SELECT w.id, w.name,
            (SELECT count(*) FROM api_keys k WHERE k.workspace_id = w.id AND k.revoked_at IS NULL) AS keys,
            (SELECT count(*) FROM link_totals t WHERE t.workspace_id = w.id) AS links
     FROM workspaces w ORDER BY w.id`,
  );
  return rows.map((row) => ({ id: Number(row.id), name: row.name, keys: Number(row.keys), links: Number(row.links) }));
}

export async function findWorkspace(db: Queryable, idOrName: string): Promise<Workspace | undefined> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, name FROM workspaces WHERE name = $1 OR (${parseId(idOrName) === undefined ? 'false' : 'id = $1::bigint'})`,
    [idOrName],
  );
  const row = rows[0];
  return row === undefined ? undefined : { id: Number(row.id), name: row.name };
}

/** Creates a workspace; undefined if one has that name already. */
export async function createWorkspace(db: Queryable, name: string): Promise<Workspace | undefined> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO workspaces (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id', [
    name,
  ]);
  const row = rows[0];
  return row === undefined ? undefined : { id: Number(row.id), name };
}

/** Whether any key was ever made (a fresh install has none). */
export async function anyKeyExists(db: Queryable): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM api_keys LIMIT 1');
  return rows.length > 0;
}
