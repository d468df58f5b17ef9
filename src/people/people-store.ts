// The statements of people and their memberships (migrations/0016_people.sql). A membership acts
// through a key of its own (kind 'member', no usable secret) whose role is the member's role, so
// that roles, link ownership and revocation read people as they read keys. Functions take a
// Queryable: the routes run them in a transaction (with the audit entry) where a change spans
// several statements.

import { createApiKey } from '../auth/api-keys.ts';
import { roleRank, type Principal, type Role } from '../auth/roles.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';

export interface Person {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly emailVerified: boolean;
}

export interface PersonWithPassword extends Person {
  readonly passwordHash: string | null;
  readonly lastWorkspaceId: number | null;
}

interface PersonRow {
  id: string;
  name: string;
  email: string;
  email_verified_at: Date | null;
  password_hash: string | null;
  last_workspace_id: string | null;
}

const PERSON_COLUMNS = 'id, name, email, email_verified_at, password_hash, last_workspace_id';

const personOf = (row: PersonRow): PersonWithPassword => ({
  id: Number(row.id),
  name: row.name,
  email: row.email,
  emailVerified: row.email_verified_at !== null,
  passwordHash: row.password_hash,
  lastWorkspaceId: row.last_workspace_id === null ? null : Number(row.last_workspace_id),
});

/** What a person shows of themselves: never the hash. */
export const publicPerson = ({ id, name, email, emailVerified }: Person): Person => ({ id, name, email, emailVerified });

export async function anyPersonExists(db: Queryable): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM people LIMIT 1');
  return rows.length > 0;
}

/** The setup token while no person exists (made once, the same for every instance); null once someone does. */
export async function setupToken(db: Queryable, candidate: string): Promise<string | null> {
  const { rows } = await db.query<{ token: string }>(
    `WITH made AS (
       INSERT INTO setup_token (token) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM people) ON CONFLICT (id) DO NOTHING RETURNING token
     )
     SELECT token FROM made UNION ALL SELECT token FROM setup_token WHERE NOT EXISTS (SELECT 1 FROM people)`,
    [candidate],
  );
  return rows[0]?.token ?? null;
}

export interface NewPerson {
  readonly name: string;
  readonly email: string;
  readonly passwordHash: string | null;
  readonly emailVerified: boolean;
}

/** Creates a person; 409 EMAIL_TAKEN if one has this email. */
export async function createPerson(db: Queryable, person: NewPerson): Promise<PersonWithPassword> {
  const { rows } = await db.query<PersonRow>(
    `INSERT INTO people (name, email, password_hash, email_verified_at) VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)
     ON CONFLICT (email) DO NOTHING RETURNING ${PERSON_COLUMNS}`,
    [person.name, person.email, person.passwordHash, person.emailVerified],
  );
  const row = rows[0];
  if (row === undefined) throw new AppError('EMAIL_TAKEN');
  return personOf(row);
}

export async function findPersonByEmail(db: Queryable, email: string): Promise<PersonWithPassword | undefined> {
  const { rows } = await db.query<PersonRow>(`SELECT ${PERSON_COLUMNS} FROM people WHERE email = $1`, [email]);
  return rows[0] === undefined ? undefined : personOf(rows[0]);
}

export async function findPerson(db: Queryable, id: number): Promise<PersonWithPassword | undefined> {
  const { rows } = await db.query<PersonRow>(`SELECT ${PERSON_COLUMNS} FROM people WHERE id = $1`, [id]);
  return rows[0] === undefined ? undefined : personOf(rows[0]);
}

/** A new password (its hash): tokens sent before it stop working. */
export async function setPassword(db: Queryable, personId: number, passwordHash: string): Promise<void> {
  await db.query('UPDATE people SET password_hash = $2, credentials_changed_at = now() WHERE id = $1', [personId, passwordHash]);
}

/** A new name, on the person and on the keys their memberships act through (the audit log and link creators show it). */
export async function setName(db: Queryable, personId: number, name: string): Promise<void> {
  await db.query('UPDATE people SET name = $2 WHERE id = $1', [personId, name]);
  await db.query(`UPDATE api_keys SET name = $2 WHERE person_id = $1 AND kind = 'member'`, [personId, name]);
}

/** A new, unverified email address; 409 EMAIL_TAKEN if another person has it. */
export async function setEmail(db: Queryable, personId: number, email: string): Promise<void> {
  const { rowCount } = await db.query(
    `UPDATE people SET email = $2, email_verified_at = NULL WHERE id = $1
     AND NOT EXISTS (SELECT 1 FROM people WHERE email = $2 AND id <> $1)`,
    [personId, email],
  );
  if (rowCount !== 1) throw new AppError('EMAIL_TAKEN');
}

export async function markEmailVerified(db: Queryable, personId: number, email: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE people SET email_verified_at = now() WHERE id = $1 AND email = $2', [personId, email]);
  return rowCount === 1;
}

// ---------------------------------------------------------------------------------------------
// Memberships

export interface Membership {
  readonly workspaceId: number;
  readonly workspaceName: string;
  readonly role: Role;
  readonly key: Principal;
}

/** Makes `person` a member of `workspaceId` with `role`: the key the membership acts through, then the membership. */
export async function addMembership(
  db: Queryable,
  person: Pick<Person, 'id' | 'name'>,
  workspaceId: number,
  role: Role,
): Promise<Principal> {
  const key = await createApiKey(db, { name: person.name, role, workspaceId, person: { id: person.id, kind: 'member' } });
  await db.query('INSERT INTO memberships (person_id, workspace_id, key_id) VALUES ($1, $2, $3)', [person.id, workspaceId, key.id]);
  return { id: key.id, name: key.name, role, workspaceId, personId: person.id };
}

