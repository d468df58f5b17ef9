// A person's own account: password resets and email verification by mailed link, their name,
// email and password, and their sessions, listed and closed by them. The routes of a signed-in
// person act for the person of the session cookie, with its CSRF token (auth/authenticate.ts). docs/people.md.

import { SECURITY } from '../api/schemas.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../audit/audit.ts';
import { hashSecret } from '../auth/api-keys.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import { setName } from './people-store.ts';
import * as S from './schemas.ts';
import { pending, addressOf, Empty, emailOf, nameOf, NoBody, open, personOf, tags, type AccountDeps } from './route-helpers.ts';

/** Password resets and email verification (links in mails). */
export async function recoveryRoutes(plain: FastifyInstance, deps: AccountDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people } = deps;

  app.post(
    '/auth/password-reset',
    {
      schema: {
        summary: 'Mail a password reset link',
        description:
          'Answers 202 whether or not the address has an account. Without SMTP_URL: 409 MAIL_NOT_CONFIGURED (an admin makes the link).',
        tags,
        body: S.ResetRequestBody,
        response: { 202: Empty, ...errors(400, 409, 415, 429, 503) },
      },
      config: open,
    },
    async function requestReset(request, reply) {
      await people.requestReset(emailOf(request.body.email));
      return reply.code(202).send({});
    },
  );

  app.post(
    '/auth/password-reset/confirm',
    {
      schema: {
        summary: 'Set a new password with a reset link',
        tags,
        body: S.ResetBody,
        response: { 204: NoBody, ...errors(400, 415, 503) },
      },
      config: open,
    },
    async function reset(request, reply) {
      const closed = await people.reset(request.body.token, request.body.password, addressOf(request));
      deps.credentials.forgetSessionHashes(closed);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/email/verify',
    {
      schema: {
        summary: 'Verify an email address with its link',
        tags,
        body: S.TokenBody,
        response: { 204: NoBody, ...errors(400, 415, 503) },
      },
      config: open,
    },
    async function verify(request, reply) {
      await people.verifyEmail(request.body.token);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/email/verification',
    {
      schema: {
        summary: 'Mail the verification link again',
        tags,
        security: SECURITY,
        response: { 202: Empty, ...errors(401, 403, 409, 503) },
      },
      config: pending,
    },
    async function resend(request, reply) {
      await people.sendVerification(await personOf(request, people));
      return reply.code(202).send({});
    },
  );
}

/** The person's name, email, password and sessions. */
export async function profileRoutes(plain: FastifyInstance, deps: AccountDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people } = deps;

  app.patch(
    '/auth/profile',
    {
      config: pending,
      schema: {
        summary: 'Change your name',
        tags,
        security: SECURITY,
        body: S.ProfileBody,
        response: { 200: S.PersonView, ...errors(400, 401, 403, 415, 503) },
      },
    },
    async function rename(request) {
      const person = await personOf(request, people);
      const name = nameOf(request.body.name);
      await people.tx((db) => setName(db, person.id, name));
      return { ...person, name };
    },
  );

  app.put(
    '/auth/password',
    {
      config: pending,
      schema: {
        summary: 'Change your password',
        description: 'Your other sessions are closed.',
        tags,
        security: SECURITY,
        body: S.PasswordChangeBody,
        response: { 204: NoBody, ...errors(400, 401, 403, 415, 503) },
      },
    },
    async function changePassword(request, reply) {
      const person = await personOf(request, people);
      const session = request.session as NonNullable<FastifyRequest['session']>;
      const closed = await people.changePassword(
        person,
        request.body.currentPassword,
        request.body.newPassword,
        hashSecret(session.token),
        actorOf(request.apiKey, request.ip),
        session.key.workspaceId,
      );
      deps.credentials.forgetSessionHashes(closed);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/auth/email',
    {
      config: pending,
      schema: {
        summary: 'Change your email address',
        description: 'Needs your password; the new address is unverified until its link (mailed when SMTP_URL is set) is followed.',
        tags,
        security: SECURITY,
        body: S.EmailChangeBody,
        response: { 200: S.PersonView, ...errors(400, 401, 403, 409, 415, 503) },
      },
    },
    async function changeEmail(request) {
      const person = await personOf(request, people);
      const workspaceId = request.session?.key.workspaceId ?? 0;
      return people.changeEmail(
        person,
        emailOf(request.body.email),
        request.body.password,
        actorOf(request.apiKey, request.ip),
        workspaceId,
      );
    },
  );
}

/** A person's sessions, listed and closed by them. */
export async function sessionListRoutes(plain: FastifyInstance, deps: AccountDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people, store } = deps;

  app.get(
    '/auth/sessions',
    {
      schema: { summary: 'Your open sessions', tags, security: SECURITY, response: { 200: S.SessionList, ...errors(401, 403, 503) } },
      config: pending,
    },
    async function listSessions(request, reply) {
      const person = await personOf(request, people);
      const current = request.session?.publicId ?? null;
      reply.header('cache-control', 'no-store');
      const sessions = await store.personSessions(person.id);
      return {
        sessions: sessions.map((session) => ({
          id: session.id,
          createdAt: session.createdAt.toISOString(),
          lastSeenAt: session.lastSeenAt.toISOString(),
          expiresAt: session.expiresAt.toISOString(),
          address: session.address,
          userAgent: session.userAgent,
          current: session.id === current,
        })),
      };
    },
  );

  app.delete(
    '/auth/sessions/:id',
    {
      config: pending,
      schema: {
        summary: 'Close one of your sessions',
        tags,
        security: SECURITY,
        params: S.IdParams,
        response: { 204: NoBody, ...errors(401, 403, 404, 503) },
      },
    },
    async function closeOne(request, reply) {
      const person = await personOf(request, people);
      const closed = await store.closePersonSessions(person.id, { publicId: request.params.id });
      if (closed.length === 0) throw new AppError('SESSION_NOT_FOUND');
      deps.credentials.forgetSessionHashes(closed);
      return reply.code(204).send(null);
    },
  );
}
