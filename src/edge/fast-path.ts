// The fast path: redirects read off the socket and answered without node:http, which builds an
// IncomingMessage, a ServerResponse and several ticks of events for every request, where a cached
// redirect needs one parse of a few dozen bytes (request-head.ts) and one write of the bytes
// node:http would have written (raw-answers.ts). At the first request it does not take, the
// connection is handed, with its unread bytes, to node:http for good, once the answers owed are
// out. Pipelining, timeouts, closing and backpressure are kept as node:http keeps them
// (docs/architecture.md#three-entrances; test/edge/fast-path.test.ts and the differential test).

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { onClientError } from './client-errors.ts';
import type { RedirectHandler } from './redirect-handler.ts';
import { HANDOFF, INCOMPLETE, MAX_HEAD_BYTES, parseHead, type RequestHead } from './request-head.ts';

/** Most requests read on a connection and not yet answered; past it the socket is read no further until answers go out. */
export const MAX_PIPELINE = 16;

/** One request taken by the fast path, and its answer once it is known. */
export class FastRequest {
  readonly conn: FastConnection;
  readonly request: RequestHead;
  /** The answer's status; 0 until it is known. */
  status = 0;
  /** The answer, while requests before it are still unanswered. */
  bytes = '';
  /** The answer says Connection: close: the connection ends after it. */
  closing = false;
  /** In the connection's queue: requests before it were unanswered when it came. */
  queued = false;

  constructor(conn: FastConnection, request: RequestHead) {
    this.conn = conn;
    this.request = request;
  }
}

/** What the fast path needs of the rest of the service. */
export interface FastPathDeps {
  /** The redirect handler on this transport; null while the app is closing (requests then go to node:http). */
  readonly handler: () => RedirectHandler<FastRequest, FastRequest> | null;
  readonly headersTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly checkIntervalMs: number;
  readonly log: Logger;
}

export type ConnectionListener = (this: Server, socket: Socket) => void;

export class FastPath {
  readonly server: Server;
  readonly nodeListener: ConnectionListener;
  readonly deps: FastPathDeps;
  readonly connections = new Set<FastConnection>();
  /** Node waits keepAliveTimeout plus this before it closes an idle connection (server.keepAliveTimeoutBuffer, 1 s). */
  readonly idleMs: number;
  #sweeper: NodeJS.Timeout | null = null;
  /** Sockets handed to node:http in the middle of a head, until node:http has read a whole one. */
  readonly #headOwed = new WeakSet<Socket>();

  constructor(server: Server, nodeListener: ConnectionListener, deps: FastPathDeps) {
    this.server = server;
    this.nodeListener = nodeListener;
    this.deps = deps;
    const buffer = (server as { keepAliveTimeoutBuffer?: number }).keepAliveTimeoutBuffer ?? 1000;
    this.idleMs = deps.keepAliveTimeoutMs + buffer;
  }

  accept(socket: Socket): void {
    this.connections.add(new FastConnection(this, socket));
    if (this.#sweeper === null) {
      // One coarse timer for every connection, as node:http checks its own (connectionsCheckingInterval).
      this.#sweeper = setInterval(() => this.sweep(), this.deps.checkIntervalMs);
      this.#sweeper.unref();
    }
  }

  /**
   * Hands `conn`'s socket to node:http, with the bytes it has read and not used. node:http's
   * headers clock starts again at the handoff: the head begun at `headStart` keeps its own
   * deadline, so that a client cannot get a second HEADERS_TIMEOUT_MS by being handed off.
   */
  handOff(conn: FastConnection, unread: Buffer | null, headStart: number): void {
    this.connections.delete(conn);
    const socket = conn.socket;
    if (headStart !== 0) this.#keepDeadline(socket, headStart + this.deps.headersTimeoutMs);
    if (unread !== null && unread.length > 0) socket.unshift(unread);
    this.nodeListener.call(this.server, socket);
    // Reading may have been paused for the handoff; node:http reads from here on.
    socket.resume();
  }

