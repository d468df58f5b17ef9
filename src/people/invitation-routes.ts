// Invitations: admins invite by email (mailed when SMTP_URL is set, else a link to pass on), list
// and withdraw them; the holder of a link sees what it is for and accepts it once, as a new person
// or as the signed-in person it was sent to. docs/people.md.

import { SECURITY } from '../api/schemas.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SessionInfo } from '../auth/schemas.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import { joinableWorkspaces } from './people-store.ts';
import * as S from './schemas.ts';
import {
  addressOf,
  emailOf,
  nameOf,
  NoBody,
  open,
  movedSession,
  openPersonSession,
  personOf,
  requestActor,
  tags,
  type AccountDeps,
  pending,
} from './route-helpers.ts';
import { recordAudit } from '../audit/audit.ts';
import { requireAdmin } from '../auth/authenticate.ts';
import { parseId } from '../core/ids.ts';
import { openInvitations, revokeInvitation, type Invitation } from './invitations.ts';
import type { InvitationService } from './invitation-service.ts';

export interface InvitationDeps extends AccountDeps {
  readonly invitations: InvitationService;
}

const invitationView = (invitation: Invitation) => ({
  id: invitation.id,
  email: invitation.email,
  role: invitation.role,
  invitedBy: invitation.invitedBy,
  createdAt: invitation.createdAt.toISOString(),
  expiresAt: invitation.expiresAt.toISOString(),
});

/** What an invitation is for, and accepting it. */
export async function acceptRoutes(plain: FastifyInstance, deps: InvitationDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people } = deps;

  app.get(
    '/auth/invitations/:token',
    {
      schema: {
        summary: 'What an invitation is for',
        tags,
        params: S.TokenParams,
        response: { 200: S.InvitationPreview, ...errors(404, 503) },
      },
      config: open,
    },
    async function preview(request, reply) {
      const { invitation, account } = await deps.invitations.invitation(request.params.token);
      reply.header('cache-control', 'no-store');
      return {
        workspace: { name: invitation.workspaceName },
        email: invitation.email,
        role: invitation.role,
        invitedBy: invitation.invitedBy === null ? null : { name: invitation.invitedBy.name },
        expiresAt: invitation.expiresAt.toISOString(),
        account,
      };
    },
  );

  app.post(
    '/auth/invitations/:token/accept',
    {
      schema: {
        summary: 'Accept an invitation',
        description:
          'With {name, password}: a new account for the invited address, signed in. Signed in as the invited person: {} joins ' +
          'and switches to the workspace. The link is single-use.',
        tags,
        params: S.TokenParams,
        body: S.AcceptBody,
        response: { 200: SessionInfo, 201: SessionInfo, ...errors(400, 401, 403, 404, 409, 415, 503) },
      },
    },
    async function accept(request, reply) {
      const { token } = request.params;
      const { name, password } = request.body;
      const { session } = request;
      if (session !== null && session.personId !== null) {
        const person = await personOf(request, people);
        const made = await deps.invitations.accept(token, { signedIn: person }, addressOf(request));
        return movedSession(request, deps, person.id, made.key.id);
      }
      const { account } = await deps.invitations.invitation(token);
      if (account || name === undefined || password === undefined) {
        if (account) throw new AppError('NOT_SIGNED_IN', 'A person with this email address exists: sign in, then accept.');
        throw new AppError('BODY_INVALID', 'A new account needs name and password.', { field: name === undefined ? 'name' : 'password' });
      }
      const made = await deps.invitations.accept(token, { account: { name: nameOf(name), password } }, addressOf(request));
      reply.code(201);
      return openPersonSession(request, reply, deps, made, ['password']);
    },
  );
}

/** A workspace's invitations (admins). */
export async function invitationRoutes(plain: FastifyInstance, deps: InvitationDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people } = deps;

  app.get(
    '/invitations',
    {
      schema: {
        summary: "The workspace's open invitations",
        tags,
        security: SECURITY,
        response: { 200: S.InvitationList, ...errors(401, 403, 503) },
      },
    },
    async function list(request) {
      const admin = requireAdmin(request, 'members');
      const invitations = await people.read((db) => openInvitations(db, admin.workspaceId));
      return { invitations: invitations.map(invitationView) };
    },
  );

  app.post(
    '/invitations',
    {
      schema: {
        summary: 'Invite someone by email',
        description:
          'Mailed when SMTP_URL is set; otherwise the answer holds the link (`url`) to pass on. The link is single-use and expires in 7 days.',
        tags,
        security: SECURITY,
        body: S.InviteBody,
        response: { 201: S.CreatedInvitation, ...errors(400, 401, 403, 409, 415, 503) },
      },
    },
    async function invite(request, reply) {
      const admin = requireAdmin(request, 'members');
      const email = emailOf(request.body.email);
      const { invitation, url } = await deps.invitations.invite(admin, requestActor(request), email, request.body.role);
      reply.code(201).header('cache-control', 'no-store');
      return { ...invitationView(invitation), sent: url === null, ...(url === null ? {} : { url }) };
    },
  );

  app.delete(
    '/invitations/:id',
    {
      schema: {
        summary: 'Withdraw an invitation',
        tags,
        security: SECURITY,
        params: S.IdParams,
        response: { 204: NoBody, ...errors(401, 403, 404, 503) },
      },
    },
    async function withdraw(request, reply) {
      const admin = requireAdmin(request, 'members');
      const id = parseId(request.params.id);
      if (id === undefined) throw new AppError('INVITATION_NOT_FOUND');
      await people.tx(async (db) => {
        const revoked = await revokeInvitation(db, admin.workspaceId, id);
        if (revoked === undefined) throw new AppError('INVITATION_NOT_FOUND');
        await recordAudit(db, requestActor(request), {
          workspaceId: admin.workspaceId,
          action: 'member.invite-revoke',
          targetType: 'invitation',
          targetId: id,
          before: { email: revoked.email, role: revoked.role },
        });
      });
      return reply.code(204).send(null);
    },
  );
}

/** Joining, on one's own, a workspace that takes people of one's verified email domain. */
export async function joinRoutes(plain: FastifyInstance, deps: InvitationDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people } = deps;

  app.get(
    '/auth/joinable',
    {
      schema: {
        summary: 'Workspaces you may join on your own',
        description: "Those whose join domain is your verified email address's domain, and of which you are not a member.",
        tags,
        security: SECURITY,
        response: { 200: S.JoinableList, ...errors(401, 403, 503) },
      },
      config: pending,
    },
    async function joinable(request) {
      const person = await personOf(request, people);
      return { workspaces: await people.read((db) => joinableWorkspaces(db, person.id)) };
    },
  );

  app.post(
    '/auth/joinable/:id/join',
    {
      schema: {
        summary: 'Join a workspace of your email domain, as a member',
        description: 'The session switches to it.',
        tags,
        security: SECURITY,
        params: S.IdParams,
        response: { 200: SessionInfo, ...errors(401, 403, 404, 503) },
      },
      config: pending,
    },
    async function join(request) {
      const person = await personOf(request, people);
      const workspaceId = parseId(request.params.id);
      if (workspaceId === undefined) throw new AppError('WORKSPACE_NOT_FOUND');
      const [key] = await people.joinByDomain(person, addressOf(request), workspaceId);
      if (key === undefined) throw new AppError('SESSION_EXPIRED');
      return movedSession(request, deps, person.id, key.id);
    },
  );
}
