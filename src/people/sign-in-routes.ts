// Signing in as a person: what the sign-in page may offer, the first-run setup of the first admin
// (open from loopback, or with the one-time setup token logged at start), email and password, and
// switching the session to another of the person's workspaces. docs/people.md.

import { SECURITY } from '../api/schemas.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { SessionInfo } from '../auth/schemas.ts';
import { clientKey } from '../edge/client-address.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import * as S from './schemas.ts';
import { SecondFactorStep } from './second-factor-schemas.ts';
import { SignInLimited } from './service.ts';
import {
  addressOf,
  emailOf,
  fromLoopback,
  nameOf,
  open,
  movedSession,
  openPersonSession,
  pending,
  personOf,
  sameSecret,
  tags,
  type AccountDeps,
} from './route-helpers.ts';

/** `ssoName`: what the sign-in page calls single sign-on (OIDC_NAME), null when it is not set up (sso-routes.ts). */
export interface SignInDeps extends AccountDeps {
  readonly ssoName: string | null;
  /** Whether browsers may use passkeys here (config/webauthn-settings.ts passkeysAvailable). */
  readonly passkeys: boolean;
}

/** Setup, sign-in with a password, and switching workspace. */
export async function signInRoutes(plain: FastifyInstance, deps: SignInDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { people } = deps;

  app.get(
    '/auth/options',
    {
      schema: {
        summary: 'What the sign-in page may offer, and whether the request is signed in',
        tags,
        response: { 200: S.AuthOptions, ...errors(503) },
      },
      config: { sessionOptional: true },
    },
    async (request) => ({
      signedIn: request.session !== null,
      setupNeeded: await people.setupNeeded(),
      mail: people.mail,
      sso: deps.ssoName !== null,
      ...(deps.ssoName === null ? {} : { ssoName: deps.ssoName }),
      passkeys: deps.passkeys,
    }),
  );

  app.get(
    '/auth/setup',
    {
      schema: { summary: 'Whether the first admin is still to be set up', tags, response: { 200: S.SetupState, ...errors(503) } },
      config: open,
    },
    async (request) => ({ needed: await people.setupNeeded(), tokenRequired: !fromLoopback(request), mail: people.mail }),
  );

  app.post(
    '/auth/setup',
    {
      schema: {
        summary: 'Set up the first admin (a fresh install)',
        description:
          'Open while no person exists, from loopback or with the one-time setup token the server logged at start. The person ' +
          'becomes an admin of every workspace and is signed in.',
        tags,
        body: S.SetupBody,
        response: { 201: SessionInfo, ...errors(400, 403, 409, 415, 503) },
      },
      config: open,
    },
    async function setUp(request, reply) {
      const { body } = request;
      const token = await people.setupToken();
      if (token === null) throw new AppError('SETUP_DONE');
      if (!fromLoopback(request) && !sameSecret(body.token, token)) throw new AppError('SETUP_TOKEN_INVALID');
      const made = await people.setUp({ name: nameOf(body.name), email: emailOf(body.email), password: body.password }, addressOf(request));
      request.log.info({ person: made.person.id }, 'first admin set up');
      reply.code(201);
      return openPersonSession(request, reply, deps, made, ['password']);
    },
  );

  app.post(
    '/auth/sign-in',
    {
      schema: {
        summary: 'Sign in with email and password',
        description:
          'Sets the session cookie, as POST /auth/session does. Wrong passwords are limited per client address ' +
          '(SIGN_IN_MAX_FAILURES) and per account (SIGN_IN_ACCOUNT_MAX_FAILURES); the answer never says whether the address has an account. ' +
          'A person with a passkey or an authenticator app gets no session yet but `secondFactor`: its ticket goes to ' +
          'POST /auth/sign-in/second-factor (docs/second-factors.md).',
        tags,
        body: S.PasswordSignInBody,
        response: { 200: Type.Union([SessionInfo, SecondFactorStep]), ...errors(400, 401, 403, 404, 415, 429, 503) },
      },
      config: open,
    },
    async function signInWithPassword(request, reply) {
      try {
        const made = await people.signIn(request.body.email, request.body.password, clientKey(request.ip), addressOf(request));
        if ('secondFactor' in made) {
          reply.header('cache-control', 'no-store');
          return made;
        }
        return await openPersonSession(request, reply, deps, made, ['password']);
      } catch (err) {
        if (err instanceof SignInLimited) reply.header('retry-after', String(err.retryAfterSeconds));
        throw err;
      }
    },
  );

  app.post(
    '/auth/session/workspace',
    {
      config: pending,
      schema: {
        summary: 'Switch the session to another of your workspaces',
        tags,
        security: SECURITY,
        body: S.SwitchBody,
        response: { 200: SessionInfo, ...errors(401, 403, 404, 503) },
      },
    },
    async function switchWorkspace(request) {
      const person = await personOf(request, people);
      const key = await people.workspaceKey(person.id, request.body.workspaceId);
      return movedSession(request, deps, person.id, key.id);
    },
  );
}
