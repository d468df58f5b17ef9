// A person's second factors over the API: what they have, new recovery codes, and the second step of
// a sign-in (after POST /auth/sign-in answered `secondFactor`). The routes of the signed-in person
// answer while their session lacks a factor its workspace requires (`pending`): that is where the
// factor is added. Passkeys: passkey-routes.ts; the authenticator app: totp-routes.ts.
// docs/second-factors.md.

import { SECURITY } from '../api/schemas.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SessionInfo } from '../auth/schemas.ts';
import { clientKey } from '../edge/client-address.ts';
import { errorResponses as errors } from '../errors.ts';
import { passkeyRoutes, passkeySignInRoutes } from './passkey-routes.ts';
import { addressOf, open, openPersonSession, pending, personOf, tags } from './route-helpers.ts';
import { actingOf, passkeyView, retryAfter, type FactorDeps } from './second-factor-helpers.ts';
import * as F from './second-factor-schemas.ts';
import type { SecondProof } from './second-factor-service.ts';
import { totpRoutes } from './totp-routes.ts';

/** Every route of second factors: these, passkeys' and the authenticator app's. */
export async function secondFactorParts(app: FastifyInstance, deps: FactorDeps): Promise<void> {
  await app.register(secondFactorRoutes, deps);
  await app.register(passkeyRoutes, deps);
  await app.register(passkeySignInRoutes, deps);
  await app.register(totpRoutes, deps);
}

/** The proof of a second step, from its body. */
function proofOf(body: F.SecondStepBody): SecondProof {
  if ('code' in body) return { code: body.code };
  if ('recoveryCode' in body) return { recoveryCode: body.recoveryCode };
  return { passkey: body.passkey };
}

export async function secondFactorRoutes(plain: FastifyInstance, deps: FactorDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { factors } = deps;

  app.get(
    '/auth/second-factors',
    {
      config: pending,
      schema: {
        summary: 'Your passkeys, authenticator app and recovery codes',
        tags,
        security: SECURITY,
        response: { 200: F.SecondFactors, ...errors(401, 403, 503) },
      },
    },
    async function summary(request, reply) {
      const person = await personOf(request, deps.people);
      const found = await factors.summary(person.id);
      reply.header('cache-control', 'no-store');
      return { ...found, passkeys: found.passkeys.map(passkeyView) };
    },
  );

  app.post(
    '/auth/recovery-codes',
    {
      config: pending,
      schema: {
        summary: 'Make new recovery codes',
        description: 'Ten codes, each good once, shown this once; the old ones stop working. Needs a passkey or an authenticator app.',
        tags,
        security: SECURITY,
        response: { 201: F.RecoveryCodes, ...errors(401, 403, 409, 503) },
      },
    },
    async function makeCodes(request, reply) {
      const codes = await factors.recoveryCodes(await actingOf(request, deps));
      reply.code(201).header('cache-control', 'no-store');
      return { codes };
    },
  );

  app.post(
    '/auth/sign-in/second-factor',
    {
      schema: {
        summary: 'The second step of a sign-in',
        description:
          'After POST /auth/sign-in answered `secondFactor`: its ticket with a code of the authenticator app, a recovery code, or a ' +
          'passkey (options from POST /auth/passkey/options with the ticket). Sets the session cookie. A code works once; wrong ones ' +
          'are limited per client address and per account (429 SECOND_FACTOR_RATE_LIMITED, Retry-After). The ticket is spent by the ' +
          'step that succeeds, and lasts five minutes.',
        tags,
        body: F.SecondStepBody,
        response: { 200: SessionInfo, ...errors(400, 401, 403, 404, 409, 415, 429, 503) },
      },
      config: open,
    },
    async function secondStep(request, reply) {
      const { body } = request;
      const made = await retryAfter(reply, () => factors.secondStep(body.ticket, proofOf(body), clientKey(request.ip), addressOf(request)));
      return openPersonSession(request, reply, deps, made, made.methods);
    },
  );
}
