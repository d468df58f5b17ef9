// Whether a workspace's admin may turn on "require a second factor" (PATCH /workspace
// requireSecondFactor): a person's session only if it signed in with one (or added one since),
// else it would be locked out the moment it saved. A key's session is held to no requirement.
// docs/second-factors.md.

import type { FastifyRequest } from 'fastify';
import { SECOND_FACTORS } from '../auth/sessions.ts';

/** Why the request may not turn requireSecondFactor on, or undefined when it may. */
export function requireSecondFactorProblem(request: FastifyRequest): 'SECOND_FACTOR_FIRST' | undefined {
  const session = request.session;
  if (session === null || session.personId === null) return undefined;
  return session.methods.some((method) => SECOND_FACTORS.includes(method)) ? undefined : 'SECOND_FACTOR_FIRST';
}
