// GET /:code and HEAD /:code, the hot path: a cache hit costs one LRU lookup and one write of an
// answer fixed but for its location, reported to the observer (click counts, metrics) and to
// analytics; nothing is logged. One handler, two transports (RedirectTransport). What one request
// decides travels as arguments and return values, never through the handler's fields or the cached
// rules, so a request whose answer is never written leaves nothing behind. How it is reached, and
// a link's rules: docs/architecture.md#three-entrances, docs/architecture.md#plain-links-and-links-with-options.

import { ABSENT, isRedirect, type CacheEntry, type LinkCache, type NoRedirect, type RedirectTarget } from '../cache/link-cache.ts';
import { appPage, intentUrl, isWebUrl } from '../core/app-page.ts';
import { asShortCode } from '../core/codes.ts';
import type { LinkKey } from '../core/domains.ts';
import { hasPass } from '../core/link-passwords.ts';
import { prefersHtml } from '../core/accept.ts';
import { notYetPage } from '../core/visitor-page.ts';
import { LinkRules } from '../core/redirect-rules.ts';
import { AppError, isAppError } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { HostTable, ServedDomain } from '../resolve/hosts.ts';
import type { Resolver } from '../resolve/resolver.ts';
import type { Logger } from 'pino';
import { fallbackFor, warningFor } from './fallbacks.ts';
import type { NotFoundLimit } from './not-found-limit.ts';
import type { ClickGrants, VisitRecorder } from './ports.ts';
import type { RedirectObserver } from './redirect-observer.ts';
import { ANSWERS, isPrebuilt, prebuilt, type Prebuilt, type PrebuiltCode } from './respond.ts';
import { RequestVisitor, type RequestFields, type VisitorReaders } from './visitor.ts';

export interface RedirectDeps {
  /** Which domain a Host names (resolve/hosts.ts). */
  readonly hosts: Pick<HostTable, 'lookup' | 'loaded'>;
  /** Where a request for a host no domain has goes (UNKNOWN_HOST_REDIRECT); null: 404 HOST_NOT_SERVED. */
  readonly unknownHostRedirect: RedirectTarget | null;
  readonly cache: Pick<LinkCache, 'get'>;
  readonly codeSpace: Pick<CodeSpace, 'impossible'>;
  readonly resolver: Pick<Resolver, 'resolve' | 'inFlight'>;
  readonly log: Logger;
  readonly slowRequestMs: number;
  /** The 404 budget per client; null: no limit. */
  readonly notFoundLimit: NotFoundLimit | null;
  /** Told of every answer: click counts and metrics. */
  readonly observer: RedirectObserver;
  /** Told of each link's redirect and each unknown code, with the request's raw fields; null: analytics off. */
  readonly visits: VisitRecorder | null;
  /** What links' rules read requests with (visitor.ts). */
  readonly visitors: VisitorReaders;
  /** The key of password-protected links' passes (core/link-passwords.ts), derived from CODE_SECRET for them alone (core/keys.ts). */
  readonly passKey: Buffer;
  /** Grants the redirects of links with a click limit. */
  readonly limits: ClickGrants;
  /** SCHEDULED_LINK_ANSWER: a link before its start answers as itself (`not_yet`), or as an unknown code (`not_found`). */
  readonly scheduledAnswer: 'not_yet' | 'not_found';
}

/**
 * How the handler reads a request (Q) and writes its answer (R) on one transport: node:http's
 * request and response (node-transport.ts), or the fast path's parsed head (fast-transport.ts).
 */
