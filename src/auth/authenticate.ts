// Who a request to the API acts as: `request.apiKey`, from an API key (`Authorization: Bearer` or
// `X-API-Key`) or else the dashboard's session cookie; null for neither. A key or session that is
// present but wrong, revoked or expired is a 401, never anonymous; a change made with the session
// must carry its CSRF token. What a key or session is comes from credentials.ts (remembered a few
// seconds, and a per-client budget of look-ups). On an https BASE_URL only the `__Host-` cookie
// counts: a plain-named one may have been planted by a sibling subdomain or over plain HTTP.
// docs/security.md#api-keys, docs/api.md#authentication.

import { timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientKey } from '../edge/client-address.ts';
import { AppError } from '../errors.ts';
import type { Credentials, Lookup } from './credentials.ts';
import { adminProblem, type Principal } from './roles.ts';
import { SECOND_FACTORS, type Session } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The key the request acts as (its own, or its session's), or null. */
    apiKey: Principal | null;
    /** The session the request came with, when it came with one rather than a key. */
    session: (Session & { token: string }) | null;
  }
  interface FastifyContextConfig {
    /** Signing in: a stale session cookie must not stand in the way (no session is read, no CSRF token asked). */
    signIn?: boolean;
    /** Signing out: a session cookie that is no longer good is no error (request.session stays null); its cookie is cleared. */
    signOut?: boolean;
    /**
     * Open to a person's session that lacks what its workspace requires (single sign-on, a second
     * factor): reading the session, the profile where a factor is added, switching workspace.
     */
    factorsPending?: boolean;
    /** Asking whether one is signed in: a session that is no longer good, or lacks a factor, is no error (request.session says). */
    sessionOptional?: boolean;
    /** Bitly's API: its clients (the `bitly` npm package) send `Authorization: <key>`, without "Bearer". */
    bareAuthorization?: boolean;
    /** The deployment's operators' routes (operators/queue-routes.ts): open to an operator whose own workspace is suspended. */
    operator?: boolean;
  }
}

/** Paths whose routes read keys and sessions. */
const API_PREFIXES = [
  '/links',
  '/keys',
  '/tags',
  '/domains',
  '/stats',
  '/webhooks',
  '/auth/',
  '/members',
  '/invitations',
  '/workspace',
  '/audit',
  '/operator/',
  // The compatible APIs (compat/): Kutt's (its /api/v2/health takes no key, and its client sends an empty one).
  '/api/v2/links',
  '/api/v2/users',
  '/api/v2/domains',
  // Shlink's (its health takes no key).
  '/rest/v3/short-urls',
  '/rest/v3/tags',
  '/rest/v3/domains',
  '/rest/v3/visits',
  // Dub's (on DUB_API_HOSTS): its /links, /domains and /tags are above.
  '/analytics',
  // Bitly's API v4.
  '/v4/',
];
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The cookie's name: `__Host-` makes browsers refuse it unless it is Secure, host-only and for the whole site. */
export const SESSION_COOKIE = 'shortener_session';
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** Whether only the `__Host-` cookie counts (an https BASE_URL). */
export const secureCookiesOnly = (baseUrl: string): boolean => baseUrl.startsWith('https:');

export function registerAuthentication(app: FastifyInstance, credentials: Credentials, baseUrl: string): void {
  const httpsOnly = secureCookiesOnly(baseUrl);
  app.decorateRequest('apiKey', null);
  app.decorateRequest('session', null);

  const keyOf = (secret: string, request: FastifyRequest, reply: FastifyReply): Promise<Principal> =>
    keyOfSecret(credentials, secret, request, reply);

  const sessionOf = async (token: string, request: FastifyRequest, reply: FastifyReply): Promise<Session> => {
    const session = lookedUp(await credentials.session(token, clientKey(request.ip)), reply);
    if (session === false || session.expiresAt.getTime() <= Date.now()) throw new AppError('SESSION_EXPIRED');
    return session;
  };

  app.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url;
    if (url === undefined || !API_PREFIXES.some((prefix) => url.startsWith(prefix))) return;
    const secret = presentedSecret(request);
    const { config } = request.routeOptions;
    if (secret !== undefined) {
      request.apiKey = refuseSuspendedWrites(await keyOf(secret, request, reply), request.method, config);
      return;
    }
    if (config.signIn === true) return;
    const optional = config.signOut === true || config.sessionOptional === true;
    const token = sessionToken(request, httpsOnly);
    if (token === undefined) {
      // A route the OpenAPI document marks as acting for a key: 401 before anything of the request is judged.
      if (keyRequired(request)) throw new AppError('API_KEY_REQUIRED');
      return;
    }
    const session = optional ? await sessionOf(token, request, reply).catch(staleIsNone) : await sessionOf(token, request, reply);
    if (session === null) return;
    if (!SAFE_METHODS.has(request.method) && !sameToken(request.headers['x-csrf-token'], session.csrfToken)) {
      throw new AppError('CSRF_TOKEN_INVALID');
    }
    const pending = pendingRequirement(session);
    if (pending !== undefined && config.factorsPending !== true && !optional) throw new AppError(pending);
    request.apiKey = refuseSuspendedWrites(session.key, request.method, config);
    request.session = { ...session, token };
  });
}

