// What the second-factor routes share (second-factor-routes.ts, passkey-routes.ts, totp-routes.ts):
// their dependencies, the signed-in person acting on their own factors, Retry-After on a 429, and a
// passkey as the API shows it.

import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientKey } from '../edge/client-address.ts';
import type { Passkey } from './passkey-store.ts';
import { personOf, requestActor, type AccountDeps } from './route-helpers.ts';
import { SecondFactorLimited } from './second-factor-attempts.ts';
import type { Acting } from './second-factor-changes.ts';
import type { SecondFactorService } from './second-factor-service.ts';
import { SignInLimited } from './service.ts';

export interface FactorDeps extends AccountDeps {
  readonly factors: SecondFactorService;
}

/** The signed-in person acting on their own factors (401 without a session, 403 PERSON_REQUIRED with a key's). */
export async function actingOf(request: FastifyRequest, deps: FactorDeps): Promise<Acting> {
  const person = await personOf(request, deps.people);
  const session = request.session as NonNullable<FastifyRequest['session']>;
  return {
    person,
    actor: requestActor(request),
    workspaceId: session.key.workspaceId,
    sessionToken: session.token,
    client: clientKey(request.ip),
  };
}

/** `work`'s answer; a 429 of it says when to retry (Retry-After). */
export async function retryAfter<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof SecondFactorLimited || err instanceof SignInLimited) reply.header('retry-after', String(err.retryAfterSeconds));
    throw err;
  }
}

export const passkeyView = (passkey: Passkey) => ({
  id: passkey.id,
  name: passkey.name,
  createdAt: passkey.createdAt.toISOString(),
  lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
  backedUp: passkey.backedUp,
});