export interface RedirectTransport<Q, R> extends RequestFields<Q> {
  /** A plain redirect (302) or a refusal. */
  writeEntry(res: R, entry: RedirectTarget | NoRedirect): void;
  /** A link's redirect as its rules chose it; `personal`: it depends on who asks, so no shared cache may keep it. */
  writeRedirect(res: R, status: number, location: string, personal: boolean): void;
  writePrebuilt(res: R, answer: Prebuilt): void;
  /** Something threw: a 500 if nothing was written yet, else the connection is cut. */
  crash(res: R): void;
  /** The status of the answer once it is written; 0 until then. */
  status(res: R): number;
  /** The host the request is for: its Host, or a forwarded one where TRUST_PROXY says so (client-address.ts). */
  host(req: Q): string | undefined;
  /** The client whose 404 budget the request spends (client-address.ts). */
  client(req: Q): string;
  referer(req: Q): string | undefined;
  /** The Cookie header; read only for a password-protected link. */
  cookie(req: Q): string | undefined;
  /** The Accept header; read only for a link that does not redirect (its page or its JSON). */
  accept(req: Q): string | undefined;
}

/** Whether an answer's status is a link's redirect: a click. 302 first, the plain links' status. */
export function isClickStatus(status: number): boolean {
  return status === 302 || status === 301 || status === 307 || status === 308;
}

/** The key a path that is no code is reported under: none. */
const ABSENT_KEY = '' as LinkKey;

/** A plain link's answer chose no target of rules (core/redirect-rules.ts TARGET_URL ...). */
const NO_TARGET = 0;

/** What #writeApp wrote: nothing (the visitor has no app), a redirect to the app, or the app's page. */
const NO_APP = 0;
const APP_REDIRECT = 1;
const APP_PAGE = 2;

export class RedirectHandler<Q, R> {
  readonly #io: RedirectTransport<Q, R>;
  readonly #deps: RedirectDeps;
  readonly #limit: NotFoundLimit | null;
  readonly #observer: RedirectObserver;
  readonly #cache: Pick<LinkCache, 'get'>;
  readonly #hosts: Pick<HostTable, 'lookup' | 'loaded'>;
  /** The 429 of a client out of 404s. */
  readonly #limited: Prebuilt;

  constructor(deps: RedirectDeps, io: RedirectTransport<Q, R>) {
    this.#io = io;
    this.#deps = deps;
    this.#limit = deps.notFoundLimit;
    this.#observer = deps.observer;
    this.#cache = deps.cache;
    this.#hosts = deps.hosts;
    this.#limited = prebuilt('NOT_FOUND_RATE_LIMITED', { 'retry-after': String(deps.notFoundLimit?.retryAfterSeconds ?? 1) });
  }

  /**
   * Answers a request for `path` (the first path segment, without percent-encoding or query) on
   * the domain its host names, and returns true if it is cached or shaped like a code; returns
   * false, having written nothing, if not (a reserved word such as /healthz, on any host).
   * A throw (an observer, a log call) must not end the process from a socket's listener: it ends the response instead.
   */
  tryPath(req: Q, res: R, path: string): boolean {
    try {
      return this.#tryPath(req, res, path);
    } catch (err) {
      this.#crashed(res, path, err);
      return true;
    }
  }

  /** Answers a path that cannot be a code: 404 (from the client's budget of them), or its domain's fallback. */
  notFound(req: Q, res: R): void {
    try {
      const started = this.#observer.now();
      const domain = this.#hosts.lookup(this.#io.host(req));
      if (domain === undefined) this.#unserved(res);
      else this.#answer(req, res, ABSENT_KEY, ABSENT, domain, started);
      this.#report(req, res, '', started, NO_TARGET, false);
    } catch (err) {
      this.#crashed(res, '', err);
    }
  }

