// GET /:code and HEAD /:code, the hot path. A cache hit costs one LRU lookup and one write of an
// answer whose text is fixed but for its location; nothing is logged. Each answer is reported to
// an observer (redirect-observer.ts): a 302 adds a click to a Map, and with metrics on the status,
// LRU hit and latency go into typed arrays.
//
// A link with options is cached as its compiled rules (core/redirect-rules.ts): they choose the
// answer's status and location from the request view (visitor.ts), and it is written as the same
// three headers. A plain link never reaches that code: its entry is a string.
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
import { ABSENT, isRedirect, type CacheEntry, type LinkCache, type NoRedirect, type RedirectTarget } from '../cache/link-cache.ts';
import { appPage, intentUrl, isWebUrl } from '../core/app-page.ts';
import { passwordPage } from '../core/password-page.ts';
import { hasPass } from '../core/link-passwords.ts';
import type { ClickLimits } from '../links/click-limits.ts';
import { LinkRules } from '../core/redirect-rules.ts';
import { asShortCode } from '../core/codes.ts';
import type { SlotHolder, VisitRecorder } from '../analytics/visits.ts';
import type { LinkKey } from '../core/domains.ts';
import { AppError, isAppError } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { HostTable, ServedDomain } from '../resolve/hosts.ts';
import type { Resolver } from '../resolve/resolver.ts';
import type { NotFoundLimit } from './not-found-limit.ts';
import { QR_QUERY } from './request-head.ts';
import {
  ANSWERS,
  createEntryWriter,
  createRedirectWriter,
  isPrebuilt,
  prebuilt,
  writeAnswer,
  writePrebuilt,
  type Prebuilt,
} from './respond.ts';
import { RequestVisitor, type RequestFields, type VisitorReaders } from './visitor.ts';
import { errorResponses as errors } from '../errors.ts';

export interface RedirectDeps {
  /** Which domain a Host names (resolve/hosts.ts). */
  hosts: Pick<HostTable, 'lookup' | 'loaded'>;
  /** Where a request for a host no domain has goes (UNKNOWN_HOST_REDIRECT); null: 404 HOST_NOT_SERVED. */
  unknownHostRedirect: RedirectTarget | null;
  cache: Pick<LinkCache, 'get'>;
  codeSpace: Pick<CodeSpace, 'impossible'>;
  resolver: Pick<Resolver, 'resolve' | 'inFlight'>;
  log: Logger;
  slowRequestMs: number;
  /** The 404 budget per client; null: no limit. */
  notFoundLimit: NotFoundLimit | null;
  /** Told of every answer: click counts and metrics (see redirect-observer.ts). */
  observer: RedirectObserver;
  /** Told of each link's redirect and each unknown code, with the request's raw fields (analytics/visits.ts); null: analytics off. */
  visits: VisitRecorder | null;
  /** What links' rules read requests with (visitor.ts). */
  visitors: VisitorReaders;
  /** The deployment's secret (CODE_SECRET): the key of password-protected links' passes (core/link-passwords.ts). */
  passSecret: string;
  /** Grants the redirects of links with a click limit (links/click-limits.ts). */
  limits: Pick<ClickLimits, 'take'>;
}

/** Whether an answer's status is a link's redirect: a click. 302 first, the plain links' status. */
export function isClickStatus(status: number): boolean {
  return status === 302 || status === 301 || status === 307 || status === 308;
}

/** What the handler reports; called on the hot path, so each call must cost next to nothing. */
export interface RedirectObserver {
  /** A timestamp for `answered` (performance.now(), or 0 when nothing measures time). */
  now(): number;
  /** Whether the LRU had the code of a redirect, or a lookup was needed. */
  cached(hit: boolean): void;
  /**
   * A request for the link `key` names (core/domains.ts) from `userAgent` was just answered with
   * `status`; it came in at `started`. An empty key: the answer was no link's (a domain's fallback,
   * a host not served, a path that is no code). `click`: the answer sent a visitor on (a link's
   * redirect, or its app page). Returns the link's click count of the interval, where analytics
   * keeps the link's slot (undefined: no click counted).
   */
  answered(userAgent: string | undefined, status: number, key: string, started: number, click: boolean): SlotHolder | undefined;
}

/**
 * How the handler reads a request (Q) and writes its answer (R) on one transport: node:http's
 * request and response (nodeTransport, below), or the fast path's parsed head (fast-path.ts).
 */
