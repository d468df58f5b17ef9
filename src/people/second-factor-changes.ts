// What adding or removing a second factor does besides its own row, in the change's transaction: the
// audit entry; on the first factor, ten recovery codes; the session that added it counts the factor
// from then on (the person just proved they hold it, so they need not sign in again to meet a
// workspace's requirement); and a person's last factor is not removed while a workspace of theirs
// requires one (409 SECOND_FACTOR_LAST): they would be locked out of it.

import { recordAudit, type Actor } from '../audit/audit.ts';
import type { SignInMethod } from '../auth/sessions.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { Person } from './people-store.ts';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.ts';
import { removeRecoveryCodes, replaceRecoveryCodes } from './recovery-store.ts';
import { addSessionMethod, factorsOf, hasFactor, secondFactorRequired } from './second-factor-store.ts';

/** A signed-in person changing their own factors, from the session of `sessionToken`. */
export interface Acting {
  readonly person: Person;
  readonly actor: Actor;
  /** The session's workspace: the audit entry is its admins'. */
  readonly workspaceId: number;
  readonly sessionToken: string;
  /** The client's budget key (edge/client-address.ts clientKey). */
  readonly client: string;
}

export type FactorAction = 'person.passkey-add' | 'person.passkey-remove' | 'person.totp-enable' | 'person.totp-disable';

/** Ten new codes for the person (the old ones stop working), audited; the codes, to show once. */
export async function replaceCodes(db: Queryable, acting: Acting): Promise<string[]> {
  const codes = newRecoveryCodes();
  await replaceRecoveryCodes(
    db,
    acting.person.id,
    codes.map((code) => recoveryCodeHash(code) as Buffer),
  );
  await recordAudit(db, acting.actor, {
    workspaceId: acting.workspaceId,
    action: 'person.recovery-codes',
    targetType: 'person',
    targetId: acting.person.id,
  });
  return codes;
}

/**
 * After a factor's row is written: the audit entry, the session's new method, and recovery codes if
 * the person has none left (returned, to show once; null when they keep theirs).
 */
export async function factorAdded(
  db: Queryable,
  acting: Acting,
  method: SignInMethod,
  action: FactorAction,
  after: object,
): Promise<string[] | null> {
  await recordAudit(db, acting.actor, {
    workspaceId: acting.workspaceId,
    action,
    targetType: 'person',
    targetId: acting.person.id,
    after,
  });
  await addSessionMethod(db, acting.sessionToken, method);
  const { recoveryCodes } = await factorsOf(db, acting.person.id);
  return recoveryCodes === 0 ? replaceCodes(db, acting) : null;
}

/** After a factor's row is deleted (in the same transaction): refused if it was the last one a workspace requires; audited. */
export async function factorRemoved(db: Queryable, acting: Acting, action: FactorAction, before: object): Promise<void> {
  if (!hasFactor(await factorsOf(db, acting.person.id))) {
    if (await secondFactorRequired(db, acting.person.id)) throw new AppError('SECOND_FACTOR_LAST');
    // Recovery codes stand in for a factor; with none left they would be a password's second half alone.
    await removeRecoveryCodes(db, acting.person.id);
  }
  await recordAudit(db, acting.actor, {
    workspaceId: acting.workspaceId,
    action,
    targetType: 'person',
    targetId: acting.person.id,
    before,
  });
}