  #keepDeadline(socket: Socket, deadline: number): void {
    this.#headOwed.add(socket);
    const timer = setTimeout(() => {
      if (this.#headOwed.has(socket)) timedOut(socket);
    }, deadline - performance.now());
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  headRead(socket: Socket): void {
    this.#headOwed.delete(socket);
  }

  sweep(): void {
    const now = performance.now();
    for (const conn of this.connections) conn.check(now);
  }

  closeIdle(): void {
    for (const conn of this.connections) if (conn.idle()) conn.socket.destroy();
  }

  closeAll(): void {
    for (const conn of this.connections) conn.socket.destroy();
  }

  stop(): void {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }
}

class FastConnection {
  readonly fast: FastPath;
  readonly socket: Socket;
  /** Bytes read and not yet parsed (from `at`); null when there are none. */
  #unread: Buffer | null = null;
  #at = 0;
  /** Requests read whose answers are not all written, oldest first. */
  readonly #owed: FastRequest[] = [];
  /** When the head being read began (performance.now()), or 0 between requests. */
  #headStart: number;
  /** When the connection last read or wrote. */
  #lastActive: number;
  /** Offset in the unread bytes up to which every head was found to be one the fast path takes. */
  #clearUntil = 0;
  /** A request the fast path does not take is waiting for the answers owed before it. */
  #handingOff = false;
  /** Reading stopped: too many answers owed, or the socket cannot take more writes. */
  #held = false;
  #gone = false;

