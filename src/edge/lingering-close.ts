// An answer given before the request's body is all in (a 413 by its Content-Length, a 401 before
// the body is read) ends the connection. node:http would close the socket as soon as the answer is
// flushed; the body bytes the client is still sending then meet a closed socket, and the client's
// TCP stack, told so by a reset, may throw away the answer it had not read yet (RFC 9112, 9.6).
// Here the connection is half-closed instead: the answer and a FIN go out, the rest of the body is
// read and dropped (bodies declared up to DRAIN_MAX_BYTES, for at most DRAIN_MAX_MS), then it closes.

import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

/** A declared body larger than this is not drained: the connection closes at once, as node:http closes it. */
export const DRAIN_MAX_BYTES = 16 * 1024 * 1024;
/** The longest a refused body is read for, whatever its size. */
export const DRAIN_MAX_MS = 5000;

const kRequest = Symbol('the last request with a body');
type Lingering = Socket & { [kRequest]?: IncomingMessage | undefined };

/** Whether a request comes with a body (node:http reads it after the head). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Makes the close that follows an early answer to `req` (one with a body) a lingering one. */
export function lingerOnEarlyClose(req: IncomingMessage): void {
  const socket = req.socket as Lingering;
  // node:http ends a connection through socket.destroySoon() (lib/_http_server.js resOnFinish).
  if (!(kRequest in socket)) socket.destroySoon = lingeringDestroySoon;
  socket[kRequest] = req;
}

function lingeringDestroySoon(this: Lingering): void {
  const req = this[kRequest];
  this[kRequest] = undefined;
  const declared = Number(req?.headers['content-length'] ?? 0);
  if (req === undefined || req.complete || this.destroyed || !(declared <= DRAIN_MAX_BYTES)) {
    Socket.prototype.destroySoon.call(this);
    return;
  }
  // Closed once the answer is flushed and the body is in (or the client stops sending, or time is up).
  const close = () => {
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  };
  const timer = setTimeout(close, DRAIN_MAX_MS);
  timer.unref();
  this.once('close', () => clearTimeout(timer));
  req.once('end', close);
  req.once('error', close);
  this.once('end', close);
  // node:http dumps a body nobody read; a body a parser stopped reading is still flowing.
  if (req.readableFlowing !== true) req.resume();
  this.end();
}
