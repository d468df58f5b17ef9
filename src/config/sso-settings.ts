// Single sign-on with OpenID Connect (src/people/sso-*.ts, docs/sso.md): the provider, this service's
// client at it, and what the sign-in page calls it. On when OIDC_ISSUER and OIDC_CLIENT_ID are both set.
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { Type } from 'typebox';
import { optional, type Settings } from './schema.ts';

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An issuer identifier (OpenID Connect Discovery 1.0, section 2): https, no query, fragment or
 * credentials; plain http only on loopback, for a provider on the same machine (and tests).
 */
export function isIssuer(raw: string): boolean {
  const url = URL.parse(raw);
  if (url === null || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** Space-separated scope tokens (RFC 6749, section 3.3), `openid` among them. */
function isScopeList(raw: string): boolean {
  const scopes = raw.split(/ +/);
  return scopes.every((scope) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) && scopes.includes('openid');
}

export const SSO_SETTINGS = {
  oidcIssuer: {
    env: 'OIDC_ISSUER',
    schema: optional(Type.Refine(Type.String(), isIssuer)),
    expected: 'an https URL such as https://login.example.com/realms/staff (http only on loopback)',
    doc:
      "the OpenID provider's issuer URL, whose `/.well-known/openid-configuration` is read at the first sign-in; " +
      'with `OIDC_CLIENT_ID`, the sign-in page offers single sign-on. See [Single sign-on](sso.md)',
  },
  oidcClientId: {
    env: 'OIDC_CLIENT_ID',
    schema: optional(Type.String({ maxLength: 500 })),
    expected: 'at most 500 characters',
    doc: 'the client id the provider gave this service; register `$BASE_URL/auth/sso/callback` as its redirect URI',
  },
  oidcClientSecret: {
    env: 'OIDC_CLIENT_SECRET',
    secret: true,
    schema: optional(Type.String({ maxLength: 2000 })),
    expected: 'at most 2000 characters',
    doc: "the client's secret (sent as HTTP Basic, or in the body where the provider takes only that); unset: a public client (PKCE alone)",
  },
  oidcName: {
    env: 'OIDC_NAME',
    schema: Type.Refine(Type.String({ default: 'single sign-on' }), (name) => /^[^\p{Cc}]{1,60}$/u.test(name)),
    expected: '1 to 60 characters without control characters',
    doc: 'what the sign-in page calls the provider: "Sign in with …" (`Okta`, `Google`, `Acme staff`)',
  },
  oidcScopes: {
    env: 'OIDC_SCOPES',
    schema: Type.Refine(Type.String({ default: 'openid email profile' }), isScopeList),
    expected: 'scopes separated by spaces, openid among them',
    doc: 'the scopes asked for; the provider must answer with the claims `email` and the one `OIDC_EMAIL_VERIFIED_CLAIM` names',
  },
  oidcEmailVerifiedClaim: {
    env: 'OIDC_EMAIL_VERIFIED_CLAIM',
    schema: Type.Refine(Type.String({ default: 'email_verified' }), (claim) => /^[A-Za-z0-9_:.-]{1,100}$/.test(claim)),
    expected: 'a claim name (letters, digits, _ : . -)',
    doc:
      'the claim that must be `true` for the email to be trusted: `email_verified`, or `xms_edov` for Microsoft Entra ID ' +
      '(which sends no `email_verified`), see [Single sign-on](sso.md)',
  },
  oidcTimeoutMs: {
    env: 'OIDC_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 5000 }),
    doc: 'most time a request to the provider (discovery, the token exchange, its keys) may take; past it the sign-in answers `SSO_UNAVAILABLE`',
  },
} satisfies Settings;
