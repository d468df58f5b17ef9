// POST /:code, the form of a password-protected link (core/password-page.ts): the right password
// earns a pass, a cookie for that link's path (core/link-passwords.ts), and a 303 back to the
// link, which then redirects; a wrong one the form again with its error. Each client has
// ATTEMPTS_MAX wrong answers per link per ATTEMPTS_WINDOW_MS on an instance, then a 429 until the
// window has passed: the scrypt hash costs a guesser 16 MiB and tens of milliseconds a try besides.

import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PASS_COOKIE, PASS_SECONDS, passValue, verifyPassword } from '../core/link-passwords.ts';
import type { LinkCache } from '../cache/link-cache.ts';
import { refusalOf } from '../cache/link-cache.ts';
import { asShortCode } from '../core/codes.ts';
import type { LinkKey } from '../core/domains.ts';
import type { HtmlPage } from '../core/html-page.ts';
import { passwordPage } from '../core/password-page.ts';
import { LinkRules } from '../core/redirect-rules.ts';
import { AppError } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { HostTable } from '../resolve/hosts.ts';
import type { Resolver } from '../resolve/resolver.ts';

export const ATTEMPTS_MAX = 5;
export const ATTEMPTS_WINDOW_MS = 15 * 60_000;
/** (client, link) pairs remembered; past it the oldest window is forgotten first. */
const CLIENTS_MAX = 50_000;
const FORM_BODY_LIMIT = 2048;

export interface LinkPasswordDeps {
  hosts: Pick<HostTable, 'lookup'>;
  hostOf: (req: IncomingMessage) => string | undefined;
  clientOf: (req: IncomingMessage) => string;
  cache: Pick<LinkCache, 'get'>;
  codeSpace: Pick<CodeSpace, 'impossible'>;
  resolver: Pick<Resolver, 'resolve'>;
  /** CODE_SECRET: the passes' key. */
  secret: string;
}

/** Wrong answers per (client, link), in fixed windows. */
export class PasswordAttempts {
  readonly #windows = new Map<string, { start: number; wrong: number }>();

  /** Seconds until `who` may try again, or 0 if it may now. */
  wait(who: string, now: number): number {
    const window = this.#windows.get(who);
    if (window === undefined || now - window.start >= ATTEMPTS_WINDOW_MS || window.wrong < ATTEMPTS_MAX) return 0;
    return Math.ceil((window.start + ATTEMPTS_WINDOW_MS - now) / 1000);
  }

  wrong(who: string, now: number): void {
    const window = this.#windows.get(who);
    if (window === undefined || now - window.start >= ATTEMPTS_WINDOW_MS) {
      if (this.#windows.size >= CLIENTS_MAX) this.#windows.delete(this.#windows.keys().next().value as string);
      this.#windows.set(who, { start: now, wrong: 1 });
    } else {
      window.wrong++;
    }
  }
}

function send(reply: FastifyReply, page: HtmlPage): FastifyReply {
  for (let i = 0; i < page.head.length; i += 2) reply.header(page.head[i] as string, page.head[i + 1]);
  return reply.code(page.status).send(page.body);
}

/** An encapsulated plugin: its form-body parser serves this route alone. */
const GIVE_PASSWORD = {
  summary: 'Give a protected link its password',
  description:
    'The form a password-protected link answers with posts here (application/x-www-form-urlencoded, `password`). ' +
    'Right: 303 back to the link with a pass for it (a cookie for an hour); wrong: 403 and the form again; ' +
    `after ${ATTEMPTS_MAX} wrong answers in ${ATTEMPTS_WINDOW_MS / 60_000} minutes: 429 with Retry-After.`,
  tags: ['redirect'],
};

export async function linkPasswordRoutes(app: FastifyInstance, deps: LinkPasswordDeps): Promise<void> {
  const attempts = new PasswordAttempts();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  app.post<{ Params: { code: string }; Body: Record<string, string> }>(
    '/:code',
    {
      bodyLimit: FORM_BODY_LIMIT,
      schema: GIVE_PASSWORD,
    },
    async function givePassword(request, reply) {
      const code = request.params.code;
      const domain = deps.hosts.lookup(deps.hostOf(request.raw));
      if (domain === undefined || asShortCode(code) === undefined) throw new AppError('LINK_NOT_FOUND');
      const key = (domain.prefix + code) as LinkKey;
      const entry = deps.cache.get(key) ?? (deps.codeSpace.impossible(key) ? undefined : await deps.resolver.resolve(key));
      const refused = entry === undefined ? 'LINK_NOT_FOUND' : refusalOf(entry);
      if (refused !== undefined) throw new AppError(refused);
      const back = request.url;
      // No password (any more): the link itself answers.
      if (!(entry instanceof LinkRules) || entry.passwordHash === null) return reply.code(303).header('location', back).send();
      const who = `${deps.clientOf(request.raw)} ${key}`;
      const now = Date.now();
      const wait = attempts.wait(who, now);
      if (wait > 0) {
        const minutes = Math.ceil(wait / 60);
        return send(
          reply,
          passwordPage(429, `Too many wrong passwords. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, [
            'retry-after',
            String(wait),
          ]),
        );
      }
      const given = typeof request.body?.password === 'string' ? request.body.password : '';
      if (given === '' || !(await verifyPassword(given, entry.passwordHash))) {
        attempts.wrong(who, now);
        return send(reply, passwordPage(403, given === '' ? 'Enter the password.' : 'That is not the password. Try again.'));
      }
      const secure = request.protocol === 'https' ? '; Secure' : '';
      return reply
        .code(303)
        .header('location', back)
        .header('cache-control', 'no-store')
        .header(
          'set-cookie',
          `${PASS_COOKIE}=${passValue(deps.secret, key, entry.passwordHash, now)}; Path=/${code}; Max-Age=${PASS_SECONDS}; HttpOnly; SameSite=Lax${secure}`,
        )
        .send();
    },
  );
}
