// This service as an OpenID Connect relying party, through openid-client (certified by the OpenID
// Foundation): the provider's metadata discovered at the first sign-in and kept (a day, then read
// again), the authorization request with PKCE (S256), state and nonce, and the code exchanged for
// tokens whose ID token is checked (signature, issuer, audience, expiry, nonce). Every request to the
// provider is bounded by OIDC_TIMEOUT_MS: a provider that does not answer is a fast 503
// SSO_UNAVAILABLE, never a hung sign-in. Its errors are turned into coded ones here, and what is
// logged of them is their class and code, never a token, a code or a response body. docs/sso.md.

import * as oidc from 'openid-client';
import type { Logger } from 'pino';
import { AppError } from '../errors.ts';
import type { SsoState } from './sso-state.ts';

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly scopes: string;
  readonly emailVerifiedClaim: string;
  readonly timeoutMs: number;
  /** `${BASE_URL}/auth/sso/callback`, as registered at the provider. */
  readonly redirectUri: string;
}

/** Who the provider says signed in. */
export interface SsoIdentity {
  /** The issuer and subject: the pair the spec makes stable and unique for a person. */
  readonly issuer: string;
  readonly subject: string;
  readonly email: string | undefined;
  /** Whether the claim OIDC_EMAIL_VERIFIED_CLAIM names is `true` (the boolean, not a string). */
  readonly emailVerified: boolean;
  readonly name: string | undefined;
}

/** The metadata is read again after this long: a provider moves its endpoints rarely, but it may. */
const METADATA_TTL_MS = 24 * 3_600_000;

export class OidcClient {
  readonly #settings: OidcSettings;
  readonly #log: Logger;
  #configuration: { promise: Promise<oidc.Configuration>; at: number } | null = null;

  constructor(settings: OidcSettings, log: Logger) {
    this.#settings = settings;
    this.#log = log;
  }

  /** The provider's authorization URL for a new sign-in, and what the callback must find (sealed in the browser's cookie). */
  async begin(next: string, now: number, ttlMs: number): Promise<{ url: URL; state: SsoState }> {
    const configuration = await this.#configured();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = { verifier, state: oidc.randomState(), nonce: oidc.randomNonce(), next, expiresAt: now + ttlMs };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.#settings.redirectUri,
      scope: this.#settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: state.state,
      nonce: state.nonce,
    });
    return { url, state };
  }

  /**
   * The provider's callback (`callbackUrl`: the redirect URI with the query it came with) checked
   * against `held`, its code exchanged; who signed in. The claims are the ID token's, and the
   * userinfo endpoint's where the ID token leaves the email out (providers that keep the ID token small).
   */
  async finish(callbackUrl: URL, held: SsoState): Promise<SsoIdentity> {
    const configuration = await this.#configured();
    const verifiedClaim = this.#settings.emailVerifiedClaim;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: held.verifier,
        expectedState: held.state,
        expectedNonce: held.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (claims === undefined) throw new AppError('SSO_FAILED');
      // An email and the word on it come from the same answer: the userinfo's, where the ID token lacks either.
      const inIdToken = typeof claims['email'] === 'string' && claims[verifiedClaim] !== undefined;
      const found: Record<string, unknown> = inIdToken ? claims : await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof found['email'] === 'string' ? found['email'] : undefined,
        emailVerified: found[verifiedClaim] === true,
        name: [found['name'], claims['name']].find((name): name is string => typeof name === 'string'),
      };
    } catch (err) {
      throw this.#coded(err, 'SSO_FAILED', 'the single sign-on callback was refused');
    }
  }

  /** The provider's metadata, discovered once (at most one discovery at a time); a failed one is tried again at the next sign-in. */
  #configured(): Promise<oidc.Configuration> {
    const now = Date.now();
    if (this.#configuration === null || now - this.#configuration.at > METADATA_TTL_MS) {
      const promise = this.#discover();
      const entry = { promise, at: now };
      this.#configuration = entry;
      promise.catch(() => {
        if (this.#configuration === entry) this.#configuration = null;
      });
    }
    return this.#configuration.promise;
  }

  async #discover(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret, timeoutMs } = this.#settings;
    const url = new URL(issuer);
    const execute = url.protocol === 'http:' ? [oidc.allowInsecureRequests] : [];
    try {
      const found = await oidc.discovery(url, clientId, undefined, oidc.None(), { timeout: timeoutMs / 1000, execute });
      const metadata = found.serverMetadata();
      const configuration = new oidc.Configuration(metadata, clientId, undefined, clientAuthOf(metadata, clientSecret));
      configuration.timeout = timeoutMs / 1000;
      for (const extension of execute) extension(configuration);
      this.#log.info({ issuer: metadata.issuer }, 'single sign-on: the provider is discovered');
      return configuration;
    } catch (err) {
      throw this.#coded(err, 'SSO_UNAVAILABLE', 'single sign-on: the provider could not be discovered');
    }
  }

  /**
   * A coded error for an error of openid-client: the provider out of reach (no connection, past the
   * timeout) is SSO_UNAVAILABLE, anything else `otherwise`. Logged with its class and code only.
   */
  #coded(err: unknown, otherwise: 'SSO_FAILED' | 'SSO_UNAVAILABLE', what: string): AppError {
    if (err instanceof AppError) return err;
    const code = unreachable(err) ? 'SSO_UNAVAILABLE' : otherwise;
    const reason = err instanceof Error ? ((err as { code?: unknown }).code ?? err.name) : typeof err;
    // The provider's own error code (access_denied, invalid_grant): no secret, and what an operator needs.
    const providerError = (err as { error?: unknown }).error;
    this.#log.warn({ code, reason, ...(typeof providerError === 'string' ? { providerError } : {}) }, what);
    return new AppError(code);
  }
}

/** Whether an error says the provider was not reached: the connection failed, or a request ran past the timeout. */
function unreachable(err: unknown): boolean {
  if (err instanceof TypeError && err.message === 'fetch failed') return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT';
}

/**
 * How the client proves itself at the token endpoint: HTTP Basic, the spec's default, unless the
 * provider lists only client_secret_post; without a secret, a public client (PKCE alone).
 */
function clientAuthOf(metadata: oidc.ServerMetadata, secret: string | undefined): oidc.ClientAuth {
  if (secret === undefined) return oidc.None();
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (methods !== undefined && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')) {
    return oidc.ClientSecretPost(secret);
  }
  return oidc.ClientSecretBasic(secret);
}
