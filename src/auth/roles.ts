// Who may do what in a workspace. Pure: no I/O.
//
//   admin   everything in its workspace: any link, its keys
//   member  creates links, changes and deletes the ones it created
//   viewer  reads links, their stats, tags and exports

import type { ErrorCode } from '../errors.ts';

export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The key a request acts as (an API key, or the key a session was opened with). */
export interface Principal {
  readonly id: number;
  readonly name: string;
  readonly workspaceId: number;
  readonly role: Role;
}

/** Why `who` may not create links, or undefined if it may. */
export function createProblem(who: Principal): ErrorCode | undefined {
  return who.role === 'viewer' ? 'ROLE_FORBIDDEN' : undefined;
}

/** Why `who` may not change or delete a link of its workspace created by `ownerKeyId` (null: without a key). */
export function changeProblem(who: Principal, ownerKeyId: number | null): ErrorCode | undefined {
  if (who.role === 'admin') return undefined;
  if (who.role === 'viewer') return 'ROLE_FORBIDDEN';
  return ownerKeyId === who.id ? undefined : 'API_KEY_NOT_OWNER';
}

/** Why `who` may not manage the workspace (its keys, its domains), or undefined if it may. */
export function adminProblem(who: Principal): ErrorCode | undefined {
  return who.role === 'admin' ? undefined : 'ROLE_FORBIDDEN';
}
