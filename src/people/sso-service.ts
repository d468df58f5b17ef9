// Who a single sign-on signs in, once the provider has said who it is (sso-client.ts): the person
// linked to that identity; else the person with that (provider-verified) email, who is then linked;
// else a new person, only when a workspace takes people of the email's domain (join_domain), who
// then joins it. A person found without a workspace joins those of their domain. Each sign-in and
// each refusal is audited ('person.sign-in' / 'person.sign-in-failed', via 'sso'), never with a
// token or a code. The rules, and why: docs/sso.md#who-is-signed-in.

import { recordAudit } from '../audit/audit.ts';
import type { Principal } from '../auth/roles.ts';
import { cleanName } from '../core/names.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import { createPerson, findPerson, findPersonByEmail, memberships, publicPerson, type PersonWithPassword } from './people-store.ts';
import { cleanEmail, type PeopleService, type SignedIn } from './service.ts';
import type { SsoIdentity } from './sso-client.ts';
import { claimAddress, domainIsJoinable, identityPerson, linkedElsewhereAt, linkIdentity } from './sso-store.ts';

/** How the person was found: by the identity's link, by email (and linked now), or made now. */
type Matched = 'identity' | 'email' | 'created';

type Match =
  | { readonly person: PersonWithPassword; readonly how: Matched; readonly closed: Buffer[] }
  | { readonly refused: ErrorCode; readonly person?: PersonWithPassword };

export interface SsoSignedIn {
  readonly signedIn: SignedIn;
  /** Hashes of the sessions closed on the way (an address claimed from an unverified account), to forget. */
  readonly closed: Buffer[];
}

export class SsoService {
  readonly #people: PeopleService;

  constructor(people: PeopleService) {
    this.#people = people;
  }

  /** The person `identity` signs in, and the key their session opens with; a refusal is audited, then thrown coded. */
  async signIn(identity: SsoIdentity, address: string | null): Promise<SsoSignedIn> {
    const email = identity.email === undefined ? undefined : cleanEmail(identity.email);
    if (email === undefined || !identity.emailVerified) return this.refuse('SSO_EMAIL_UNVERIFIED', address);
    const match = await this.#match(identity, email).catch((err: unknown) => {
      // Two first sign-ins of one new address at once: the second finds the person the first made.
      if (err instanceof AppError && err.code === 'EMAIL_TAKEN') return this.#match(identity, email);
      throw err;
    });
    if ('refused' in match) return this.refuse(match.refused, address, match.person);
    const { person, how } = match;
    if ((await this.#people.read((db) => memberships(db, person.id))).length === 0) await this.#people.joinByDomain(person, address);
    let key: Principal;
    try {
      key = await this.#people.workspaceKey(person.id);
    } catch (err) {
      if (err instanceof AppError && err.code === 'WORKSPACE_NOT_FOUND') return this.refuse('WORKSPACE_NOT_FOUND', address, person);
      throw err;
    }
    await this.#people.tx((db) =>
      recordAudit(
        db,
        { personId: person.id, keyId: key.id, name: person.name, address },
        {
          workspaceId: key.workspaceId,
          action: 'person.sign-in',
          targetType: 'person',
          targetId: person.id,
          after: { via: 'sso', matched: how },
        },
      ),
    );
    return { signedIn: { key, person: publicPerson(person) }, closed: match.closed };
  }

  /**
   * A failed single sign-on, audited (seen by the admins of the workspace the person used last, if
   * a person is known), then thrown as the coded error.
   */
  async refuse(code: ErrorCode, address: string | null, person?: PersonWithPassword): Promise<never> {
    await this.#people.tx((db) =>
      recordAudit(
        db,
        { personId: person?.id ?? null, keyId: null, name: person?.name ?? null, address },
        {
          workspaceId: person?.lastWorkspaceId ?? null,
          action: 'person.sign-in-failed',
          targetType: 'person',
          targetId: person?.id ?? null,
          after: { via: 'sso', code },
        },
      ),
    );
    throw new AppError(code);
  }

  /** The person of `identity`, in one transaction: linked, or found by email and linked, or made (where a workspace takes the domain). */
  #match(identity: SsoIdentity, email: string): Promise<Match> {
    const { issuer, subject } = identity;
    return this.#people.tx(async (db): Promise<Match> => {
      const linked = await identityPerson(db, issuer, subject);
      const person = linked === undefined ? undefined : await findPerson(db, linked);
      if (person !== undefined) return { person, how: 'identity', closed: [] };
      const owner = await findPersonByEmail(db, email);
      if (owner !== undefined) {
        // The address may have been given to someone new at the provider: the account stays its first holder's.
        if (await linkedElsewhereAt(db, owner.id, issuer, subject)) return { refused: 'SSO_IDENTITY_CONFLICT', person: owner };
        await linkIdentity(db, issuer, subject, owner.id);
        // Never verified here: whoever typed the address in may not own it, so their password and sessions go.
        const closed = owner.emailVerified ? [] : await claimAddress(db, owner.id);
        return {
          person: { ...owner, emailVerified: true, passwordHash: owner.emailVerified ? owner.passwordHash : null },
          how: 'email',
          closed,
        };
      }
      if (!(await domainIsJoinable(db, email.slice(email.lastIndexOf('@') + 1)))) return { refused: 'SSO_EMAIL_DOMAIN_NOT_ACCEPTED' };
      const made = await createPerson(db, { name: nameOf(identity, email), email, passwordHash: null, emailVerified: true });
      await linkIdentity(db, issuer, subject, made.id);
      return { person: made, how: 'created', closed: [] };
    });
  }
}

/** A new person's name: the provider's, or else the email's local part. */
function nameOf(identity: SsoIdentity, email: string): string {
  return cleanName(identity.name) ?? cleanName(email.slice(0, email.lastIndexOf('@')).slice(0, 100)) ?? 'New member';
}
