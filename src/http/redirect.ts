// GET /:code and HEAD /:code, the hot path. A cache hit costs a shape check, one LRU lookup and
// one writeHead of a prebuilt head; no object is built and nothing is logged.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { CacheEntry, LinkCache } from '../cache/link-cache.ts';
import { asShortCode, type ShortCode } from '../core/codes.ts';
import { isAppError } from '../errors.ts';
import type { Resolver } from '../resolve/resolver.ts';
import { isPrebuilt, writeAnswer, writeEntry } from './respond.ts';

export interface RedirectDeps {
  cache: LinkCache;
  resolver: Resolver;
  log: Logger;
  slowRequestMs: number;
}

export function registerRedirect(app: FastifyInstance, deps: RedirectDeps): void {
  const { cache, resolver, log, slowRequestMs } = deps;

  // The reply is hijacked: whatever goes wrong while writing must still end the response, and
  // must not become an unhandled rejection.
  const write = (reply: FastifyReply, code: ShortCode, entry: CacheEntry): void => {
    try {
      writeEntry(reply.raw, entry);
    } catch (err) {
      log.error({ err, code }, 'redirect could not be written');
      if (!reply.raw.headersSent) writeAnswer(reply.raw, 'INTERNAL');
      else reply.raw.destroy();
    }
  };

  const resolveAndWrite = (code: ShortCode, reply: FastifyReply): void => {
    const started = performance.now();
    resolver.resolve(code).then(
      (entry) => {
        write(reply, code, entry);
        const ms = performance.now() - started;
        if (ms > slowRequestMs) log.warn({ code, ms: Math.round(ms) }, 'slow redirect');
      },
      (err: unknown) => {
        if (isAppError(err) && isPrebuilt(err.code)) {
          writeAnswer(reply.raw, err.code);
        } else {
          log.error({ err, code }, 'redirect failed');
          writeAnswer(reply.raw, 'INTERNAL');
        }
      },
    );
  };

  // exposeHeadRoutes gives HEAD the same handler; Node writes no body for HEAD.
  app.get('/:code', function redirect(request: FastifyRequest<{ Params: { code: string } }>, reply) {
    reply.hijack();
    const code = asShortCode(request.params.code);
    if (code === undefined) return writeAnswer(reply.raw, 'LINK_NOT_FOUND');
    const entry = cache.get(code);
    if (entry !== undefined) return write(reply, code, entry);
    resolveAndWrite(code, reply);
  });
}
