// Who may do what in a workspace. Pure: no I/O.
//
//   admin   everything in its workspace: any link, its keys
//   member  creates links, changes and deletes the ones it created
//   viewer  reads links, their stats, tags and exports

import type { ErrorCode } from '../errors.ts';

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };

/** Whether `role` allows no more than `ceiling` (a person's key carries at most their role). */
export const roleWithin = (role: Role, ceiling: Role): boolean => RANK[role] <= RANK[ceiling];

/** The rank of a role, for SQL that caps roles (viewer 0, member 1, admin 2). */
export const roleRank = (role: Role): number => RANK[role];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The key a request acts as (an API key, or the key a session was opened with). */
export interface Principal {
  readonly id: number;
  readonly name: string;
  readonly workspaceId: number;
  readonly role: Role;
  /** The person it belongs to (their membership's key, or a personal API key); null for a service key. */
  readonly personId: number | null;
  /** Its workspace is suspended by the deployment's operators (docs/operators.md): it may read, not write. */
  readonly suspended?: boolean;
}

/** Why `who` may not create links, or undefined if it may. */
export function createProblem(who: Principal): ErrorCode | undefined {
  // Also where a write arrives by GET (YOURLS's API) or in process (the MCP server), which authenticate.ts does not see.
  if (who.suspended === true) return 'WORKSPACE_SUSPENDED';
  return who.role === 'viewer' ? 'ROLE_FORBIDDEN' : undefined;
}

/**
 * Why `who` may not change or delete a link of its workspace created by `ownerKeyId` (null: without
 * a key), a key of `ownerPersonId` (null: a service key): a member changes what they created, with
 * any of their keys or their session.
 */
export function changeProblem(who: Principal, ownerKeyId: number | null, ownerPersonId: number | null = null): ErrorCode | undefined {
  if (who.suspended === true) return 'WORKSPACE_SUSPENDED';
  if (who.role === 'admin') return undefined;
  if (who.role === 'viewer') return 'ROLE_FORBIDDEN';
  if (ownerKeyId === who.id) return undefined;
  return who.personId !== null && ownerPersonId === who.personId ? undefined : 'API_KEY_NOT_OWNER';
}

/** Why `who` may not manage the workspace (its keys, its domains), or undefined if it may. */
export function adminProblem(who: Principal): ErrorCode | undefined {
  return who.role === 'admin' ? undefined : 'ROLE_FORBIDDEN';
}
