// Invitations: an admin invites an address to their workspace (mailed, in the transaction of the
// invitation, so that a refused mail makes none; or a link to pass on when this service sends no
// mail), and the holder of the link accepts it once: as the signed-in person it was sent to, or as a
// new person. Each step is audited in its transaction.

import type { Actor } from '../audit/audit.ts';
import { recordAudit } from '../audit/audit.ts';
import type { Principal, Role } from '../auth/roles.ts';
import { AppError } from '../errors.ts';
import { createInvitation, findInvitation, markAccepted, type Invitation } from './invitations.ts';
import { invitationMail } from './mail.ts';
import {
  addMembership,
  createPerson,
  findMember,
  findPersonByEmail,
  publicPerson,
  rememberWorkspace,
  type Person,
} from './people-store.ts';
import type { PeopleService, SignedIn } from './service.ts';

/** How long an invitation may be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

export class InvitationService {
  readonly #people: PeopleService;

  constructor(people: PeopleService) {
    this.#people = people;
  }

  /** Invites `email` to the admin's workspace: mailed when mail is on (in the transaction: a refused mail makes no invitation), else its link is returned. */
  async invite(admin: Principal, actor: Actor, email: string, role: Role): Promise<{ invitation: Invitation; url: string | null }> {
    return this.#people.tx(async (db) => {
      const existing = await findPersonByEmail(db, email);
      if (existing !== undefined && (await findMember(db, admin.workspaceId, existing.id)) !== undefined)
        throw new AppError('ALREADY_MEMBER');
      const { invitation, token } = await createInvitation(db, {
        workspaceId: admin.workspaceId,
        email,
        role,
        invitedBy: admin.personId,
        ttlMs: INVITATION_TTL_MS,
      });
      await recordAudit(db, actor, {
        workspaceId: admin.workspaceId,
        action: 'member.invite',
        targetType: 'invitation',
        targetId: invitation.id,
        after: { email, role },
      });
      const url = `${this.#people.dashboardUrl}invitation?token=${token}`;
      if (this.#people.mailer === null) return { invitation, url };
      const message = invitationMail({
        workspaceName: invitation.workspaceName,
        inviterName: invitation.invitedBy?.name ?? null,
        role,
        url,
        expiresAt: invitation.expiresAt,
      });
      await this.#people.mailer.send({ to: email, ...message });
      return { invitation, url: null };
    });
  }

  /** The open invitation of a token, and whether its address has an account; 404 INVITATION_INVALID. */
  async invitation(token: string): Promise<{ invitation: Invitation; account: boolean }> {
    return this.#people.read(async (db) => {
      const invitation = await findInvitation(db, token);
      if (invitation === undefined) throw new AppError('INVITATION_INVALID');
      return { invitation, account: (await findPersonByEmail(db, invitation.email)) !== undefined };
    });
  }

  /**
   * Accepts an invitation: as `signedIn` (a person whose address it was sent to), or as a new
   * person with `account` (name and password). The invitation is locked and used once.
   */
  async accept(
    token: string,
    as: { signedIn: Person } | { account: { name: string; password: string } },
    address: string | null,
  ): Promise<SignedIn> {
    const newHash =
      'account' in as
        ? await this.#people.newPasswordHash(as.account.password, {
            name: as.account.name,
            email: (await this.invitation(token)).invitation.email,
          })
        : null;
    return this.#people.tx(async (db) => {
      const invitation = await findInvitation(db, token, true);
      if (invitation === undefined) throw new AppError('INVITATION_INVALID');
      let person: Person;
      if ('signedIn' in as) {
        if (as.signedIn.email !== invitation.email) {
          throw new AppError(
            'INVITATION_INVALID',
            `This invitation is for ${invitation.email}; you are signed in as ${as.signedIn.email}.`,
          );
        }
        person = as.signedIn;
      } else {
        // A mailed invitation proves the address: the link could only be read there.
        person = await createPerson(db, {
          name: as.account.name,
          email: invitation.email,
          passwordHash: newHash,
          emailVerified: this.#people.mail,
        });
      }
      if ((await findMember(db, invitation.workspaceId, person.id)) !== undefined) throw new AppError('ALREADY_MEMBER');
      const key = await addMembership(db, person, invitation.workspaceId, invitation.role);
      await markAccepted(db, invitation.id, person.id);
      await rememberWorkspace(db, person.id, invitation.workspaceId);
      await recordAudit(
        db,
        { personId: person.id, keyId: key.id, name: person.name, address },
        {
          workspaceId: invitation.workspaceId,
          action: 'member.join',
          targetType: 'person',
          targetId: person.id,
          after: { email: person.email, role: invitation.role, invitation: invitation.id },
        },
      );
      return { key, person: publicPerson(person) };
    });
  }
}
