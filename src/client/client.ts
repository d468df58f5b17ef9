// The service's typed client: the operations generated from our OpenAPI document (generated/, `npm run client`;
// test/ops/client.test.ts keeps them in step with the routes), bound to one base URL and one way of signing in.
// The CLI, the MCP server and the dashboard all speak to the API through it. Any answer that is not a success
// throws a ShortenerError with the API's stable code; a service that cannot be reached throws one coded
// NETWORK_ERROR. It imports nothing else of src/: it runs in a browser and in a process of its own.

import { createClient, createConfig, type Client } from './generated/client/index.ts';

export type { Client } from './generated/client/index.ts';

/** An answer of the API that is not a success, or no answer at all (status 0, code NETWORK_ERROR). */
export class ShortenerError extends Error {
  override readonly name = 'ShortenerError';

  readonly status: number;
  readonly code: string;
  /** The request body's field the error is about, where the API names one. */
  readonly field: string | undefined;
  /** Seconds, from Retry-After (a 429 or a 503). */
  readonly retryAfter: number | undefined;

  constructor(status: number, code: string, message: string, field?: string, retryAfter?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
    this.retryAfter = retryAfter;
  }
}

export interface ClientOptions {
  /** The service's URL (`https://sho.rt`); '' for the page's own origin (the dashboard). */
  baseUrl: string;
  /** An API key, sent as `Authorization: Bearer`; none for the dashboard, which has its session cookie. */
  key?: string | undefined;
  /** The fetch to send with: the MCP server's `/mcp` hands its requests to the app in process. */
  fetch?: typeof fetch;
  /** The dashboard's `same-origin`, which sends its cookie. */
  credentials?: 'include' | 'omit' | 'same-origin';
}

/** What an API key can be in a header: printable ASCII without spaces. */
const KEY_SHAPE = /^[\x21-\x7e]+$/;

/**
 * A client whose operations (`import * as api from '.../client/operations.ts'`, then
 * `api.getLinks({ client, throwOnError: true })`) answer the data or throw a ShortenerError.
 */
export function shortenerClient(options: ClientOptions): Client {
  // Refused here, with nothing of either in the message: fetch's own errors would quote the header or the URL whole.
  if (options.key !== undefined && !KEY_SHAPE.test(options.key)) {
    throw new ShortenerError(401, 'API_KEY_INVALID', 'The API key holds a character no key has (a space or a line break?): copy it again.');
  }
  if (URL.canParse(options.baseUrl)) {
    const { username, password } = new URL(options.baseUrl);
    if (username !== '' || password !== '') {
      throw new ShortenerError(400, 'URL_CREDENTIALS_NOT_ALLOWED', 'The service URL must not hold a user name or password.');
    }
  }
  const client = createClient(
    createConfig({
      baseUrl: options.baseUrl,
      throwOnError: true,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      headers: { accept: 'application/json', ...(options.key === undefined ? {} : { authorization: `Bearer ${options.key}` }) },
    }),
  );
  client.interceptors.error.use((error, response) => asShortenerError(error, response));
  return client;
}

/** What the generated client threw (the parsed error body, its text, or fetch's own error) as a ShortenerError. */
export function asShortenerError(error: unknown, response: Response | undefined): ShortenerError {
  if (error instanceof ShortenerError) return error;
  // An aborted request stays an abort, the caller asked for it: also one aborted while its answer's body was read.
  if (error instanceof DOMException && error.name === 'AbortError') throw error;
  if (response === undefined) {
    const cause = error instanceof Error ? `: ${error.message}` : '';
    return new ShortenerError(0, 'NETWORK_ERROR', `The service could not be reached${cause}.`);
  }
  const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
  const coded = codedError(error);
  // Not the API's error (a proxy's page of HTML, say): its status, not its body.
  const message = coded?.message ?? `HTTP ${response.status}${response.statusText === '' ? '' : ` ${response.statusText}`}`;
  return new ShortenerError(
    response.status,
    coded?.code ?? `HTTP_${response.status}`,
    message,
    coded?.field,
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

/** The API's error body, `{"error": {"code", "message", "field"?}}`, or null for any other answer. */
function codedError(body: unknown): { code: string; message: string; field?: string } | null {
  if (typeof body !== 'object' || body === null || !('error' in body)) return null;
  const { error } = body;
  if (typeof error !== 'object' || error === null || !('code' in error) || typeof error.code !== 'string') return null;
  const message = 'message' in error && typeof error.message === 'string' ? error.message : error.code;
  return 'field' in error && typeof error.field === 'string'
    ? { code: error.code, message, field: error.field }
    : { code: error.code, message };
}
