// The dashboard's only data source: a client of the service's JSON API (same origin, session cookie). Every
// state-changing request carries the session's CSRF token, kept in memory only; every error becomes an ApiError
// (errors.ts) with the API's stable code. Each feature's requests sit beside it (links/api.ts, domains/api.ts…).
// Every route that opens or moves a session (a key, a password, the first admin, an invitation, another workspace)
// goes through startSession, which keeps the new session's CSRF token.
import type { Static } from 'typebox';
import type { SessionInfo, SignInBody } from '../../../src/auth/schemas.ts';
import { ApiError, readError, type ApiErrorCode } from './errors.ts';

/** The signed-in person (null: signed in with an API key), the key the session acts through, its workspace, and the token its changes carry. */
export type Session = Static<typeof SessionInfo>;

const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  json?: unknown;
  body?: Blob;
  contentType?: string;
  signal?: AbortSignal | undefined;
  /** False for the session routes themselves, where a 401 is an answer and not a lost session. */
  signedOutHandler?: boolean;
}

/** What a feature's requests need of the client: one request, sent with the session's token, its answer or an ApiError. */
export interface Api {
  request<T>(path: string, options?: RequestOptions): Promise<T>;
}

export interface ApiClientOptions {
  /** Called when an API answer says the session is gone. */
  onSignedOut: (code: ApiErrorCode) => void;
}

export class ApiClient implements Api {
  #csrfToken: string | null = null;
  readonly #onSignedOut: (code: ApiErrorCode) => void;

  constructor(options: ApiClientOptions) {
    this.#onSignedOut = options.onSignedOut;
  }

  async getSession(signal?: AbortSignal): Promise<Session> {
    const session = await this.request<Session>('/auth/session', { signal, signedOutHandler: false });
    this.#csrfToken = session.csrfToken;
    return session;
  }

  signIn(key: string): Promise<Session> {
    const body: Static<typeof SignInBody> = { key };
    return this.startSession('/auth/session', body);
  }

  /**
   * POSTs `body` to a route whose answer is a session (sign-in, set-up, accepting an invitation, switching workspace),
   * and sends the new session's CSRF token from then on. A 401 there is an answer, not a lost session.
   */
  async startSession<T extends object = Session>(path: string, body: unknown): Promise<T> {
    const answer = await this.request<T>(path, { method: 'POST', json: body, signedOutHandler: false });
    // A password sign-in that asks for a second factor answers without a session (nor its token) yet.
    if ('csrfToken' in answer && typeof answer.csrfToken === 'string') this.#csrfToken = answer.csrfToken;
    return answer;
  }

  async signOut(): Promise<void> {
    try {
      await this.request<void>('/auth/session', { method: 'DELETE', signedOutHandler: false });
    } finally {
      this.#csrfToken = null;
    }
  }

  async request<T>(path: string, options: RequestOptions = {}): Promise<T> {
    const method = options.method ?? 'GET';
    const headers = new Headers({ accept: 'application/json' });
    let body: NonNullable<RequestInit['body']> | undefined;
    if (options.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(options.json);
    } else if (options.body !== undefined) {
      headers.set('content-type', options.contentType ?? 'application/octet-stream');
      body = options.body;
    }
    if (UNSAFE_METHODS.has(method) && this.#csrfToken !== null) headers.set('x-csrf-token', this.#csrfToken);

    let response: Response;
    try {
      response = await fetch(path, { method, headers, body: body ?? null, credentials: 'same-origin', signal: options.signal ?? null });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError(0, 'NETWORK_ERROR', 'The service could not be reached. Check your connection and try again.');
    }

    if (response.ok) {
      if (response.status === 204) return undefined as T;
      return (await response.json()) as T;
    }

    const error = await readError(response);
    // The dashboard sends no API key, so any 401 means its session is gone: NOT_SIGNED_IN or SESSION_EXPIRED,
    // or API_KEY_REQUIRED once the browser has dropped an expired cookie and sends none.
    if (error.status === 401 && options.signedOutHandler !== false) {
      this.#csrfToken = null;
      this.#onSignedOut(error.code);
    }
    throw error;
  }
}
