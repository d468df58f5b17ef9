// Whether a workspace's admin may turn on "require single sign-on" (PATCH /workspace requireSso):
// only with single sign-on set up, and only from a session that signed in with it; anything else
// (a password session, an API key) would lock its own sessions out the moment it saved. docs/sso.md.

import type { FastifyRequest } from 'fastify';

/** Whether the request's session signed in by single sign-on. */
export function signedInBySso(request: FastifyRequest): boolean {
  return request.session?.methods.includes('sso') ?? false;
}

/** Why the request may not turn requireSso on, or undefined when it may. */
export function requireSsoProblem(request: FastifyRequest, ssoConfigured: boolean): 'SSO_NOT_CONFIGURED' | 'SSO_SIGN_IN_FIRST' | undefined {
  if (!ssoConfigured) return 'SSO_NOT_CONFIGURED';
  return signedInBySso(request) ? undefined : 'SSO_SIGN_IN_FIRST';
}
