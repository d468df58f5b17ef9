// GET /:code and HEAD /:code, the hot path. A cache hit costs one LRU lookup and one writeHead of a
// head built once; no object is built and nothing is logged.
//
// Redirects are answered straight from the server's request listener, before Fastify sees the
// request: Fastify's routing, its Request and Reply objects and its per-request child logger cost
// more than the redirect itself. Hot run against the bare node:http baseline, in alternating
// rounds of one run (`npm run load -- --scenario baseline,hot`): 0.74x through the Fastify route
// (15,375 vs 20,732 req/s), 0.95x from the listener (17,645 vs 18,640). Everything else, and every request while the server is closing
// (Fastify then adds Connection: close), goes to Fastify; so does app.inject(), which reaches the
// same handler through the GET /:code route.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ABSENT, type CacheEntry, type LinkCache } from '../cache/link-cache.ts';
import { asShortCode, type ShortCode } from '../core/codes.ts';
import { isAppError } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { Resolver } from '../resolve/resolver.ts';
import { createEntryWriter, isPrebuilt, writeAnswer } from './respond.ts';

export interface RedirectDeps {
  cache: LinkCache;
  codeSpace: CodeSpace;
  resolver: Resolver;
  log: Logger;
  slowRequestMs: number;
  redirectCacheControl: string;
}

export interface RedirectHandler {
  /** Answers a code that passed the shape check: from the cache, or after the resolver. */
  serve(res: ServerResponse, code: ShortCode): void;
  /**
   * Answers `req` if it is a redirect (GET or HEAD of one path segment shaped like a code, without
   * percent-encoding) and returns true; returns false, having written nothing, for anything else.
   */
  tryServe(req: IncomingMessage, res: ServerResponse): boolean;
}

export function createRedirectHandler(deps: RedirectDeps): RedirectHandler {
  const { cache, codeSpace, resolver, log, slowRequestMs } = deps;
  const writeEntry = createEntryWriter(deps.redirectCacheControl);

  // Whatever goes wrong while writing must still end the response, and must not become an
  // unhandled rejection.
  const write = (res: ServerResponse, code: string, entry: CacheEntry): void => {
    try {
      writeEntry(res, entry);
    } catch (err) {
      log.error({ err, code }, 'redirect could not be written');
      if (!res.headersSent) writeAnswer(res, 'INTERNAL');
      else res.destroy();
    }
  };

  const resolveAndWrite = (res: ServerResponse, code: ShortCode): void => {
    const started = performance.now();
    resolver.resolve(code).then(
      (entry) => {
        write(res, code, entry);
        const ms = performance.now() - started;
        if (ms > slowRequestMs) log.warn({ code, ms: Math.round(ms) }, 'slow redirect');
      },
      (err: unknown) => {
        if (isAppError(err) && isPrebuilt(err.code)) {
          writeAnswer(res, err.code);
        } else {
          log.error({ err, code }, 'redirect failed');
          writeAnswer(res, 'INTERNAL');
        }
      },
    );
  };

  /** After a cache miss: a code that cannot exist is a 404 without I/O; the rest is looked up. */
  const lookUp = (res: ServerResponse, code: ShortCode): void => {
    if (codeSpace.impossible(code)) write(res, code, ABSENT);
    else resolveAndWrite(res, code);
  };

  const serve = (res: ServerResponse, code: ShortCode): void => {
    const entry = cache.get(code);
    if (entry !== undefined) write(res, code, entry);
    else lookUp(res, code);
  };

  return {
    serve,
    tryServe(req, res) {
      const method = req.method;
      const url = req.url;
      if ((method !== 'GET' && method !== 'HEAD') || url === undefined || url.charCodeAt(0) !== 0x2f /* / */) return false;
      const query = url.indexOf('?', 1);
      const path = query === -1 ? url.slice(1) : url.slice(1, query);
      // A hit needs no shape check: only codes that passed it are ever cached.
      const entry = cache.get(path);
      if (entry !== undefined) {
        write(res, path, entry);
        return true;
      }
      const code = asShortCode(path);
      if (code === undefined) return false;
      lookUp(res, code);
      return true;
    },
  };
}

/** The same handler as a Fastify route, for requests the listener passed on and for app.inject(). */
export function registerRedirect(app: FastifyInstance, handler: RedirectHandler): void {
  // exposeHeadRoutes gives HEAD the same handler; Node writes no body for HEAD.
  app.get('/:code', function redirect(request: FastifyRequest<{ Params: { code: string } }>, reply) {
    reply.hijack();
    const code = asShortCode(request.params.code);
    if (code === undefined) writeAnswer(reply.raw, 'LINK_NOT_FOUND');
    else handler.serve(reply.raw, code);
  });
}