  constructor(fast: FastPath, socket: Socket) {
    this.fast = fast;
    this.socket = socket;
    this.#headStart = this.#lastActive = performance.now();
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('drain', this.#onDrain);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
  }

  #onData = (chunk: Buffer): void => {
    if (this.#gone) return;
    if (this.#unread === null) {
      this.#unread = chunk;
    } else {
      this.#unread = Buffer.concat([this.#unread.subarray(this.#at), chunk]);
    }
    this.#at = 0;
    this.#clearUntil = 0;
    const now = performance.now();
    this.#lastActive = now;
    if (this.#headStart === 0) this.#headStart = now;
    try {
      this.#read();
    } catch (err) {
      // A fault of the fast path's own: the connection ends, the process does not.
      this.fast.deps.log.error({ err }, 'fast path failed');
      this.socket.destroy();
    }
  };

  /** Parses and answers what has been read, until it runs out, is held, or hands off. */
  #read(): void {
    const handler = this.fast.deps.handler();
    while (this.#unread !== null && !this.#held && !this.#handingOff) {
      if (this.#owed.length >= MAX_PIPELINE) return this.#hold();
      const parsed = handler === null ? HANDOFF : parseHead(this.#unread, this.#at);
      if (parsed === INCOMPLETE) return;
      if (parsed === HANDOFF || this.#malformedAhead(this.#unread, this.#at + parsed.length)) return this.#handOffWhenAnswered();
      const unread = this.#unread;
      const at = this.#at;
      const headStart = this.#headStart;
      this.#at += parsed.length;
      if (this.#at === this.#unread.length) {
        this.#unread = null;
        this.#headStart = 0;
      } else {
        this.#headStart = performance.now();
      }
      const req = new FastRequest(this, parsed);
      if (this.#owed.length > 0) {
        req.queued = true;
        this.#owed.push(req);
      }
      if (!(handler as RedirectHandler<FastRequest, FastRequest>).tryPath(req, req, parsed.path)) {
        // Not cached and not shaped like a code (a reserved word such as /healthz): node:http's, from its first byte.
        if (req.queued) this.#owed.pop();
        this.#unread = unread;
        this.#at = at;
        this.#headStart = headStart;
        return this.#handOffWhenAnswered();
      }
      if (req.status === 0 && !req.queued) {
        req.queued = true;
        this.#owed.push(req);
      }
    }
  }

  /**
   * Whether a request the fast path would not take follows in the bytes already read. node:http,
   * given several requests at once, writes the first answer and holds the others until it is
   * sent; a malformed request among them then closes the connection, and the answers held are
   * never sent. So when one follows, node:http gets them all, and answers them as it would.
   */
  #malformedAhead(buf: Buffer, from: number): boolean {
    if (from < this.#clearUntil || from >= buf.length) return false;
    let at = from;
    for (let i = 0; i < MAX_PIPELINE && at < buf.length; i++) {
      // A head longer than the fast path reads is no sign of a malformed one: node:http may take it.
      const next = parseHead(buf.length - at > MAX_HEAD_BYTES ? buf.subarray(0, at + MAX_HEAD_BYTES) : buf, at);
      if (next === HANDOFF) return true;
      if (next === INCOMPLETE) break;
      at += next.length;
    }
    this.#clearUntil = at;
    return false;
  }

  /** Whether `req`'s answer must close the connection: the app is closing and nothing follows it. */
  closingAfter(req: FastRequest): boolean {
    if (this.fast.deps.handler() !== null || this.#unread !== null) return false;
    const owed = this.#owed;
    return owed.length === 0 || owed[owed.length - 1] === req;
  }

  /** Writes `req`'s answer now if nothing is owed before it, else once what is owed before it is written. */
  answer(req: FastRequest, status: number, bytes: string, closing: boolean): void {
    if (req.status !== 0 || this.#gone) return;
    req.status = status;
    if (!req.queued) {
      this.#write(bytes, closing);
      return;
    }
    req.bytes = bytes;
    req.closing = closing;
    const owed = this.#owed;
    while (owed.length > 0 && (owed[0] as FastRequest).status !== 0) {
      const next = owed.shift() as FastRequest;
      this.#write(next.bytes, next.closing);
    }
    this.#lastActive = performance.now();
    if (owed.length === 0) {
      if (this.#handingOff) return this.#handOff();
      if (this.#held && !this.socket.writableNeedDrain) this.#release();
    }
  }

  #write(bytes: string, closing: boolean): void {
    if (this.socket.destroyed) return;
    this.socket.write(bytes, 'latin1');
    if (closing) {
      this.#closeAfterWrites();
    } else if (this.socket.writableNeedDrain) {
      this.#hold();
    }
  }

  #closeAfterWrites(): void {
    this.#gone = true;
    this.fast.connections.delete(this);
    this.socket.end();
    this.socket.once('finish', () => this.socket.destroy());
  }

  #hold(): void {
    this.#held = true;
    this.socket.pause();
  }

  #release(): void {
    this.#held = false;
    this.socket.resume();
    this.#read();
  }

  #onDrain = (): void => {
    if (this.#held && this.#owed.length < MAX_PIPELINE) this.#release();
  };

  #handOffWhenAnswered(): void {
    this.#handingOff = true;
    if (this.#owed.length === 0) this.#handOff();
    else this.socket.pause();
  }

  #handOff(): void {
    this.#detach();
    const unread = this.#unread === null ? null : this.#unread.subarray(this.#at);
    this.#unread = null;
    this.fast.handOff(this, unread, this.#headStart);
  }

  #detach(): void {
    this.#gone = true;
    const socket = this.socket;
    socket.removeListener('data', this.#onData);
    socket.removeListener('end', this.#onEnd);
    socket.removeListener('drain', this.#onDrain);
    socket.removeListener('error', this.#onError);
    socket.removeListener('close', this.#onClose);
  }

  /**
   * The client ended its side. As node:http does (httpAllowHalfOpen false): a head cut short is a
   * 400, otherwise the connection ends now, and answers still owed are not sent.
   */
  #onEnd = (): void => {
    if (this.#gone) return;
    this.#gone = true;
    this.fast.connections.delete(this);
    if (this.#unread !== null) {
      onClientError(
        Object.assign(new Error('the client ended the connection in the middle of a request'), { code: 'HPE_INVALID_EOF_STATE' }),
        this.socket,
      );
    } else if (this.socket.writable) {
      this.socket.end();
    }
  };

  #onError = (): void => {
    this.socket.destroy();
  };

  #onClose = (): void => {
    this.#gone = true;
    this.fast.connections.delete(this);
  };

  /** Nothing owed, nothing read of a next request: closeIdleConnections may close it. */
  idle(): boolean {
    return this.#owed.length === 0 && this.#unread === null && this.#headStart === 0;
  }

  /** The timeouts, from the fast path's sweeper. */
  check(now: number): void {
    const { headersTimeoutMs } = this.fast.deps;
    if (this.#headStart !== 0 && now - this.#headStart > headersTimeoutMs && !this.#handingOff) {
      this.#gone = true;
      this.fast.connections.delete(this);
      if (this.#owed.length === 0) {
        timedOut(this.socket);
      } else {
        this.socket.destroy();
      }
    } else if (this.idle() && now - this.#lastActive > this.fast.idleMs) {
      this.socket.destroy();
    }
  }
}

/** The headers timeout: 408, as node:http answers it (onClientError), and the connection closes. */
function timedOut(socket: Socket): void {
  onClientError(Object.assign(new Error('headers timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
}