  #tryPath(req: Q, res: R, path: string): boolean {
    const started = this.#observer.now();
    const domain = this.#hosts.lookup(this.#io.host(req));
    if (domain === undefined) {
      if (asShortCode(path) === undefined) return false;
      this.#unserved(res);
      this.#report(req, res, '', started, NO_TARGET, false);
      return true;
    }
    // A hit needs no shape check: only keys of codes that passed it are ever cached.
    const key = (domain.prefix === '' ? path : domain.prefix + path) as LinkKey;
    const entry = this.#cache.get(key);
    if (entry !== undefined) {
      this.#observer.cached(true);
      const reported = this.#answer(req, res, key, entry, domain, started);
      if (reported !== null && this.#io.status(res) !== 0) this.#report(req, res, reported, started, NO_TARGET, false);
      return true;
    }
    if (asShortCode(path) === undefined) return false;
    this.#observer.cached(false);
    const reported = this.#lookUp(req, res, key, domain, started);
    // A lookup still under way reports its own answer.
    if (reported !== null && this.#io.status(res) !== 0) this.#report(req, res, reported, started, NO_TARGET, false);
    return true;
  }

  /** A cached entry: a 404 is taken from the client's budget, and is a 429 if none is left. Returns the key to report. */
  #answer(req: Q, res: R, key: LinkKey, entry: CacheEntry, domain: ServedDomain, started: number): string | null {
    const limit = this.#limit;
    if (entry === ABSENT && limit !== null && !limit.take(this.#io.client(req), performance.now())) {
      this.#io.writePrebuilt(res, this.#limited);
      return key;
    }
    return this.#writeOn(req, res, key, entry, domain, started);
  }

  /**
   * Writes what a link's entry answers on `domain`: a redirect; or, for an unknown code or an
   * expired or disabled link, the domain's fallback if it has one, else the 404 or 410 (#refuse). Returns
   * the key to report clicks on ('' when the answer was no link's), or null when the link's rules
   * report their answer themselves (now, or once its click limit is settled).
   */
  #writeOn(req: Q, res: R, key: LinkKey, entry: CacheEntry, domain: ServedDomain, started: number): string | null {
    if (isRedirect(entry)) {
      this.#write(res, key, entry);
      return key;
    }
    if (entry instanceof LinkRules) {
      this.#writeRuled(req, res, key, entry, domain, started);
      return null;
    }
    if (entry === ABSENT) this.#deps.visits?.orphan(domain.id, key.slice(domain.prefix.length));
    const fallback = fallbackFor(entry, domain, entry === ABSENT);
    if (fallback !== null) {
      this.#write(res, key, fallback);
      return '';
    }
    // A link before its start answers as an unknown code does where SCHEDULED_LINK_ANSWER says so.
    const hidden = entry.opensAt !== undefined && this.#deps.scheduledAnswer === 'not_found';
    this.#refuse(req, res, key, hidden ? 'LINK_NOT_FOUND' : entry.answer, domain, hidden ? undefined : entry.opensAt);
    return key;
  }

  /**
   * A link that does not redirect, and no fallback: its page on `domain` for a browser (core/visitor-page.ts; before
   * its start, `opensAt`, the page that says when), its JSON error for anyone else.
   */
  #refuse(req: Q, res: R, key: string, code: PrebuiltCode, domain: ServedDomain, opensAt?: Date): void {
    try {
      const html = prefersHtml(this.#io.accept(req));
      const page = !html ? undefined : opensAt === undefined ? domain.pages.get(code) : notYetPage(domain, opensAt);
      this.#io.writePrebuilt(res, page ?? ANSWERS[code]);
    } catch (err) {
      this.#crashed(res, key, err);
    }
  }