/** The person's memberships, the workspace they used last first, then oldest first. */
export async function memberships(db: Queryable, personId: number): Promise<Membership[]> {
  const { rows } = await db.query<{ workspace_id: string; workspace_name: string; role: Role; key_id: string; name: string }>(
    `SELECT m.workspace_id, w.name AS workspace_name, k.role, k.id AS key_id, k.name
     FROM memberships m JOIN workspaces w ON w.id = m.workspace_id JOIN api_keys k ON k.id = m.key_id
     JOIN people p ON p.id = m.person_id
     WHERE m.person_id = $1 AND k.revoked_at IS NULL
     ORDER BY m.workspace_id = p.last_workspace_id DESC NULLS LAST, m.created_at, m.workspace_id`,
    [personId],
  );
  return rows.map((row) => ({
    workspaceId: Number(row.workspace_id),
    workspaceName: row.workspace_name,
    role: row.role,
    key: { id: Number(row.key_id), name: row.name, role: row.role, workspaceId: Number(row.workspace_id), personId },
  }));
}

export async function rememberWorkspace(db: Queryable, personId: number, workspaceId: number): Promise<void> {
  await db.query('UPDATE people SET last_workspace_id = $2 WHERE id = $1', [personId, workspaceId]);
}

export interface Member extends Person {
  readonly role: Role;
  readonly joinedAt: Date;
}

export async function listMembers(db: Queryable, workspaceId: number): Promise<Member[]> {
  const { rows } = await db.query<PersonRow & { role: Role; joined_at: Date }>(
    `SELECT p.id, p.name, p.email, p.email_verified_at, k.role, m.created_at AS joined_at
     FROM memberships m JOIN people p ON p.id = m.person_id JOIN api_keys k ON k.id = m.key_id
     WHERE m.workspace_id = $1 AND k.revoked_at IS NULL ORDER BY m.created_at, p.id`,
    [workspaceId],
  );
  return rows.map((row) => ({ ...publicPerson(personOf(row)), role: row.role, joinedAt: row.joined_at }));
}

export async function findMember(db: Queryable, workspaceId: number, personId: number): Promise<Member | undefined> {
  return (await listMembers(db, workspaceId)).find((member) => member.id === personId);
}

/**
 * Locks the workspace (so that two admins demoting or removing each other at once wait for each
 * other), then says whether a change to `personId` would leave it without an admin.
 */
async function wouldLeaveNoAdmin(db: Queryable, workspaceId: number, personId: number): Promise<boolean> {
  await db.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  const { rows } = await db.query(
    `SELECT 1 FROM memberships m JOIN api_keys k ON k.id = m.key_id
     WHERE m.workspace_id = $1 AND m.person_id <> $2 AND k.role = 'admin' AND k.revoked_at IS NULL LIMIT 1`,
    [workspaceId, personId],
  );
  return rows.length === 0;
}

/**
 * Gives a member another role; their personal API keys of the workspace keep at most it. 409
 * LAST_ADMIN when it would leave the workspace without an admin; undefined when no such member.
 * `keys`: the ids of the keys whose role changed (to forget what was remembered of them).
 */
export async function changeRole(db: Queryable, workspaceId: number, personId: number, role: Role): Promise<Member | undefined> {
  const before = await findMember(db, workspaceId, personId);
  if (before === undefined) return undefined;
  if (before.role === 'admin' && role !== 'admin' && (await wouldLeaveNoAdmin(db, workspaceId, personId))) {
    throw new AppError('LAST_ADMIN');
  }
  await db.query(
    `UPDATE api_keys SET role = $3 WHERE person_id = $1 AND workspace_id = $2 AND revoked_at IS NULL
     AND (kind = 'member' OR (CASE role WHEN 'admin' THEN 2 WHEN 'member' THEN 1 ELSE 0 END) > $4)`,
    [personId, workspaceId, role, roleRank(role)],
  );
  return { ...before, role };
}

/**
 * Removes a member: their membership goes, the key it acted through and their personal keys of the
 * workspace are revoked and their sessions there closed. 409 LAST_ADMIN for its last admin; false
 * when no such member.
 */
export async function removeMember(db: Queryable, workspaceId: number, personId: number): Promise<Member | undefined> {
  const before = await findMember(db, workspaceId, personId);
  if (before === undefined) return undefined;
  if (before.role === 'admin' && (await wouldLeaveNoAdmin(db, workspaceId, personId))) throw new AppError('LAST_ADMIN');
  await db.query(
    `WITH revoked AS (
       UPDATE api_keys SET revoked_at = now() WHERE person_id = $1 AND workspace_id = $2 AND revoked_at IS NULL RETURNING id
     ), closed AS (DELETE FROM sessions WHERE key_id IN (SELECT id FROM revoked))
     DELETE FROM memberships WHERE person_id = $1 AND workspace_id = $2`,
    [personId, workspaceId],
  );
  await db.query('UPDATE people SET last_workspace_id = NULL WHERE id = $1 AND last_workspace_id = $2', [personId, workspaceId]);
  return before;
}

/** Every workspace's id (the first admin becomes an admin of each). */
export async function workspaceIds(db: Queryable): Promise<number[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM workspaces ORDER BY id');
  return rows.map((row) => Number(row.id));
}

/** The workspaces a person may join on their own: those whose join domain is their verified email's domain, and of which they are not a member. */
export async function joinableWorkspaces(db: Queryable, personId: number): Promise<{ id: number; name: string }[]> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT w.id, w.name FROM people p JOIN workspaces w ON w.join_domain = split_part(p.email, '@', 2)
     WHERE p.id = $1 AND p.email_verified_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = p.id AND m.workspace_id = w.id)
     ORDER BY w.name, w.id`,
    [personId],
  );
  return rows.map((row) => ({ id: Number(row.id), name: row.name }));
}
