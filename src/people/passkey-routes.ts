// Passkeys over the API: the signed-in person registers (options, then the browser's answer), renames
// and removes theirs; anyone signs in with one (options, then the browser's assertion: no email, the
// passkey says who), or uses one as the second step after a password (options with the ticket).
// Where BASE_URL is not a secure origin, every one of them answers 409 PASSKEYS_UNAVAILABLE.
// docs/second-factors.md.

import { SECURITY } from '../api/schemas.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SessionInfo } from '../auth/schemas.ts';
import { parseId } from '../core/ids.ts';
import { clientKey } from '../edge/client-address.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import { addressOf, nameOf, NoBody, open, openPersonSession, pending, personOf, tags } from './route-helpers.ts';
import * as S from './schemas.ts';
import { actingOf, passkeyView, retryAfter, type FactorDeps } from './second-factor-helpers.ts';
import * as F from './second-factor-schemas.ts';

function passkeyId(raw: string): number {
  const id = parseId(raw);
  if (id === undefined) throw new AppError('PASSKEY_NOT_FOUND');
  return id;
}

/** Registering, renaming and removing the signed-in person's passkeys. */
export async function passkeyRoutes(plain: FastifyInstance, deps: FactorDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { factors } = deps;

  app.post(
    '/auth/passkeys/registration',
    {
      config: pending,
      schema: {
        summary: 'Start registering a passkey',
        description: 'The options of navigator.credentials.create(); send its answer to POST /auth/passkeys within five minutes.',
        tags,
        security: SECURITY,
        response: { 200: F.CeremonyOptions, ...errors(401, 403, 409, 503) },
      },
    },
    async function registration(request, reply) {
      const person = await personOf(request, deps.people);
      const options = await factors.passkeys.registrationOptions(person);
      reply.header('cache-control', 'no-store');
      return { options };
    },
  );

  app.post(
    '/auth/passkeys',
    {
      config: pending,
      schema: {
        summary: 'Add a passkey',
        description:
          "The browser's answer to the options of POST /auth/passkeys/registration, and a name for the passkey. This session counts " +
          'it from now on; with your first second factor come ten recovery codes, shown this once.',
        tags,
        security: SECURITY,
        body: F.PasskeyBody,
        response: { 201: F.PasskeyAdded, ...errors(400, 401, 403, 409, 415, 503) },
      },
    },
    async function add(request, reply) {
      const acting = await actingOf(request, deps);
      const name = nameOf(request.body.name);
      const added = await factors.addPasskey(acting, name, request.body.response);
      deps.credentials.forgetSession(acting.sessionToken);
      reply.code(201).header('cache-control', 'no-store');
      return { passkey: passkeyView(added.passkey), recoveryCodes: added.recoveryCodes };
    },
  );

  app.patch(
    '/auth/passkeys/:id',
    {
      config: pending,
      schema: {
        summary: 'Rename a passkey',
        tags,
        security: SECURITY,
        params: S.IdParams,
        body: F.PasskeyRenameBody,
        response: { 200: F.PasskeyView, ...errors(400, 401, 403, 404, 415, 503) },
      },
    },
    async function rename(request) {
      const person = await personOf(request, deps.people);
      const renamed = await factors.renamePasskey(person.id, passkeyId(request.params.id), nameOf(request.body.name));
      return passkeyView(renamed);
    },
  );

  app.delete(
    '/auth/passkeys/:id',
    {
      config: pending,
      schema: {
        summary: 'Remove a passkey',
        description: 'Refused (409 SECOND_FACTOR_LAST) when it is your last second factor and a workspace of yours requires one.',
        tags,
        security: SECURITY,
        params: S.IdParams,
        response: { 204: NoBody, ...errors(401, 403, 404, 409, 503) },
      },
    },
    async function remove(request, reply) {
      const acting = await actingOf(request, deps);
      await factors.removePasskey(acting, passkeyId(request.params.id));
      return reply.code(204).send(null);
    },
  );
}

/** Signing in with a passkey, alone or as the second step after a password. */
export async function passkeySignInRoutes(plain: FastifyInstance, deps: FactorDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { factors } = deps;

  app.post(
    '/auth/passkey/options',
    {
      schema: {
        summary: 'Start a sign-in with a passkey',
        description:
          'The options of navigator.credentials.get(). With `{}`: a sign-in with the passkey alone, any of this ' +
          "service's; answer with POST /auth/passkey/sign-in. With the ticket of a password sign-in: the person's passkeys, for " +
          'POST /auth/sign-in/second-factor. Either within five minutes, once.',
        tags,
        body: F.PasskeySignInOptionsBody,
        response: { 200: F.CeremonyOptions, ...errors(400, 401, 409, 415, 503) },
      },
      config: open,
    },
    async function options(request, reply) {
      factors.passkeys.assertAvailable();
      const { ticket } = request.body;
      const personId = ticket === undefined ? null : (await factors.ticket(ticket)).personId;
      reply.header('cache-control', 'no-store');
      return { options: await factors.passkeys.assertionOptions(personId) };
    },
  );

  app.post(
    '/auth/passkey/sign-in',
    {
      schema: {
        summary: 'Sign in with a passkey',
        description:
          "The browser's answer to the options of POST /auth/passkey/options (without a ticket). Sets the session cookie; the " +
          'session counts as signed in with a second factor. The passkey must have verified you (PIN, biometrics). Failures are ' +
          'limited per client address (429 SIGN_IN_RATE_LIMITED).',
        tags,
        body: F.PasskeySignInBody,
        response: { 200: SessionInfo, ...errors(400, 401, 403, 404, 409, 415, 429, 503) },
      },
      config: open,
    },
    async function signIn(request, reply) {
      const { response } = request.body;
      const made = await retryAfter(reply, () => factors.passkeySignIn(response, clientKey(request.ip), addressOf(request)));
      return openPersonSession(request, reply, deps, made, ['passkey']);
    },
  );
}
