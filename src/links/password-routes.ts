// POST /:code, the form of a password-protected link (core/password-page.ts): the right password
// earns a pass, a cookie for that link's path (core/link-passwords.ts), and a 303 back to the
// link, which then redirects; a wrong one the form again with its error. An unknown code spends the
// client's 404 budget as GET /:code does (budgeted-lookup.ts). Each client has ATTEMPTS_MAX
// attempts per link per ATTEMPTS_WINDOW_MS, across instances when Redis is on, each reserved before
// the hash and given back when right (api/attempt-budget.ts), then 429 until the window has passed;
// the hashes wait for a slot (core/hash-slots.ts), and a guess that finds the queue full is a 503.
// The hash is read from Postgres: no cache tier holds one.

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AttemptBudget } from '../api/attempt-budget.ts';
import { refusalOf } from '../cache/link-cache.ts';
import { asShortCode } from '../core/codes.ts';
import { splitKey, type LinkKey } from '../core/domains.ts';
import type { HtmlPage } from '../core/html-page.ts';
import { PASS_COOKIE, PASS_SECONDS, passTagOf, passValue, verifyPassword } from '../core/link-passwords.ts';
import { passwordPage, type PasswordSite } from '../core/password-page.ts';
import { LinkRules } from '../core/redirect-rules.ts';
import { AppError, isAppError } from '../errors.ts';
import type { HostTable } from '../resolve/hosts.ts';
import { budgetedEntry, type LookupDeps } from './budgeted-lookup.ts';
import type { HashSlots } from '../core/hash-slots.ts';
import type { LinkStore } from './store.ts';

export const ATTEMPTS_MAX = 5;
export const ATTEMPTS_WINDOW_MS = 15 * 60_000;
const FORM_BODY_LIMIT = 2048;

export interface LinkPasswordDeps extends LookupDeps {
  hosts: Pick<HostTable, 'lookup'>;
  hostOf: (req: IncomingMessage) => string | undefined;
  /** Where the password's hash is read: Postgres, through the breaker. */
  store: Pick<LinkStore, 'details'>;
  /** Attempts per client and link (ATTEMPTS_MAX per ATTEMPTS_WINDOW_MS). */
  attempts: AttemptBudget;
  slots: HashSlots;
  /** The passes' key, derived from CODE_SECRET for them alone (core/keys.ts). */
  passKey: Buffer;
}

function send(reply: FastifyReply, page: HtmlPage): FastifyReply {
  for (let i = 0; i < page.head.length; i += 2) reply.header(page.head[i] as string, page.head[i + 1]);
  return reply.code(page.status).send(page.body);
}

/** A refusal as the form's page, for people, with its code for programs (x-error-code) and when to retry. */
function refusal(
  reply: FastifyReply,
  status: number,
  code: 'PASSWORD_RATE_LIMITED' | 'PASSWORD_CHECKS_BUSY',
  text: string,
  retryAfter: number,
  site: PasswordSite,
) {
  return send(reply, passwordPage(status, text, ['retry-after', String(retryAfter), 'x-error-code', code], site));
}

/** An encapsulated plugin: its form-body parser serves this route alone. */
const GIVE_PASSWORD = {
  summary: 'Give a protected link its password',
  description:
    'The form a password-protected link answers with posts here (application/x-www-form-urlencoded, `password`). ' +
    'Right: 303 back to the link with a pass for it (a cookie for an hour); wrong: 403 and the form again; ' +
    `after ${ATTEMPTS_MAX} wrong answers in ${ATTEMPTS_WINDOW_MS / 60_000} minutes: 429 with Retry-After ` +
    '(`x-error-code: PASSWORD_RATE_LIMITED`); too many passwords checked at once: 503 (`PASSWORD_CHECKS_BUSY`). ' +
    'An unknown code spends the 404 budget of GET /:code.',
  tags: ['redirect'],
};

export async function linkPasswordRoutes(app: FastifyInstance, deps: LinkPasswordDeps): Promise<void> {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  app.post<{ Params: { code: string }; Body: Record<string, string> }>(
    '/:code',
    { bodyLimit: FORM_BODY_LIMIT, schema: GIVE_PASSWORD },
    async function givePassword(request, reply) {
      const code = request.params.code;
      const domain = deps.hosts.lookup(deps.hostOf(request.raw));
      if (domain === undefined) throw new AppError('HOST_NOT_SERVED');
      const key = asShortCode(code) === undefined ? undefined : ((domain.prefix + code) as LinkKey);
      const entry = await budgetedEntry(deps, request, reply, key);
      const refused = refusalOf(entry);
      if (refused !== undefined || key === undefined) throw new AppError(refused ?? 'LINK_NOT_FOUND');
      const back = request.url;
      // No password (any more): the link itself answers.
      if (!(entry instanceof LinkRules) || entry.passTag === null) return reply.code(303).header('location', back).send();
      // The form again, on a refusal, in the domain's brand as the link's own answer is (resolve/hosts.ts passwordPage).
      return check(request, reply, key, back, { host: domain.host, brand: domain.brand });
    },
  );

  /** The attempt is reserved first, then the hash is read and compared (in a slot); only a wrong one keeps the attempt. */
  async function check(
    request: FastifyRequest<{ Body: Record<string, string> }>,
    reply: FastifyReply,
    key: LinkKey,
    back: string,
    site: PasswordSite,
  ) {
    const who = `${deps.clientAddress(request.raw)} ${key}`;
    const reserved = await deps.attempts.take(who);
    if (!reserved.ok) {
      const minutes = Math.ceil(reserved.retryAfterSeconds / 60);
      const text = `Too many wrong passwords. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
      return refusal(reply, 429, 'PASSWORD_RATE_LIMITED', text, reserved.retryAfterSeconds, site);
    }
    const given = typeof request.body?.password === 'string' ? request.body.password : '';
    if (given === '') return send(reply, passwordPage(403, 'Enter the password.', [], site));
    let hash: string | undefined;
    let right: boolean;
    try {
      hash = (await deps.store.details(splitKey(key)))?.options?.passwordHash;
      right = hash !== undefined && (await deps.slots.guess(() => verifyPassword(given, hash as string)));
    } catch (err) {
      await deps.attempts.giveBack(who);
      if (!isAppError(err) || err.code !== 'PASSWORD_CHECKS_BUSY') throw err;
      return refusal(reply, 503, 'PASSWORD_CHECKS_BUSY', 'Too many passwords are being checked just now. Try again in a moment.', 1, site);
    }
    if (hash === undefined) {
      // The password was removed a moment ago: the link itself answers.
      await deps.attempts.giveBack(who);
      return reply.code(303).header('location', back).send();
    }
    if (!right) return send(reply, passwordPage(403, 'That is not the password. Try again.', [], site));
    await deps.attempts.giveBack(who);
    const secure = request.protocol === 'https' ? '; Secure' : '';
    const pass = passValue(deps.passKey, key, passTagOf(hash), Date.now());
    return reply
      .code(303)
      .header('location', back)
      .header('cache-control', 'no-store')
      .header('set-cookie', `${PASS_COOKIE}=${pass}; Path=/${splitKey(key).code}; Max-Age=${PASS_SECONDS}; HttpOnly; SameSite=Lax${secure}`)
      .send();
  }
}
