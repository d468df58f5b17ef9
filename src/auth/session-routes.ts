// POST /auth/session signs in with an API key and sets the session cookie; GET /auth/session says
// who the session acts as (and its CSRF token); DELETE /auth/session signs out, and clears the
// cookie even when its session is no longer good. Sign-ins are reserved per client address
// (SIGN_IN_MAX_FAILURES per SIGN_IN_WINDOW_SECONDS, in Redis when the tier is on) BEFORE the key is
// checked, so that a concurrent burst checks no more keys than the limit, and a right key gives its
// reservation back: past the limit, every sign-in from there is a 429 until the window ends, and
// guessing keys from one address is hopeless even before the 2^256 of the key itself.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lookedUp, pendingRequirement, SECURE_SESSION_COOKIE, secureCookiesOnly, SESSION_COOKIE } from './authenticate.ts';
import type { Credentials } from './credentials.ts';
import type { Session, SessionPerson } from './sessions.ts';
import type { AuthStore } from './store.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import { clientKey } from '../edge/client-address.ts';
import type { AttemptBudget } from '../api/attempt-budget.ts';
import { SessionInfo, SignInBody } from './schemas.ts';

export interface SessionDeps {
  store: Pick<AuthStore, 'openSession' | 'closeSession' | 'sessionPerson'>;
  credentials: Pick<Credentials, 'key' | 'forgetSession' | 'forgetSessionHashes'>;
  /** Sign-ins per client: SIGN_IN_MAX_FAILURES per SIGN_IN_WINDOW_SECONDS, reserved before the key is checked. */
  attempts: AttemptBudget;
  maxFailures: number;
  windowMs: number;
  ttlMs: number;
  /** Open sessions a key may have; one more closes its oldest. */
  sessionsPerKeyMax: number;
  /** Cookies are Secure (and named __Host-…) when BASE_URL is https, or the request came over HTTPS. */
  baseUrl: string;
}

/** The body of a session answer: who it acts as, its CSRF token, and its person (with their workspaces) if it has one. */
export function sessionInfo(session: Pick<Session, 'key' | 'workspaceName' | 'csrfToken' | 'expiresAt'> | Session, person?: SessionPerson) {
  const { key } = session;
  return {
    workspace: { id: key.workspaceId, name: session.workspaceName },
    key: { id: key.id, name: key.name, role: key.role },
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt.toISOString(),
    person: person?.person ?? null,
    workspaces: person?.workspaces ?? [],
    pending: 'methods' in session ? (pendingRequirement(session) ?? null) : null,
  };
}

const SIGN_IN = {
  summary: 'Sign in to the dashboard with an API key',
  description:
    'Sets an HttpOnly, SameSite=Strict session cookie (Secure behind HTTPS) that acts as the key until SESSION_TTL_HOURS ' +
    'pass, the session is closed, or the key is revoked. Send the csrfToken of the answer as X-CSRF-Token with every ' +
    'change made with the cookie. Sign-ins are limited per client address (SIGN_IN_MAX_FAILURES), and a key has at most ' +
    'SESSIONS_PER_KEY_MAX sessions: signing in once more closes its oldest.',
  tags: ['session'],
  body: SignInBody,
  response: { 200: SessionInfo, ...errors(400, 401, 415, 429, 503) },
};

const READ_SESSION = {
  summary: 'Who the session cookie acts as, and its CSRF token',
  tags: ['session'],
  response: { 200: SessionInfo, ...errors(401, 503) },
};

const SIGN_OUT = {
  summary: 'Sign out: the session ends, on every instance within 10 s',
  description: 'Needs X-CSRF-Token. Without a session, or with one that has expired or was closed, it only clears the cookie.',
  tags: ['session'],
  response: { 204: { type: 'null', description: 'Signed out.' }, ...errors(401, 403, 503) },
};

export async function sessionRoutes(plain: FastifyInstance, deps: SessionDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = deps;
  const secure = (request: FastifyRequest) => secureCookiesOnly(deps.baseUrl) || request.protocol === 'https';
  const windowSeconds = Math.round(deps.windowMs / 1000);

  const limited = (reply: FastifyReply, seconds: number): never => {
    reply.header('retry-after', String(seconds));
    throw new AppError(
      'SIGN_IN_RATE_LIMITED',
      `${deps.maxFailures} sign-ins from this address in ${windowSeconds} s; retry after ${seconds} s.`,
    );
  };

  app.post(
    '/auth/session',
    {
      schema: SIGN_IN,
      config: { signIn: true },
    },
    async function signIn(request, reply) {
      const client = clientKey(request.ip);
      // Take, then check: each sign-in is reserved before its key is checked, so that N at once check at most the
      // limit's worth; a right key gives its reservation back, so only failures use the budget up.
      const reserved = await deps.attempts.take(client);
      if (!reserved.ok) limited(reply, reserved.retryAfterSeconds);
      const key = lookedUp(await deps.credentials.key(request.body.key.trim(), client), reply);
      if (key === false) throw new AppError('API_KEY_INVALID');
      await deps.attempts.giveBack(client);
      const opened = await store.openSession(key, deps.ttlMs, deps.sessionsPerKeyMax);
      deps.credentials.forgetSessionHashes(opened.closed);
      setSessionCookie(reply, secure(request), opened.token, deps.ttlMs);
      reply.header('cache-control', 'no-store');
      return sessionInfo({ key, ...opened });
    },
  );

  app.get(
    '/auth/session',
    {
      schema: READ_SESSION,
      config: { factorsPending: true },
    },
    async function readSession(request, reply) {
      const { session } = request;
      if (session === null) throw new AppError('NOT_SIGNED_IN');
      const person = session.personId === null ? undefined : await store.sessionPerson(session.personId);
      reply.header('cache-control', 'no-store');
      return sessionInfo(session, person);
    },
  );

  app.delete(
    '/auth/session',
    {
      schema: SIGN_OUT,
      config: { signOut: true },
    },
    async function signOut(request, reply) {
      const { session } = request;
      if (session !== null) {
        await store.closeSession(session.token);
        deps.credentials.forgetSession(session.token);
      }
      setSessionCookie(reply, secure(request), '', 0);
      return reply.code(204).send(null);
    },
  );
}

/** Sets the session cookie (an empty token clears it, under both names). */
export function setSessionCookie(reply: FastifyReply, secure: boolean, token: string, ttlMs: number): void {
  const options = { httpOnly: true, sameSite: 'strict', path: '/', maxAge: Math.floor(ttlMs / 1000) } as const;
  const cookies = [stringifySetCookie({ name: secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, value: token, ...options, secure })];
  // Signing out clears whichever of the two names the browser holds.
  if (token === '')
    cookies.push(stringifySetCookie({ name: secure ? SESSION_COOKIE : SECURE_SESSION_COOKIE, value: '', ...options, secure: true }));
  reply.header('set-cookie', cookies);
}
