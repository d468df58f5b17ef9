// What the people routes share: reading names and addresses, telling loopback, the person of a
// session, and opening a session for a person who just proved who they are.

import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOf, truncatedAddress, type Actor } from '../audit/audit.ts';
import { secureCookiesOnly } from '../auth/authenticate.ts';
import type { Credentials } from '../auth/credentials.ts';
import type { SignInMethod } from '../auth/sessions.ts';
import { sessionInfo, setSessionCookie } from '../auth/session-routes.ts';
import type { AuthStore } from '../auth/store.ts';
import { cleanName } from '../core/names.ts';
import { AppError } from '../errors.ts';
import { findPerson, publicPerson, type Person } from './people-store.ts';
import { cleanEmail, type PeopleService, type SignedIn } from './service.ts';

export interface AccountDeps {
  readonly people: PeopleService;
  readonly store: AuthStore;
  readonly credentials: Pick<Credentials, 'forgetSession' | 'forgetSessionHashes' | 'forgetAll'>;
  readonly ttlMs: number;
  readonly sessionsPerKeyMax: number;
  readonly baseUrl: string;
}

export const tags = ['people'];
/** Routes used before a session exists: no session is read, no CSRF token asked. */
export const open = { signIn: true } as const;
/** Routes a person needs while their session lacks what the workspace requires (auth/authenticate.ts factorsPending). */
export const pending = { factorsPending: true } as const;
export const Empty = { type: 'object', properties: {}, additionalProperties: false } as const;
export const NoBody = { type: 'null', description: 'Done.' } as const;

export const addressOf = (request: FastifyRequest): string => truncatedAddress(request.ip);

/** Who a request acts as, for the audit log. */
export const requestActor = (request: FastifyRequest): Actor => actorOf(request.apiKey, request.ip);

/** A name, or 400 NAME_INVALID. */
export function nameOf(raw: string): string {
  const name = cleanName(raw);
  if (name === undefined) throw new AppError('NAME_INVALID', undefined, { field: 'name' });
  return name;
}

/** An email address, lower-cased, or 400 EMAIL_INVALID. */
export function emailOf(raw: string, field = 'email'): string {
  const email = cleanEmail(raw);
  if (email === undefined) throw new AppError('EMAIL_INVALID', undefined, { field });
  return email;
}

/** Whether a request came straight from loopback: its peer is, and no proxy forwarded it (a proxy on the same host would look local). */
export function fromLoopback(request: FastifyRequest): boolean {
  const peer = request.socket.remoteAddress ?? '';
  const forwarded = ['x-forwarded-for', 'forwarded', 'x-real-ip'].some((name) => request.headers[name] !== undefined);
  return !forwarded && (peer === '127.0.0.1' || peer === '::1' || peer === '::ffff:127.0.0.1');
}

export function sameSecret(sent: string | undefined, expected: string | null): boolean {
  if (sent === undefined || expected === null || sent.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
}

/** The person of the request's session; 401 without a session, 403 PERSON_REQUIRED for one opened with an API key. */
export async function personOf(request: FastifyRequest, people: PeopleService): Promise<Person> {
  const personId = request.session?.personId ?? null;
  if (request.apiKey === null) throw new AppError('NOT_SIGNED_IN');
  if (personId === null) throw new AppError('PERSON_REQUIRED');
  const person = await people.read((db) => findPerson(db, personId));
  if (person === undefined) throw new AppError('SESSION_EXPIRED');
  return publicPerson(person);
}

/** Opens a session for a person who just proved who they are, sets its cookie, and answers with it. */
export async function openPersonSession(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: AccountDeps,
  { key, person }: SignedIn,
  methods: readonly SignInMethod[],
) {
  const opened = await deps.store.openSession(key, deps.ttlMs, deps.sessionsPerKeyMax, {
    personId: person.id,
    address: addressOf(request),
    userAgent: request.headers['user-agent'] ?? '',
    methods,
  });
  deps.credentials.forgetSessionHashes(opened.closed);
  const secure = secureCookiesOnly(deps.baseUrl) || request.protocol === 'https';
  setSessionCookie(reply, secure, opened.token, deps.ttlMs);
  reply.header('cache-control', 'no-store');
  // Read back: what its workspace requires that this sign-in lacks (`pending`) is known from the session's row.
  const live = await deps.store.session(opened.token);
  return sessionInfo(live ?? { key, ...opened }, await deps.store.sessionPerson(person.id));
}

/**
 * Moves the request's session to another key of its person (another workspace: switched, joined,
 * accepted), forgets what this instance remembered of it, and answers the session as it is now.
 */
export async function movedSession(request: FastifyRequest, deps: AccountDeps, personId: number, keyId: number) {
  const { session } = request;
  if (session === null || !(await deps.store.moveSession(session.token, personId, keyId))) throw new AppError('SESSION_EXPIRED');
  deps.credentials.forgetSession(session.token);
  const moved = await deps.store.session(session.token);
  if (moved === undefined) throw new AppError('SESSION_EXPIRED');
  return sessionInfo(moved, await deps.store.sessionPerson(personId));
}