  /** A write that throws is answered here, so that the answer is still reported. */
  #write(res: R, key: string, entry: RedirectTarget | NoRedirect): void {
    try {
      this.#io.writeEntry(res, entry);
    } catch (err) {
      this.#crashed(res, key, err);
    }
  }

  /** A link with rules: they choose where, and with which status, from what the request says; it reports its own answer. */
  #writeRuled(req: Q, res: R, key: LinkKey, rules: LinkRules, domain: ServedDomain, started: number): void {
    const io = this.#io;
    let target = NO_TARGET;
    let appPaged = false;
    try {
      const visitor = new RequestVisitor(this.#deps.visitors, io, req, key);
      if (rules.passTag !== null && !hasPass(io.cookie(req), this.#deps.passKey, key, rules.passTag, Date.now())) {
        // A protected link, the password first: without a pass for it, a crawler gets the preview (which names no
        // target) if the link has one, anyone else the form that earns a pass (links/password-routes.ts).
        io.writePrebuilt(res, rules.preview !== null && visitor.device().type === 'bot' ? rules.preview : domain.passwordPage);
      } else if (rules.warning !== null) {
        // A link whose target a blocklist named after it was made: everyone (crawlers too) gets the warning first, never a click.
        io.writePrebuilt(res, warningFor(rules as LinkRules & { warning: string }, visitor, domain, key));
      } else if (rules.preview !== null && visitor.device().type === 'bot') {
        // A link-preview crawler (a bot, as analytics tells them) gets the link's own preview page, people the redirect.
        io.writePrebuilt(res, rules.preview);
      } else if (rules.clickLimit === null) {
        target = rules.target(visitor, Date.now());
        appPaged = this.#sendRuled(res, rules, visitor, target);
      } else {
        // A limited link: its redirect is granted, or not, with the others of this turn (links/click-limits.ts);
        // answered and reported then. A count that cannot be asked for is a 503: never a redirect past the limit.
        this.#takeLimited(req, res, key, rules, visitor, domain);
        return;
      }
    } catch (err) {
      this.#crashed(res, key, err);
    }
    if (io.status(res) !== 0) this.#report(req, res, key, started, target, appPaged);
  }

  #takeLimited(req: Q, res: R, key: LinkKey, rules: LinkRules, visitor: RequestVisitor<Q>, domain: ServedDomain): void {
    const started = this.#observer.now();
    this.#deps.limits.take(key, rules.clickLimit as number).then(
      (granted) => this.#settleLimited(req, res, key, rules, visitor, domain, started, granted),
      (err: unknown) => {
        const failure = isAppError(err) ? err : new AppError('DATABASE_UNAVAILABLE', undefined, { cause: err });
        this.#failed(req, res, key, undefined, started, failure);
      },
    );
  }

  /** A link with rules, once its redirect may be given: where its rules send `visitor` by `target`. Returns whether the answer is the app page. */
  #sendRuled(res: R, rules: LinkRules, visitor: RequestVisitor<Q>, target: number): boolean {
    const location = rules.locationOf(target, visitor);
    const app = rules.deepLink === null ? NO_APP : this.#writeApp(res, rules, visitor.device().os, location);
    if (app === NO_APP) this.#io.writeRedirect(res, rules.status, location, rules.personal);
    return app === APP_PAGE;
  }

  /** A phone visitor of a link with its app: the app (app-page.ts), the web target as its fallback. Writes nothing for other visitors. */
  #writeApp(res: R, rules: LinkRules, os: string, web: string): number {
    const app = os === 'ios' ? rules.deepLink?.ios : os === 'android' ? rules.deepLink?.android : undefined;
    if (app === undefined) return NO_APP;
    if (isWebUrl(app)) this.#io.writeRedirect(res, rules.status, app, rules.personal);
    else if (os === 'android') this.#io.writeRedirect(res, rules.status, intentUrl(app, web), rules.personal);
    else {
      this.#io.writePrebuilt(res, appPage(app, web));
      return APP_PAGE;
    }
    return APP_REDIRECT;
  }

  /** A limited link's answer: its redirect if granted, else its expiredUrl or the domain's expired fallback (no click of the link's), else 410. */
  #settleLimited(
    req: Q,
    res: R,
    key: string,
    rules: LinkRules,
    visitor: RequestVisitor<Q>,
    domain: ServedDomain,
    started: number,
    granted: boolean,
  ): void {
    try {
      let target = NO_TARGET;
      let appPaged = false;
      // Used up: the link's own expiredUrl, else the domain's expired fallback (neither a click of the link's), else 410.
      const fallback = granted ? null : ((rules.expiredUrl as RedirectTarget | null) ?? domain.expiredRedirect);
      if (granted) {
        target = rules.target(visitor, Date.now());
        appPaged = this.#sendRuled(res, rules, visitor, target);
      } else if (fallback !== null) this.#write(res, key, fallback);
      else this.#refuse(req, res, key, 'LINK_CLICK_LIMIT_REACHED', domain);
      this.#report(req, res, fallback === null ? key : '', started, target, appPaged);
    } catch (err) {
      this.#crashed(res, key, err);
    }
  }

  /**
   * After a cache miss. A lookup may end in a 404, so it reserves one of the client's 404s before
   * it starts, and a client with none left gets a 429 without I/O: however many requests a scanner
   * sends at once, it gets no more lookups than its budget. Joining a lookup already in flight for
   * the same link costs nothing (a crowd behind one NAT clicking a new link is one lookup). A code
   * that cannot exist on its domain is a 404 without I/O. Returns the key to report, once answered.
   */
  #lookUp(req: Q, res: R, key: LinkKey, domain: ServedDomain, started: number): string | null {
    const { resolver, codeSpace } = this.#deps;
    const limit = this.#limit;
    let client: string | undefined;
    if (limit !== null && !resolver.inFlight(key)) {
      client = this.#io.client(req);
      if (!limit.take(client, performance.now())) {
        this.#io.writePrebuilt(res, this.#limited);
        return key;
      }
    }
    if (codeSpace.impossible(key)) return this.#writeOn(req, res, key, ABSENT, domain, started);
    const asked = performance.now();
    resolver.resolve(key).then(
      (entry) => this.#found(req, res, key, domain, client, asked, entry),
      (err: unknown) => this.#failed(req, res, key, client, asked, err),
    );
    return key;
  }

  /** `client` reserved a 404 for this lookup: it gets it back if the code turns out to exist. */
  #found(req: Q, res: R, key: LinkKey, domain: ServedDomain, client: string | undefined, started: number, entry: CacheEntry): void {
    try {
      if (client !== undefined && entry !== ABSENT) this.#limit?.refund(client);
      const reported = this.#writeOn(req, res, key, entry, domain, started);
      if (reported !== null && this.#io.status(res) !== 0) this.#report(req, res, reported, started, NO_TARGET, false);
      const ms = performance.now() - started;
      if (ms > this.#deps.slowRequestMs) this.#deps.log.warn({ key, ms: Math.round(ms) }, 'slow redirect');
    } catch (err) {
      this.#crashed(res, key, err);
    }
  }

  #failed(req: Q, res: R, key: string, client: string | undefined, started: number, err: unknown): void {
    try {
      if (client !== undefined) this.#limit?.refund(client);
      if (isAppError(err) && isPrebuilt(err.code)) this.#io.writePrebuilt(res, ANSWERS[err.code]);
      else this.#crashed(res, key, err);
      this.#report(req, res, key, started, NO_TARGET, false);
    } catch (thrown) {
      this.#crashed(res, key, thrown);
    }
  }

  /**
   * A host no domain has: 404 HOST_NOT_SERVED, or UNKNOWN_HOST_REDIRECT; never another domain's
   * link. Until the domains have been read once, it may be one: a 503, as for a link that cannot be looked up.
   */
  #unserved(res: R): void {
    const unknownHostRedirect = this.#deps.unknownHostRedirect;
    if (!this.#hosts.loaded) this.#io.writePrebuilt(res, ANSWERS.DATABASE_UNAVAILABLE);
    else if (unknownHostRedirect !== null) this.#write(res, '', unknownHostRedirect);
    else this.#io.writePrebuilt(res, ANSWERS.HOST_NOT_SERVED);
  }

  /** Tells the observer of the answer written, and analytics of a click, with what chose its target. */
  #report(req: Q, res: R, key: string, started: number, target: number, appPaged: boolean): void {
    const io = this.#io;
    const status = io.status(res);
    const click = (isClickStatus(status) || appPaged) && key !== '';
    const userAgent = io.userAgent(req);
    const counted = this.#observer.answered(userAgent, status, key, started, click);
    const visits = this.#deps.visits;
    if (visits !== null && click)
      visits.record(key, counted, userAgent, io.referer(req), io.language(req), io.peer(req), io.forwardedFor(req), io.qr(req), target);
  }

  /** Something threw while answering: the response still ends, and nothing becomes an unhandled rejection. */
  #crashed(res: R, key: string, err: unknown): void {
    this.#deps.log.error({ err, key }, 'redirect failed');
    this.#io.crash(res);
  }
}