/**
 * `key`, unless its workspace is suspended and the request would write: 403 WORKSPACE_SUSPENDED.
 * Signing out and what a pending session may do (switching to another workspace) stay open.
 */
function refuseSuspendedWrites(key: Principal, method: string, config: FastifyContextConfig): Principal {
  if (key.suspended !== true || SAFE_METHODS.has(method) || config.signOut === true || config.factorsPending === true) return key;
  if (config.operator === true) return key;
  throw new AppError('WORKSPACE_SUSPENDED');
}

/** What a person's session lacks that its workspace requires, or undefined. */
export function pendingRequirement(
  session: Pick<Session, 'personId' | 'methods' | 'requires'>,
): 'SSO_REQUIRED' | 'SECOND_FACTOR_REQUIRED' | undefined {
  if (session.personId === null) return undefined;
  if (session.requires.sso && !session.methods.includes('sso')) return 'SSO_REQUIRED';
  if (session.requires.secondFactor && !session.methods.some((method) => SECOND_FACTORS.includes(method))) return 'SECOND_FACTOR_REQUIRED';
  return undefined;
}

/**
 * The active key whose secret this is, however the request carried it (a header here; a query or
 * form parameter for a compatible API), within its client's look-up budget: 401 API_KEY_INVALID
 * if none, 429 CREDENTIALS_RATE_LIMITED out of budget.
 */
export async function keyOfSecret(
  credentials: Pick<Credentials, 'key'>,
  secret: string,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Principal> {
  const key = lookedUp(await credentials.key(secret, clientKey(request.ip)), reply);
  if (key === false) throw new AppError('API_KEY_INVALID');
  return key;
}

/** What a look-up found; out of budget, a 429 CREDENTIALS_RATE_LIMITED with Retry-After. */
export function lookedUp<T>(lookup: Lookup<T>, reply: FastifyReply): T | false {
  if ('found' in lookup) return lookup.found;
  const seconds = Math.max(1, Math.ceil(lookup.retryAfterMs / 1000));
  reply.header('retry-after', String(seconds));
  throw new AppError(
    'CREDENTIALS_RATE_LIMITED',
    `Too many API keys or session cookies this service did not know came from this address; retry after ${seconds} s.`,
  );
}

/** Signing out with a session that is no longer good: nothing to close, only the cookie to clear. */
function staleIsNone(err: unknown): null {
  if (err instanceof AppError && err.code === 'SESSION_EXPIRED') return null;
  throw err;
}

function keyRequired(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema as { security?: unknown[] } | undefined;
  return (schema?.security?.length ?? 0) > 0;
}

/** The session cookie's token, undefined without one; with `httpsOnly`, only the `__Host-` cookie's. */
function sessionToken(request: FastifyRequest, httpsOnly: boolean): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const cookies = parseCookie(header);
  return httpsOnly ? cookies[SECURE_SESSION_COOKIE] : (cookies[SECURE_SESSION_COOKIE] ?? cookies[SESSION_COOKIE]);
}

function sameToken(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string' || sent.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}

/** The secret a request presents, undefined if none; a header that is present but malformed is refused. */
export function presentedSecret(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  const header = request.headers['x-api-key'];
  // Node keeps the first of several Authorization headers and drops the rest: which key was meant?
  if (authorization !== undefined && headerCount(request.raw.rawHeaders, 'authorization') > 1) {
    throw new AppError('API_KEY_INVALID', 'Send one Authorization header.');
  }
  if (authorization !== undefined) {
    const match = (request.routeOptions.config.bareAuthorization === true ? /^(?:Bearer\s+)?(\S+)$/i : /^Bearer\s+(\S+)$/i).exec(
      authorization,
    );
    if (match === null) throw new AppError('API_KEY_INVALID', 'Authorization must be "Bearer <API key>".');
    return match[1];
  }
  if (typeof header === 'string') return header.trim();
  if (header !== undefined) throw new AppError('API_KEY_INVALID', 'Send one X-API-Key header.');
  return undefined;
}

function headerCount(raw: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === name) count++;
  return count;
}

/** The request's key; 401 API_KEY_REQUIRED without one. */
export function requireKey(request: FastifyRequest): Principal {
  if (request.apiKey === null) throw new AppError('API_KEY_REQUIRED');
  return request.apiKey;
}

/** The request's key if it is an admin's: 401 without one, 403 ROLE_FORBIDDEN for another role, saying who manages `what`. */
export function requireAdmin(request: FastifyRequest, what: string): Principal {
  const key = requireKey(request);
  const problem = adminProblem(key);
  if (problem !== undefined) throw new AppError(problem, `Only an admin of the workspace manages its ${what}.`);
  return key;
}
