// The node:http server under Fastify. With FAST_PATH on, every connection it accepts starts in the
// fast path (fast-path.ts), which answers the redirects it can prove it understands and hands the
// connection to node:http at the first request it does not take. node:http's request listener
// answers redirects before Fastify routes anything (see redirect.ts); everything else, and every
// request once the app is closing, goes to Fastify. What Node would answer on its own (a missing
// Host, an unknown expectation, CONNECT) is answered here, in the service's error shape.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { rawAnswer } from './client-errors.ts';
import { spareAnsweringConnections } from './idle-connections.ts';
import { hasBody, lingerOnEarlyClose } from './lingering-close.ts';
import type { Socket } from 'node:net';
import { FastPath, type ConnectionListener, type FastPathDeps, type FastRequest } from './fast-path.ts';
import { redirectPath } from './node-transport.ts';
import type { RedirectHandler } from './redirect-handler.ts';
import { prebuilt, writePrebuilt, type Prebuilt } from './respond.ts';

/** The redirect handlers of node:http's listener and of the fast path; null until the app is built, and again once it closes. */
export interface RedirectEdge {
  handler: RedirectHandler<IncomingMessage, ServerResponse> | null;
  fast: RedirectHandler<FastRequest, FastRequest> | null;
}

type ServerOptions = Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'fastPath' | 'redirectCacheControl'>;
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const CLOSE = { connection: 'close' };
const NO_HOST = prebuilt('HOST_INVALID', CLOSE, 'An HTTP/1.1 request needs a Host header (RFC 9112, section 3.2).');
const HOSTS = prebuilt('HOST_INVALID', CLOSE, 'Send one Host header, not several (RFC 9112, section 3.2).');
const BAD_HOST = prebuilt('HOST_INVALID', CLOSE, 'The Host header is not a host name or address with an optional port.');
const EXPECTATION = prebuilt('EXPECTATION_FAILED', CLOSE);
/** How long a CONNECT's connection stays open after its 405, for the client to read it. */
const CONNECT_LINGER_MS = 1000;
const CONNECT = rawAnswer('METHOD_NOT_ALLOWED', 'CONNECT is not served: this is not a proxy.');
/** RFC 9112 3.2 and RFC 3986 3.2.2: an IP literal or a reg-name (empty included), and a port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[\w.~!$&'()*+,;=%-]*)(?::\d*)?$/;

/** Fastify's `serverFactory` option. */
export function serverFactoryOf(config: ServerOptions, edge: RedirectEdge, log: Logger): (fastify: Handler) => Server {
  return (fastify) => {
    // Node looks for expired requests only this often (30 s by default): a connection is closed
    // at most a quarter of the headers timeout, and at most 1 s, after its limit.
    const checkIntervalMs = Math.min(1000, Math.ceil(config.headersTimeoutMs / 4));
    // Slow clients (https://nodejs.org/api/http.html#serverheaderstimeout): a connection whose
    // headers are not all in within headersTimeout of their first byte (or of the accept, for a
    // connection that sends nothing), or whose whole request is not in within requestTimeout, is
    // answered 408 (by onClientError) and closed; bytes trickling in reset neither clock. An idle
    // connection is closed keepAliveTimeout plus Node's keepAliveTimeoutBuffer (1 s) after a response.
    const server = createServer(
      {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        keepAliveTimeout: config.keepAliveTimeoutMs,
        connectionsCheckingInterval: checkIntervalMs,
        // Node's own answer to a missing Host is an empty 400: hostProblem answers it instead.
        requireHostHeader: false,
      },
      (req, res) => {
        const problem = hostProblem(req);
        if (problem !== undefined) return writePrebuilt(res, problem);
        const redirect = edge.handler;
        const path = redirect === null ? undefined : redirectPath(req);
        if (path === undefined || !(redirect as RedirectHandler<IncomingMessage, ServerResponse>).tryPath(req, res, path)) {
          if (hasBody(req)) lingerOnEarlyClose(req);
          fastify(req, res);
        }
      },
    );
    spareAnsweringConnections(server);
    if (config.fastPath) {
      attachFastPath(server, {
        handler: () => edge.fast,
        headersTimeoutMs: config.headersTimeoutMs,
        keepAliveTimeoutMs: config.keepAliveTimeoutMs,
        checkIntervalMs,
        log,
      });
    }
    // Without these listeners Node answers an unknown Expect with an empty 417, and drops a CONNECT without a word.
    server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => writePrebuilt(res, EXPECTATION));
    server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      // node:http reads nothing more of a CONNECT's socket: a client that keeps its side open would
      // hold the connection, and a graceful shutdown, for good. What it sends is dropped, and the
      // connection is closed once the answer is out and the client has had a moment to read it.
      socket.resume();
      socket.end(CONNECT);
      setTimeout(() => socket.destroy(), CONNECT_LINGER_MS).unref();
    });
    return server;
  };
}

/** Why the request's Host header makes it no request to answer (RFC 9112, 3.2), or undefined. One pass over the raw headers. */
function hostProblem(req: IncomingMessage): Prebuilt | undefined {
  const raw = req.rawHeaders;
  let host: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) {
      if (host !== undefined) return HOSTS;
      host = raw[i + 1] as string;
    }
  }
  if (host === undefined) return req.httpVersionMajor === 1 && req.httpVersionMinor === 1 ? NO_HOST : undefined;
  return HOST.test(host) ? undefined : BAD_HOST;
}

/**
 * Puts the fast path in front of `server`'s own connection listener: every accepted connection
 * starts here. closeIdleConnections and closeAllConnections reach the fast path's connections too.
 */
export function attachFastPath(server: Server, deps: FastPathDeps): void {
  const [nodeListener, ...others] = server.listeners('connection') as ConnectionListener[];
  if (nodeListener === undefined || others.length > 0)
    throw new Error('the fast path expects node:http to be the only connection listener');
  server.removeAllListeners('connection');
  const fast = new FastPath(server, nodeListener, deps);
  server.on('connection', (socket: Socket) => fast.accept(socket));
  const closeIdle = server.closeIdleConnections.bind(server);
  const closeAll = server.closeAllConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    fast.closeIdle();
  };
  server.closeAllConnections = () => {
    closeAll();
    fast.closeAll();
  };
  server.on('close', () => fast.stop());
  // node:http has read a whole head on a socket handed to it (checkExpectation and connect are
  // requests that 'request' does not announce; an 'upgrade' listener would change what node:http does).
  for (const event of ['request', 'checkExpectation', 'connect'] as const) {
    server.prependListener(event, (req: IncomingMessage) => fast.headRead(req.socket));
  }
}