export interface RedirectTransport<Q, R> extends RequestFields<Q> {
  /** A plain redirect (302) or a refusal. */
  writeEntry(res: R, entry: RedirectTarget | NoRedirect): void;
  /** A link's redirect as its rules chose it. */
  writeRedirect(res: R, status: number, location: string): void;
  writePrebuilt(res: R, answer: Prebuilt): void;
  /** Something threw: a 500 if nothing was written yet, else the connection is cut. */
  crash(res: R): void;
  /** The status of the answer once it is written; 0 until then. */
  status(res: R): number;
  /** The host the request is for: its Host, or a forwarded one where TRUST_PROXY says so (client-address.ts). */
  host(req: Q): string | undefined;
  /** The client whose 404 budget the request spends (see client-address.ts). */
  client(req: Q): string;
  referer(req: Q): string | undefined;
  /** The Cookie header; read only for a password-protected link. */
  cookie(req: Q): string | undefined;
}

export interface RedirectHandler<Q = IncomingMessage, R = ServerResponse> {
  /** Answers a path that cannot be a code: 404 (from the client's budget of them), or its domain's fallback. */
  notFound(req: Q, res: R): void;
  /**
   * Answers a request for `path` (the first path segment, without percent-encoding or query) on
   * the domain its host names, and returns true if it is cached or shaped like a code; returns
   * false, having written nothing, if not (a reserved word such as /healthz, on any host).
   */
  tryPath(req: Q, res: R, path: string): boolean;
}

