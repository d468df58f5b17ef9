// The dashboard's only data source: the service's typed client (src/client/, generated from its OpenAPI document),
// on the page's own origin with the session cookie. Every state-changing request carries the session's CSRF token,
// kept in memory only; every error becomes an ApiError (errors.ts) with the API's stable code. Each feature's
// requests sit beside it (links/api.ts, domains/api.ts…), as the generated operations called with `api.client`.
// Every route that opens or moves a session (a key, a password, the first admin, an invitation, another workspace)
// goes through startSession, which keeps the new session's CSRF token.
import type { Static } from 'typebox';
import type { SessionInfo } from '../../../src/auth/schemas.ts';
import { shortenerClient, type Client } from '../../../src/client/client.ts';
import * as sdk from '../../../src/client/operations.ts';
import { toApiError, type ApiError, type ApiErrorCode } from './errors.ts';

/** The signed-in person (null: signed in with an API key), the key the session acts through, its workspace, and the token its changes carry. */
export type Session = Static<typeof SessionInfo>;

const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * The routes used before or around a session (its options, signing in or out, the first run, emailed links), as the
 * operations name them: a 401 there is an answer (no session yet, a wrong password), not a session that was lost.
 */
const SESSION_ROUTES: ReadonlySet<string> = new Set([
  '/auth/options',
  '/auth/setup',
  '/auth/session',
  '/auth/session/workspace',
  '/auth/sign-in',
  '/auth/sign-in/second-factor',
  '/auth/passkey/options',
  '/auth/passkey/sign-in',
  '/auth/password-reset',
  '/auth/password-reset/confirm',
  '/auth/email/verify',
  '/auth/invitations/{token}',
  '/auth/invitations/{token}/accept',
]);

/** What a feature's requests need: the generated client, sending the session's token; its errors are ApiErrors. */
export interface Api {
  readonly client: Client;
}

export interface ApiClientOptions {
  /** Called when an API answer says the session is gone. */
  onSignedOut: (code: ApiErrorCode) => void;
}

export class ApiClient implements Api {
  readonly client: Client;
  #csrfToken: string | null = null;
  readonly #onSignedOut: (code: ApiErrorCode) => void;

  constructor(options: ApiClientOptions) {
    this.#onSignedOut = options.onSignedOut;
    this.client = shortenerClient({ baseUrl: '', credentials: 'same-origin' });
    this.client.interceptors.request.use((request) => this.#withCsrfToken(request));
    // After the client's own, which makes every failure a ShortenerError (and lets an abort through untouched).
    this.client.interceptors.error.use((error, response, _request, sent) => this.#failed(toApiError(error, response), sent.url));
  }

  async getSession(signal?: AbortSignal): Promise<Session> {
    const { data } = await sdk.getAuthSession({ client: this.client, throwOnError: true, signal: signal ?? null });
    this.#csrfToken = data.csrfToken;
    return data;
  }

  signIn(key: string): Promise<Session> {
    return this.startSession(sdk.postAuthSession({ client: this.client, throwOnError: true, body: { key } }));
  }

  /**
   * The answer of a route that opens a session (sign-in, set-up, accepting an invitation, switching workspace), whose
   * CSRF token is sent from then on.
   */
  async startSession<T extends object>(request: Promise<{ data: T }>): Promise<T> {
    const { data } = await request;
    // A password sign-in that asks for a second factor answers without a session (nor its token) yet.
    if ('csrfToken' in data && typeof data.csrfToken === 'string') this.#csrfToken = data.csrfToken;
    return data;
  }

  async signOut(): Promise<void> {
    try {
      await sdk.deleteAuthSession({ client: this.client, throwOnError: true });
    } finally {
      this.#csrfToken = null;
    }
  }

  #withCsrfToken(request: Request): Request {
    if (UNSAFE_METHODS.has(request.method) && this.#csrfToken !== null) request.headers.set('x-csrf-token', this.#csrfToken);
    return request;
  }

  #failed(error: ApiError, route: string): ApiError {
    // The dashboard sends no API key, so any 401 means its session is gone: NOT_SIGNED_IN or SESSION_EXPIRED,
    // or API_KEY_REQUIRED once the browser has dropped an expired cookie and sends none.
    if (error.status === 401 && !SESSION_ROUTES.has(route)) {
      this.#csrfToken = null;
      this.#onSignedOut(error.code);
    }
    return error;
  }
}
