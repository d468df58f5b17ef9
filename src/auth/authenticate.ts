// Who a request to the API acts as: `request.apiKey`, from an API key (`Authorization: Bearer` or
// `X-API-Key`) or else the dashboard's session cookie; null for neither. A key or session that is
// present but wrong, revoked or expired is a 401, never anonymous; a change made with the session
// must carry its CSRF token. Verified keys and sessions are remembered CACHE_MS, so a revocation
// on another instance takes effect within that. docs/security.md#api-keys, docs/api.md#authentication.

import { timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { AppError } from '../errors.ts';
import { hashSecret, KEY_SHAPE } from './api-keys.ts';
import { adminProblem, type Principal } from './roles.ts';
import { SESSION_TOKEN_SHAPE, type Session } from './sessions.ts';
import type { AuthStore } from './store.ts';

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
  }
}

/** Paths whose routes read keys and sessions. */
const API_PREFIXES = ['/links', '/keys', '/tags', '/domains', '/stats', '/webhooks', '/auth/'];
const CACHE_MS = 10_000;
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The cookie's name: `__Host-` makes browsers refuse it unless it is Secure, host-only and for the whole site. */
export const SESSION_COOKIE = 'shortener_session';
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** Forgets a session on this instance at once (sign-out). */
export type ForgetSession = (token: string) => void;

export interface Remembered {
  /** Forgets one session (sign-out). */
  forgetSession: ForgetSession;
  /** Forgets every key and session (a key was revoked here). */
  forgetAll: () => void;
}

export function registerAuthentication(app: FastifyInstance, store: Pick<AuthStore, 'activeKey' | 'session'>): Remembered {
  const keys = new LRUCache<string, Principal | false>({ max: 10_000, ttl: CACHE_MS });
  const sessions = new LRUCache<string, Session | false>({ max: 10_000, ttl: CACHE_MS });
  app.decorateRequest('apiKey', null);
  app.decorateRequest('session', null);

  const keyOf = async (secret: string): Promise<Principal> => {
    if (!KEY_SHAPE.test(secret)) throw new AppError('API_KEY_INVALID');
    const cacheKey = hashSecret(secret).toString('base64');
    let key = keys.get(cacheKey);
    if (key === undefined) {
      key = (await store.activeKey(secret)) ?? false;
      keys.set(cacheKey, key);
    }
    if (key === false) throw new AppError('API_KEY_INVALID');
    return key;
  };

  const sessionOf = async (token: string): Promise<Session> => {
    if (!SESSION_TOKEN_SHAPE.test(token)) throw new AppError('SESSION_EXPIRED');
    let session = sessions.get(token);
    if (session === undefined) {
      session = (await store.session(token)) ?? false;
      sessions.set(token, session);
    }
    if (session === false || session.expiresAt.getTime() <= Date.now()) throw new AppError('SESSION_EXPIRED');
    return session;
  };

  app.addHook('onRequest', async (request) => {
    const url = request.routeOptions.url;
    if (url === undefined || !API_PREFIXES.some((prefix) => url.startsWith(prefix))) return;
    const secret = presentedSecret(request);
    if (secret !== undefined) {
      request.apiKey = await keyOf(secret);
      return;
    }
    if (request.routeOptions.config.signIn === true) return;
    const token = sessionToken(request);
    if (token === undefined) {
      // A route the OpenAPI document marks as acting for a key: 401 before anything of the request is judged.
      if (keyRequired(request)) throw new AppError('API_KEY_REQUIRED');
      return;
    }
    const session = await sessionOf(token);
    if (!SAFE_METHODS.has(request.method) && !sameToken(request.headers['x-csrf-token'], session.csrfToken)) {
      throw new AppError('CSRF_TOKEN_INVALID');
    }
    request.apiKey = session.key;
    request.session = { ...session, token };
  });

  return {
    forgetSession: (token) => {
      sessions.delete(token);
    },
    forgetAll: () => {
      keys.clear();
      sessions.clear();
    },
  };
}

function keyRequired(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema as { security?: unknown[] } | undefined;
  return (schema?.security?.length ?? 0) > 0;
}

/** The session cookie's token, undefined without one. */
function sessionToken(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const cookies = parseCookie(header);
  return cookies[SECURE_SESSION_COOKIE] ?? cookies[SESSION_COOKIE];
}

function sameToken(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string' || sent.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}

/** The secret a request presents, undefined if none; a header that is present but malformed is refused. */
function presentedSecret(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  const header = request.headers['x-api-key'];
  // Node keeps the first of several Authorization headers and drops the rest: which key was meant?
  if (authorization !== undefined && headerCount(request.raw.rawHeaders, 'authorization') > 1) {
    throw new AppError('API_KEY_INVALID', 'Send one Authorization header.');
  }
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
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
