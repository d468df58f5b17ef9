// Single sign-on with OpenID Connect, as two browser navigations: GET /auth/sso/start sends the
// browser to the provider (authorization code with PKCE, state and nonce, the flow's state sealed in
// a cookie: sso-state.ts); GET /auth/sso/callback checks what comes back, finds or makes the person
// (sso-service.ts), opens their session with the method 'sso' and sends the browser on to the
// dashboard. Every failure sends it to the sign-in page with the error's code in `?error=`, which
// the page explains. docs/sso.md.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import { secureCookiesOnly } from '../auth/authenticate.ts';
import { setSessionCookie } from '../auth/session-routes.ts';
import type { Config } from '../config/config.ts';
import { deriveKey } from '../core/keys.ts';
import { AppError } from '../errors.ts';
import { addressOf, open, sameSecret, tags, type AccountDeps } from './route-helpers.ts';
import type { PeopleService, SignedIn } from './service.ts';
import { OidcClient } from './sso-client.ts';
import { SsoService } from './sso-service.ts';
import { openState, safeNext, sealState, SSO_STATE_TTL_MS, stateCookieOf, stateSetCookie } from './sso-state.ts';

/** Single sign-on as configured: what the sign-in page calls it, the key its state is sealed with, the client, the rules. */
export interface Sso {
  readonly name: string;
  readonly key: Buffer;
  readonly client: OidcClient;
  readonly service: SsoService;
}

export interface SsoDeps extends AccountDeps {
  /** Null when OIDC_ISSUER and OIDC_CLIENT_ID are not both set. */
  readonly sso: Sso | null;
}

/** Single sign-on from the configuration, or null when it is not set up (said in the log when half of it is). */
export function ssoOf(config: Config, people: PeopleService, log: Logger): Sso | null {
  const { oidcIssuer: issuer, oidcClientId: clientId } = config;
  if (issuer === undefined || clientId === undefined) {
    if (issuer !== undefined || clientId !== undefined)
      log.warn('single sign-on is off: set both OIDC_ISSUER and OIDC_CLIENT_ID (one of them is set)');
    return null;
  }
  const client = new OidcClient(
    {
      issuer,
      clientId,
      clientSecret: config.oidcClientSecret,
      scopes: config.oidcScopes,
      emailVerifiedClaim: config.oidcEmailVerifiedClaim,
      timeoutMs: config.oidcTimeoutMs,
      redirectUri: `${config.baseUrl}/auth/sso/callback`,
    },
    log,
  );
  return { name: config.oidcName, key: deriveKey(config.codeSecret, 'sso-state'), client, service: new SsoService(people) };
}

const Redirect = { type: 'null', description: 'To the provider, the dashboard, or the sign-in page with `?error=<code>`.' } as const;

const StartQuery = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2000, description: 'A dashboard path (/app/…) to land on once signed in.' })),
});

// What a provider sends back (RFC 6749 section 4.1.2, RFC 9207); others it may add (session_state) pass.
const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 1024 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
});

export async function ssoRoutes(plain: FastifyInstance, deps: SsoDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const httpsOnly = secureCookiesOnly(deps.baseUrl);
  const secure = (request: FastifyRequest) => httpsOnly || request.protocol === 'https';

  app.get(
    '/auth/sso/start',
    {
      schema: {
        summary: 'Sign in with single sign-on (a browser navigation)',
        description:
          'Redirects to the OpenID provider (authorization code, PKCE S256, state and nonce), with the flow sealed in a 10-minute ' +
          'HttpOnly cookie; the provider sends the browser back to /auth/sso/callback. Failures redirect to /app/sign-in?error=<code>.',
        tags,
        querystring: StartQuery,
        response: { 302: Redirect },
      },
      config: open,
    },
    async function startSso(request, reply) {
      try {
        const { sso } = deps;
        if (sso === null) throw new AppError('SSO_NOT_CONFIGURED');
        const begun = await sso.client.begin(safeNext(request.query.next), Date.now(), SSO_STATE_TTL_MS);
        reply.header('set-cookie', stateSetCookie(sealState(sso.key, begun.state), httpsOnly, secure(request)));
        return redirect(reply, begun.url.href);
      } catch (err) {
        return failed(request, reply, err);
      }
    },
  );

  app.get(
    '/auth/sso/callback',
    {
      schema: {
        summary: "The OpenID provider's redirect back (register $BASE_URL/auth/sso/callback)",
        description:
          'Checks the state against the cookie /auth/sso/start set, exchanges the code (with the PKCE verifier) and checks the ID ' +
          'token (nonce included); then signs the person in (session cookie, method sso) and redirects to the dashboard.',
        tags,
        querystring: CallbackQuery,
        response: { 302: Redirect },
      },
      config: open,
    },
    async function finishSso(request, reply) {
      // The cookie is good for one callback, whatever its outcome.
      reply.header('set-cookie', stateSetCookie(null, httpsOnly, secure(request)));
      try {
        const { sso } = deps;
        if (sso === null) throw new AppError('SSO_NOT_CONFIGURED');
        const held = openState(sso.key, stateCookieOf(request.headers.cookie, httpsOnly), Date.now());
        if (held === undefined || !sameSecret(request.query.state, held.state)) throw new AppError('SSO_STATE_INVALID');
        const at = request.url.indexOf('?');
        // The redirect URI as registered, with the query as it came: not the Host a proxy may have changed.
        const callbackUrl = new URL(`${deps.baseUrl}/auth/sso/callback${at === -1 ? '' : request.url.slice(at)}`);
        const address = addressOf(request);
        const identity = await sso.client.finish(callbackUrl, held).catch((err: unknown) => {
          if (err instanceof AppError && err.code === 'SSO_FAILED') return sso.service.refuse('SSO_FAILED', address);
          throw err;
        });
        const { signedIn, closed } = await sso.service.signIn(identity, address);
        deps.credentials.forgetSessionHashes(closed);
        await openSsoSession(request, reply, deps, signedIn, secure(request));
        request.log.info({ person: signedIn.person.id }, 'signed in by single sign-on');
        return redirect(reply, held.next);
      } catch (err) {
        return failed(request, reply, err);
      }
    },
  );
}

/** openPersonSession (route-helpers.ts) for a navigation: the session opened and its cookie set, without a body. */
async function openSsoSession(request: FastifyRequest, reply: FastifyReply, deps: AccountDeps, { key, person }: SignedIn, secure: boolean) {
  const opened = await deps.store.openSession(key, deps.ttlMs, deps.sessionsPerKeyMax, {
    personId: person.id,
    address: addressOf(request),
    userAgent: request.headers['user-agent'] ?? '',
    methods: ['sso'],
  });
  deps.credentials.forgetSessionHashes(opened.closed);
  setSessionCookie(reply, secure, opened.token, deps.ttlMs);
}

function redirect(reply: FastifyReply, location: string) {
  return reply.code(302).header('location', location).header('cache-control', 'no-store').send();
}

/** A coded failure: to the sign-in page, which says what went wrong. Anything else is a bug (500). */
function failed(request: FastifyRequest, reply: FastifyReply, err: unknown) {
  if (!(err instanceof AppError)) throw err;
  request.log.info({ code: err.code }, 'single sign-on refused');
  return redirect(reply, `/app/sign-in?error=${err.code}`);
}