export function createRedirectHandler<Q, R>(deps: RedirectDeps, io: RedirectTransport<Q, R>): RedirectHandler<Q, R> {
  const {
    hosts,
    unknownHostRedirect,
    cache,
    codeSpace,
    resolver,
    log,
    slowRequestMs,
    notFoundLimit: limit,
    observer,
    visits,
    visitors,
    passSecret,
    limits,
  } = deps;
  const limited = prebuilt('NOT_FOUND_RATE_LIMITED', { 'retry-after': String(limit?.retryAfterSeconds ?? 1) });

  /** Something threw while answering: the response still ends, and nothing becomes an unhandled rejection. */
  const crashed = (res: R, key: string, err: unknown): void => {
    log.error({ err, key }, 'redirect failed');
    io.crash(res);
  };

  // A write that throws is answered here, so that the answer is still reported to the observer.
  const write = (res: R, key: string, entry: RedirectTarget | NoRedirect): void => {
    try {
      io.writeEntry(res, entry);
    } catch (err) {
      crashed(res, key, err);
    }
  };

  /** What chose the target of the answer being written (core/redirect-rules.ts TARGET_URL ...); 0: a plain link's. Reported with it. */
  let target = 0;
  /** The answer being written is a deep link's app page: a click, though a 200. */
  let appPaged = false;

  /** A phone visitor of a link with its app: the app (app-page.ts), the web target as its fallback. Returns false for other visitors. */
  const writeApp = (res: R, rules: LinkRules, os: string, web: string): boolean => {
    const app = os === 'ios' ? rules.deepLink?.ios : os === 'android' ? rules.deepLink?.android : undefined;
    if (app === undefined) return false;
    if (isWebUrl(app)) io.writeRedirect(res, rules.status, app);
    else if (os === 'android') io.writeRedirect(res, rules.status, intentUrl(app, web));
    else {
      appPaged = true;
      io.writePrebuilt(res, appPage(app, web));
    }
    return true;
  };

  /** A link with rules: they choose where, and with which status, from what the request says. */
  const writeRuled = (req: Q, res: R, key: string, rules: LinkRules, domain: ServedDomain): void => {
    try {
      const visitor = new RequestVisitor(visitors, io, req, key);
      // A link-preview crawler (a bot, as analytics tells them) gets the link's own preview page, people the redirect.
      if (rules.preview !== null && visitor.device().type === 'bot') return io.writePrebuilt(res, rules.preview);
      // A protected link: without a pass for its password, the form that earns one (link-password.ts).
      if (rules.passwordHash !== null && !hasPass(io.cookie(req), passSecret, key, rules.passwordHash, Date.now()))
        return io.writePrebuilt(res, PASSWORD_PAGE);
      if (rules.clickLimit === null) return sendRuled(res, rules, visitor);
      // A limited link: its redirect is granted, or not, with the others of this turn (links/click-limits.ts);
      // answered and reported then. A count that cannot be asked for is a 503: never a redirect past the limit.
      const started = observer.now();
      limits.take(key as LinkKey, rules.clickLimit).then(
        (granted) => settleLimited(req, res, key, rules, visitor, domain, started, granted),
        (err: unknown) =>
          failed(
            req,
            res,
            key as LinkKey,
            undefined,
            started,
            isAppError(err) ? err : new AppError('DATABASE_UNAVAILABLE', undefined, { cause: err }),
          ),
      );
    } catch (err) {
      crashed(res, key, err);
    }
  };

  /** A link with rules, once its redirect may be given: where its rules send `visitor`. */
  const sendRuled = (res: R, rules: LinkRules, visitor: RequestVisitor<Q>): void => {
    const location = rules.location(visitor, Date.now());
    target = rules.lastTarget;
    if (rules.deepLink !== null && writeApp(res, rules, visitor.device().os, location)) return;
    io.writeRedirect(res, rules.status, location);
  };

  /** A limited link's answer: its redirect if granted, else 410 (or the domain's expired fallback, no click of the link's). */
  const settleLimited = (
    req: Q,
    res: R,
    key: string,
    rules: LinkRules,
    visitor: RequestVisitor<Q>,
    domain: ServedDomain,
    started: number,
    granted: boolean,
  ) => {
    try {
      if (granted) sendRuled(res, rules, visitor);
      else if (domain.expiredRedirect !== null) write(res, key, domain.expiredRedirect);
      else io.writePrebuilt(res, ANSWERS.LINK_CLICK_LIMIT_REACHED);
      report(req, res, granted || domain.expiredRedirect === null ? key : '', started);
    } catch (err) {
      crashed(res, key, err);
    }
  };

  const report = (req: Q, res: R, key: string, started: number): void => {
    const status = io.status(res);
    const click = (isClickStatus(status) || appPaged) && key !== '';
    const userAgent = io.userAgent(req);
    const counted = observer.answered(userAgent, status, key, started, click);
    if (visits !== null && click)
      visits.record(key, counted, userAgent, io.referer(req), io.language(req), io.peer(req), io.forwardedFor(req), io.qr(req), target);
    target = 0;
    appPaged = false;
  };

  /**
   * Writes what a link's entry answers on `domain`: a redirect; or, for an unknown code or an
   * expired or disabled link, the domain's fallback if it has one, else the 404 or 410. Returns
   * the key to report clicks on: '' when the answer was no link's.
   */
  const writeOn = (req: Q, res: R, key: LinkKey, entry: CacheEntry, domain: ServedDomain): string => {
    if (isRedirect(entry)) {
      write(res, key, entry);
      return key;
    }
    if (entry instanceof LinkRules) {
      writeRuled(req, res, key, entry, domain);
      return key;
    }
    if (entry === ABSENT) visits?.orphan(domain.id, key.slice(domain.prefix.length));
    const fallback = entry === ABSENT ? domain.notFoundRedirect : domain.expiredRedirect;
    write(res, key, fallback ?? entry);
    return fallback === null ? key : '';
  };

  /** A cached entry: a 404 is taken from the client's budget, and is a 429 if none is left. */
  const answer = (req: Q, res: R, key: LinkKey, entry: CacheEntry, domain: ServedDomain): string => {
    if (entry === ABSENT && limit !== null && !limit.take(io.client(req), performance.now())) {
      io.writePrebuilt(res, limited);
      return key;
    }
    return writeOn(req, res, key, entry, domain);
  };

  const found = (req: Q, res: R, key: LinkKey, domain: ServedDomain, client: string | undefined, started: number, entry: CacheEntry) => {
    try {
      if (client !== undefined && entry !== ABSENT) limit?.refund(client);
      const reported = writeOn(req, res, key, entry, domain);
      // A limited link answers later, and reports then.
      if (io.status(res) !== 0) report(req, res, reported, started);
      const ms = performance.now() - started;
      if (ms > slowRequestMs) log.warn({ key, ms: Math.round(ms) }, 'slow redirect');
    } catch (err) {
      crashed(res, key, err);
    }
  };

  const failed = (req: Q, res: R, key: LinkKey, client: string | undefined, started: number, err: unknown) => {
    try {
      if (client !== undefined) limit?.refund(client);
      if (isAppError(err) && isPrebuilt(err.code)) io.writePrebuilt(res, ANSWERS[err.code]);
      else crashed(res, key, err);
      report(req, res, key, started);
    } catch (thrown) {
      crashed(res, key, thrown);
    }
  };

  /** `client` reserved a 404 for this lookup: it gets it back if the code turns out to exist. */
  const resolveAndWrite = (req: Q, res: R, key: LinkKey, domain: ServedDomain, client: string | undefined): void => {
    const started = performance.now();
    resolver.resolve(key).then(
      (entry) => found(req, res, key, domain, client, started, entry),
      (err: unknown) => failed(req, res, key, client, started, err),
    );
  };

  /**
   * After a cache miss. A lookup may end in a 404, so it reserves one of the client's 404s before
   * it starts, and a client with none left gets a 429 without I/O: however many requests a scanner
   * sends at once, it gets no more lookups than its budget. Joining a lookup already in flight for
   * the same link costs nothing (a crowd behind one NAT clicking a new link is one lookup). A code
   * that cannot exist on its domain is a 404 without I/O. Returns the key to report, once answered.
   */
  const lookUp = (req: Q, res: R, key: LinkKey, domain: ServedDomain): string => {
    let client: string | undefined;
    if (limit !== null && !resolver.inFlight(key)) {
      client = io.client(req);
      if (!limit.take(client, performance.now())) {
        io.writePrebuilt(res, limited);
        return key;
      }
    }
    if (codeSpace.impossible(key)) return writeOn(req, res, key, ABSENT, domain);
    resolveAndWrite(req, res, key, domain, client);
    return key;
  };

  /**
   * A host no domain has: 404 HOST_NOT_SERVED, or UNKNOWN_HOST_REDIRECT; never another domain's
   * link. Until the domains have been read once, it may be one: a 503, as for a link that cannot be looked up.
   */
  const unserved = (res: R): void => {
    if (!hosts.loaded) io.writePrebuilt(res, ANSWERS.DATABASE_UNAVAILABLE);
    else if (unknownHostRedirect !== null) write(res, '', unknownHostRedirect);
    else io.writePrebuilt(res, ANSWERS.HOST_NOT_SERVED);
  };

  const notFound = (req: Q, res: R): void => {
    const started = observer.now();
    const domain = hosts.lookup(io.host(req));
    if (domain === undefined) unserved(res);
    else answer(req, res, ABSENT_KEY, ABSENT, domain);
    report(req, res, '', started);
  };

  const tryPath = (req: Q, res: R, path: string): boolean => {
    const started = observer.now();
    const domain = hosts.lookup(io.host(req));
    if (domain === undefined) {
      if (asShortCode(path) === undefined) return false;
      unserved(res);
      report(req, res, '', started);
      return true;
    }
    // A hit needs no shape check: only keys of codes that passed it are ever cached.
    const key = (domain.prefix === '' ? path : domain.prefix + path) as LinkKey;
    const entry = cache.get(key);
    if (entry !== undefined) {
      observer.cached(true);
      const reported = answer(req, res, key, entry, domain);
      // A limited link answers later, and reports then.
      if (io.status(res) !== 0) report(req, res, reported, started);
      return true;
    }
    if (asShortCode(path) === undefined) return false;
    observer.cached(false);
    const reported = lookUp(req, res, key, domain);
    // A lookup still under way reports its own answer.
    if (io.status(res) !== 0) report(req, res, reported, started);
    return true;
  };

  // A throw (an observer, a log call) must not end the process from a socket's listener: it ends the response instead.
  return {
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

const QR_SUFFIX = `?${QR_QUERY}`;

/** What a visitor without a pass gets for a password-protected link: the same form for every link. */
const PASSWORD_PAGE = passwordPage();

/** The key a path that is no code is reported under: none. */
const ABSENT_KEY = '' as LinkKey;

/** How node:http's requests are read by TRUST_PROXY's rule (client-address.ts). */
export interface NodeReaders {
  /** The client whose 404 budget a request spends. */
  readonly clientOf: (req: IncomingMessage) => string;
  readonly hostOf: (req: IncomingMessage) => string | undefined;
}

/** The handler's transport on node:http. */
export function nodeTransport(cacheControl: string, { clientOf, hostOf }: NodeReaders): RedirectTransport<IncomingMessage, ServerResponse> {
  return {
    writeEntry: createEntryWriter(cacheControl),
    writeRedirect: createRedirectWriter(cacheControl),
    writePrebuilt,
    crash(res) {
      if (res.writableEnded) return;
      if (res.headersSent) res.destroy();
      else writeAnswer(res, 'INTERNAL');
    },
    status: (res) => (res.writableEnded ? res.statusCode : 0),
    userAgent: (req) => req.headers['user-agent'],
    host: hostOf,
    client: clientOf,
    peer: (req) => req.socket.remoteAddress,
    // Node joins repeated X-Forwarded-For fields into one string.
    forwardedFor: (req) => req.headers['x-forwarded-for'] as string | undefined,
    referer: (req) => req.headers.referer,
    language: (req) => req.headers['accept-language'],
    qr: (req) => req.url !== undefined && req.url.endsWith(QR_SUFFIX) && req.url.indexOf('?') === req.url.length - QR_SUFFIX.length,
    cookie: (req) => req.headers.cookie,
    query(req) {
      const url = req.url ?? '';
      const mark = url.indexOf('?');
      return mark === -1 ? '' : url.slice(mark + 1);
    },
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
    if (!handler.tryPath(request.raw, reply.raw, request.params.code)) handler.notFound(request.raw, reply.raw);
  });
}
