// GET /:code and HEAD /:code, the hot path. A cache hit costs one LRU lookup and one write of an
// answer whose text is fixed but for its location; nothing is logged. Each answer is reported to
// an observer (redirect-observer.ts): a 302 adds a click to a Map, and with metrics on the status,
// LRU hit and latency go into typed arrays.
//
// One handler, two transports (RedirectTransport): the fast path's parsed heads and raw socket
// writes (fast-path.ts), and node:http's request and response. On node:http redirects are answered
// straight from the server's request listener (server.ts), before Fastify sees the request:
// Fastify's routing, its Request and Reply objects and its per-request child logger cost more than
// the redirect itself (0.74x of bare node:http through the Fastify route, 0.95x from the listener,
// `npm run load -- --scenario baseline,hot` before the fast path). Everything else, and every
// request once the app is closing (Fastify then adds Connection: close), goes to Fastify; so does
// app.inject(), which reaches the same handler through the GET /:code route.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ABSENT, type CacheEntry, type LinkCache } from '../cache/link-cache.ts';
import { asShortCode, type ShortCode } from '../core/codes.ts';
import { isAppError } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { Resolver } from '../resolve/resolver.ts';
import type { NotFoundLimit } from './not-found-limit.ts';
import { errors } from './schemas.ts';
import { ANSWERS, createEntryWriter, isPrebuilt, prebuilt, writeAnswer, writePrebuilt, type Prebuilt } from './respond.ts';

export interface RedirectDeps {
  cache: Pick<LinkCache, 'get'>;
  codeSpace: Pick<CodeSpace, 'impossible'>;
  resolver: Pick<Resolver, 'resolve' | 'inFlight'>;
  log: Logger;
  slowRequestMs: number;
  /** The 404 budget per client; null: no limit. */
  notFoundLimit: NotFoundLimit | null;
  /** Told of every answer: click counts and metrics (see redirect-observer.ts). */
  observer: RedirectObserver;
}

/** What the handler reports; called on the hot path, so each call must cost next to nothing. */
export interface RedirectObserver {
  /** A timestamp for `answered` (performance.now(), or 0 when nothing measures time). */
  now(): number;
  /** Whether the LRU had the code of a redirect, or a lookup was needed. */
  cached(hit: boolean): void;
  /** A request for `code` from `userAgent` was just answered with `status`; it came in at `started`. */
  answered(userAgent: string | undefined, status: number, code: string, started: number): void;
}

/**
 * How the handler reads a request (Q) and writes its answer (R) on one transport: node:http's
 * request and response (nodeTransport, below), or the fast path's parsed head (fast-path.ts).
 */
export interface RedirectTransport<Q, R> {
  writeEntry(res: R, entry: CacheEntry): void;
  writePrebuilt(res: R, answer: Prebuilt): void;
  /** Something threw: a 500 if nothing was written yet, else the connection is cut. */
  crash(res: R): void;
  /** The status of the answer once it is written; 0 until then. */
  status(res: R): number;
  userAgent(req: Q): string | undefined;
  /** The client whose 404 budget the request spends (see client-address.ts). */
  client(req: Q): string;
}

export interface RedirectHandler<Q = IncomingMessage, R = ServerResponse> {
  /** Answers a code that passed the shape check: from the cache, or after the resolver. */
  serve(req: Q, res: R, code: ShortCode): void;
  /** Answers a path that cannot be a code: 404, from the client's budget of them. */
  notFound(req: Q, res: R): void;
  /**
   * Answers a request for `path` (the first path segment, without percent-encoding or query) and
   * returns true if it is cached or shaped like a code; returns false, having written nothing, if not.
   */
  tryPath(req: Q, res: R, path: string): boolean;
}

