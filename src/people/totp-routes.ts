// The signed-in person's authenticator app over the API: set it up (a secret, its otpauth:// URI
// and QR code), confirm it with a code, switch it off with a code or the password. Each answers
// while the session lacks a factor its workspace requires (`pending`). docs/second-factors.md.

import { SECURITY } from '../api/schemas.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses as errors } from '../errors.ts';
import { NoBody, pending, tags } from './route-helpers.ts';
import { actingOf, retryAfter, type FactorDeps } from './second-factor-helpers.ts';
import * as F from './second-factor-schemas.ts';

export async function totpRoutes(plain: FastifyInstance, deps: FactorDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { totp } = deps.factors;

  app.post(
    '/auth/totp',
    {
      config: pending,
      schema: {
        summary: 'Start setting up an authenticator app',
        description:
          'A new secret, its otpauth:// URI and the URI as a QR code: scan it, then confirm with a code (POST /auth/totp/confirm). ' +
          'An app set up before keeps working until the new one is confirmed.',
        tags,
        security: SECURITY,
        response: { 201: F.TotpEnrolment, ...errors(401, 403, 503) },
      },
    },
    async function start(request, reply) {
      const started = await totp.start(await actingOf(request, deps));
      reply.code(201).header('cache-control', 'no-store');
      return started;
    },
  );

  app.post(
    '/auth/totp/confirm',
    {
      config: pending,
      schema: {
        summary: 'Confirm the authenticator app with a code',
        description:
          'The app is a second factor from now on, and this session counts it. With your first second factor come ten recovery ' +
          'codes, shown this once.',
        tags,
        security: SECURITY,
        body: F.CodeBody,
        response: { 200: F.TotpEnabled, ...errors(400, 401, 403, 409, 415, 429, 503) },
      },
    },
    async function confirm(request, reply) {
      const acting = await actingOf(request, deps);
      const { recoveryCodes } = await retryAfter(reply, () => totp.confirm(acting, request.body.code));
      deps.credentials.forgetSession(acting.sessionToken);
      reply.header('cache-control', 'no-store');
      return { enabled: true as const, recoveryCodes };
    },
  );

  app.post(
    '/auth/totp/disable',
    {
      config: pending,
      schema: {
        summary: 'Switch the authenticator app off',
        description:
          'With a code of the app or your password. Refused (409 SECOND_FACTOR_LAST) when it is your last second factor and a ' +
          'workspace of yours requires one.',
        tags,
        security: SECURITY,
        body: F.TotpDisableBody,
        response: { 204: NoBody, ...errors(400, 401, 403, 409, 415, 429, 503) },
      },
    },
    async function disable(request, reply) {
      const acting = await actingOf(request, deps);
      await retryAfter(reply, () => totp.disable(acting, request.body));
      return reply.code(204).send(null);
    },
  );
}
