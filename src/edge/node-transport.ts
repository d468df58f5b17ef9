// The redirect handler on node:http: its transport (requests the server's listener passed to it,
// before Fastify routes anything: server.ts), and the same handler as the GET /:code route, for
// requests the listener passed on (the app closing) and for app.inject().

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses } from '../errors.ts';
import type { RedirectHandler, RedirectTransport } from './redirect-handler.ts';
import { QR_QUERY } from './request-head.ts';
import { createEntryWriter, createRedirectWriter, writeAnswer, writePrebuilt } from './respond.ts';

const QR_SUFFIX = `?${QR_QUERY}`;

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
    accept: (req) => req.headers.accept,
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
export function registerRedirect(app: FastifyInstance, handler: () => RedirectHandler<IncomingMessage, ServerResponse>): void {
  // exposeHeadRoutes gives HEAD the same handler; Node writes no body for HEAD.
  const schema = {
    summary: 'Redirect to the link target',
    description:
      '302 with exactly location, cache-control and content-length: 0. 410 for an expired or disabled ' +
      'link, 404 for an unknown code, 429 for a client out of 404s, 503 when the database cannot be asked ' +
      'for an uncached code. A browser (Accept naming text/html, application/json ranked no higher) gets a 404 or 410 ' +
      'as a small HTML page for people instead of the JSON error; both vary by Accept.',
    tags: ['redirect'],
    params: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    response: {
      302: { description: 'To the link target (location header).', type: 'null' },
      ...errorResponses(404, 410, 429, 503),
    },
  };
  app.get('/:code', { schema }, function redirect(request: FastifyRequest<{ Params: { code: string } }>, reply) {
    reply.hijack();
    const redirects = handler();
    if (!redirects.tryPath(request.raw, reply.raw, request.params.code)) redirects.notFound(request.raw, reply.raw);
  });
}
