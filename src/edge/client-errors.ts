// Requests that never became requests (a malformed request line, a header too large, a client too
// slow, a connection cut mid-head) are answered as raw bytes on the socket, in the same JSON error
// shape as every other answer, and the connection closes: node:http's clientError, and the fast path's own.

import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERRORS, errorBody, errorHeaders, type ErrorCode } from '../errors.ts';

/** Node's parser errors that have a code of their own; every other one is a malformed request. */
const CLIENT_ERRORS: Readonly<Record<string, ErrorCode>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
};

const rawAnswers = new Map<string, string>();

/** An error answer as bytes on the socket, then the connection closes: for requests that never became requests. */
export function rawAnswer(code: ErrorCode, message: string = ERRORS[code].message): string {
  const key = `${code} ${message}`;
  let answer = rawAnswers.get(key);
  if (answer === undefined) {
    const { status } = ERRORS[code];
    const body = errorBody(code, message);
    const headers = Object.entries({ ...errorHeaders(code), 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
    answer = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`;
    rawAnswers.set(key, answer);
  }
  return answer;
}

/**
 * Requests that never became requests (a malformed request line, a header too large, a client
 * too slow; Fastify's `clientErrorHandler` option) get the same JSON error shape as every other
 * answer, then the connection is closed. Nothing is logged: it is the client's doing.
 */
export function onClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) socket.write(rawAnswer(CLIENT_ERRORS[err.code ?? ''] ?? 'BAD_REQUEST'));
  socket.destroy();
}