export function createRedirectHandler<Q, R>(deps: RedirectDeps, io: RedirectTransport<Q, R>): RedirectHandler<Q, R> {
  const { cache, codeSpace, resolver, log, slowRequestMs, notFoundLimit: limit, observer } = deps;
  const limited = prebuilt('NOT_FOUND_RATE_LIMITED', { 'retry-after': String(limit?.retryAfterSeconds ?? 1) });

  /** Something threw while answering: the response still ends, and nothing becomes an unhandled rejection. */
  const crashed = (res: R, code: string, err: unknown): void => {
    log.error({ err, code }, 'redirect failed');
    io.crash(res);
  };

  // A write that throws is answered here, so that the answer is still reported to the observer.
  const write = (res: R, code: string, entry: CacheEntry): void => {
    try {
      io.writeEntry(res, entry);
    } catch (err) {
      crashed(res, code, err);
    }
  };

  const report = (req: Q, res: R, code: string, started: number): void => {
    observer.answered(io.userAgent(req), io.status(res), code, started);
  };

  /** A cached entry: a 404 is taken from the client's budget, and is a 429 if none is left. */
  const answer = (req: Q, res: R, code: string, entry: CacheEntry): void => {
    if (entry === ABSENT && limit !== null && !limit.take(io.client(req), performance.now())) {
      io.writePrebuilt(res, limited);
    } else {
      write(res, code, entry);
    }
  };

  const found = (req: Q, res: R, code: ShortCode, client: string | undefined, started: number, entry: CacheEntry) => {
    try {
      if (client !== undefined && entry !== ABSENT) limit?.refund(client);
      write(res, code, entry);
      report(req, res, code, started);
      const ms = performance.now() - started;
      if (ms > slowRequestMs) log.warn({ code, ms: Math.round(ms) }, 'slow redirect');
    } catch (err) {
      crashed(res, code, err);
    }
  };

  const failed = (req: Q, res: R, code: ShortCode, client: string | undefined, started: number, err: unknown) => {
    try {
      if (client !== undefined) limit?.refund(client);
      if (isAppError(err) && isPrebuilt(err.code)) io.writePrebuilt(res, ANSWERS[err.code]);
      else crashed(res, code, err);
      report(req, res, code, started);
    } catch (thrown) {
      crashed(res, code, thrown);
    }
  };

  /** `client` reserved a 404 for this lookup: it gets it back if the code turns out to exist. */
  const resolveAndWrite = (req: Q, res: R, code: ShortCode, client: string | undefined): void => {
    const started = performance.now();
    resolver.resolve(code).then(
      (entry) => found(req, res, code, client, started, entry),
      (err: unknown) => failed(req, res, code, client, started, err),
    );
  };

  /**
   * After a cache miss. A lookup may end in a 404, so it reserves one of the client's 404s before
   * it starts, and a client with none left gets a 429 without I/O: however many requests a scanner
   * sends at once, it gets no more lookups than its budget. Joining a lookup already in flight for
   * the same code costs nothing (a crowd behind one NAT clicking a new link is one lookup). A code
   * that cannot exist is a 404 without I/O.
   */
  const lookUp = (req: Q, res: R, code: ShortCode): void => {
    let client: string | undefined;
    if (limit !== null && !resolver.inFlight(code)) {
      client = io.client(req);
      if (!limit.take(client, performance.now())) return io.writePrebuilt(res, limited);
    }
    if (codeSpace.impossible(code)) write(res, code, ABSENT);
    else resolveAndWrite(req, res, code, client);
  };

  /** Reports an answer written within this call; a lookup still under way reports its own. */
  const reportIfAnswered = (req: Q, res: R, code: string, started: number): void => {
    if (io.status(res) !== 0) report(req, res, code, started);
  };

  const serve = (req: Q, res: R, code: ShortCode): void => {
    const started = observer.now();
    const entry = cache.get(code);
    observer.cached(entry !== undefined);
    if (entry !== undefined) answer(req, res, code, entry);
    else lookUp(req, res, code);
    reportIfAnswered(req, res, code, started);
  };

  const notFound = (req: Q, res: R): void => {
    const started = observer.now();
    answer(req, res, '', ABSENT);
    report(req, res, '', started);
  };

  const tryPath = (req: Q, res: R, path: string): boolean => {
    // A hit needs no shape check: only codes that passed it are ever cached.
    const started = observer.now();
    const entry = cache.get(path);
    if (entry !== undefined) {
      observer.cached(true);
      answer(req, res, path, entry);
      report(req, res, path, started);
      return true;
    }
    const code = asShortCode(path);
    if (code === undefined) return false;
    observer.cached(false);
    lookUp(req, res, code);
    reportIfAnswered(req, res, code, started);
    return true;
  };

  // A throw (an observer, a log call) must not end the process from a socket's listener: it ends the response instead.
  return {
    serve(req, res, code) {
      try {
        serve(req, res, code);
      } catch (err) {
        crashed(res, code, err);
      }
    },
    notFound(req, res) {
      try {
        notFound(req, res);
      } catch (err) {
        crashed(res, '', err);
      }
    },
    tryPath(req, res, path) {
      try {
        return tryPath(req, res, path);
      } catch (err) {
        crashed(res, path, err);
        return true;
      }
    },
  };
}

/** The handler's transport on node:http: `clientAddress` reads TRUST_PROXY's rule (client-address.ts). */
export function nodeTransport(
  cacheControl: string,
  clientAddress: (req: IncomingMessage) => string,
): RedirectTransport<IncomingMessage, ServerResponse> {
  return {
    writeEntry: createEntryWriter(cacheControl),
    writePrebuilt,
    crash(res) {
      if (res.writableEnded) return;
      if (res.headersSent) res.destroy();
      else writeAnswer(res, 'INTERNAL');
    },
    status: (res) => (res.writableEnded ? res.statusCode : 0),
    userAgent: (req) => req.headers['user-agent'],
    client: clientAddress,
  };
}

/**
 * The path a node:http request asks the redirect handler for: a GET or HEAD of one segment, its
 * query left out; undefined for any other request.
 */
export function redirectPath(req: IncomingMessage): string | undefined {
  const method = req.method;
  const url = req.url;
  if ((method !== 'GET' && method !== 'HEAD') || url === undefined || url.charCodeAt(0) !== 0x2f /* / */) return undefined;
  const query = url.indexOf('?', 1);
  return query === -1 ? url.slice(1) : url.slice(1, query);
}

/** The same handler as a Fastify route, for requests the listener passed on and for app.inject(). */
export function registerRedirect(app: FastifyInstance, handler: RedirectHandler): void {
  // exposeHeadRoutes gives HEAD the same handler; Node writes no body for HEAD.
  const schema = {
    summary: 'Redirect to the link target',
    description:
      '302 with exactly location, cache-control and content-length: 0. 410 for an expired or disabled ' +
      'link, 404 for an unknown code, 429 for a client out of 404s, 503 when the database cannot be asked ' +
      'for an uncached code.',
    tags: ['redirect'],
    params: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    response: {
      302: { description: 'To the link target (location header).', type: 'null' },
      ...errors(404, 410, 429, 503),
    },
  };
  app.get('/:code', { schema }, function redirect(request: FastifyRequest<{ Params: { code: string } }>, reply) {
    reply.hijack();
    const code = asShortCode(request.params.code);
    if (code === undefined) handler.notFound(request.raw, reply.raw);
    else handler.serve(request.raw, reply.raw, code);
  });
}
