// The statements of invitations (migrations/0016_people.sql). An invitation is a random 32-byte
// token sent by email (or handed over by an admin when this service sends no mail); only its
// SHA-256 is kept, it is accepted at most once (the row is locked while it is), and it expires.

import { randomBytes } from 'node:crypto';
import { hashSecret } from '../auth/api-keys.ts';
import type { Role } from '../auth/roles.ts';
import type { Queryable } from '../db/pool.ts';

export interface Invitation {
  readonly id: number;
  readonly workspaceId: number;
  readonly workspaceName: string;
  readonly email: string;
  readonly role: Role;
  readonly invitedBy: { id: number; name: string } | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

interface InvitationRow {
  id: string;
  workspace_id: string;
  workspace_name: string;
  email: string;
  role: Role;
  invited_by: string | null;
  inviter_name: string | null;
  created_at: Date;
  expires_at: Date;
}

const SELECT = `SELECT i.id, i.workspace_id, w.name AS workspace_name, i.email, i.role, i.invited_by, p.name AS inviter_name,
  i.created_at, i.expires_at
  FROM invitations i JOIN workspaces w ON w.id = i.workspace_id LEFT JOIN people p ON p.id = i.invited_by`;
const OPEN = 'i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now()';

const invitationOf = (row: InvitationRow): Invitation => ({
  id: Number(row.id),
  workspaceId: Number(row.workspace_id),
  workspaceName: row.workspace_name,
  email: row.email,
  role: row.role,
  invitedBy: row.invited_by === null ? null : { id: Number(row.invited_by), name: row.inviter_name ?? '' },
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** Makes an invitation; its token (shown once, by mail or to the admin). */
export async function createInvitation(
  db: Queryable,
  invitation: { workspaceId: number; email: string; role: Role; invitedBy: number | null; ttlMs: number },
): Promise<{ invitation: Invitation; token: string }> {
  const token = randomBytes(32).toString('base64url');
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO invitations (workspace_id, email, role, hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond') RETURNING id`,
    [invitation.workspaceId, invitation.email, invitation.role, hashSecret(token), invitation.invitedBy, invitation.ttlMs],
  );
  const id = Number((rows[0] as { id: string }).id);
  const made = await db.query<InvitationRow>(`${SELECT} WHERE i.id = $1`, [id]);
  return { invitation: invitationOf(made.rows[0] as InvitationRow), token };
}

/** A workspace's open invitations, newest first. */
export async function openInvitations(db: Queryable, workspaceId: number): Promise<Invitation[]> {
  const { rows } = await db.query<InvitationRow>(`${SELECT} WHERE i.workspace_id = $1 AND ${OPEN} ORDER BY i.id DESC`, [workspaceId]);
  return rows.map(invitationOf);
}

/** The open invitation of `token`, or undefined; `lock`: locked until the transaction ends (accepting it). */
export async function findInvitation(db: Queryable, token: string, lock = false): Promise<Invitation | undefined> {
  const { rows } = await db.query<InvitationRow>(`${SELECT} WHERE i.hash = $1 AND ${OPEN}${lock ? ' FOR UPDATE OF i' : ''}`, [
    hashSecret(token),
  ]);
  return rows[0] === undefined ? undefined : invitationOf(rows[0]);
}

export async function markAccepted(db: Queryable, id: number, personId: number): Promise<void> {
  await db.query('UPDATE invitations SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [id, personId]);
}

/** Withdraws an open invitation of the workspace; what it was, or undefined. */
export async function revokeInvitation(db: Queryable, workspaceId: number, id: number): Promise<Invitation | undefined> {
  const { rows } = await db.query<InvitationRow>(`${SELECT} WHERE i.id = $1 AND i.workspace_id = $2 AND ${OPEN}`, [id, workspaceId]);
  if (rows[0] === undefined) return undefined;
  await db.query('UPDATE invitations SET revoked_at = now() WHERE id = $1', [id]);
  return invitationOf(rows[0]);
}
