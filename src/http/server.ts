// The node:http server under Fastify. Redirects are answered by its request listener before
// Fastify routes anything (see redirect.ts); everything else, and every request once the app is
// closing, goes to Fastify.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Config } from '../config.ts';
import type { RedirectHandler } from './redirect.ts';

/** The redirect handler the listener tries first; null until the app is built, and again once it closes. */
export interface RedirectEdge {
  handler: RedirectHandler | null;
}

type ServerOptions = Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'>;
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Fastify's `serverFactory` option. */
export function serverFactoryOf(config: ServerOptions, edge: RedirectEdge): (fastify: Handler) => Server {
  return (fastify) =>
    // Slow clients (https://nodejs.org/api/http.html#serverheaderstimeout): a connection whose
    // headers are not all in within headersTimeout of their first byte (or of the accept, for a
    // connection that sends nothing), or whose whole request is not in within requestTimeout, is
    // answered 408 (by onClientError) and closed; bytes trickling in reset neither clock. An idle
    // connection is closed keepAliveTimeout plus Node's keepAliveTimeoutBuffer (1 s) after a response.
    createServer(
      {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        keepAliveTimeout: config.keepAliveTimeoutMs,
        // Node looks for expired requests only this often (30 s by default): a connection is closed
        // at most a quarter of the headers timeout, and at most 1 s, after its limit.
        connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headersTimeoutMs / 4)),
      },
      (req, res) => {
        const redirect = edge.handler;
        if (redirect === null || !redirect.tryServe(req, res)) fastify(req, res);
      },
    );
}
