// The edge as a part: GET and HEAD /:code answered by the server's request listener (and by the
// fast path) before Fastify routes anything, the same handler as a route for app.inject(), the
// client's budget of 404s, and how a request's client and host are read. The features above plug
// into its ports (ports.ts) as they are registered; the handlers are built once the app is ready.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { RedirectTarget } from '../cache/link-cache.ts';
import { deriveKey } from '../core/keys.ts';
import { PASS_KEY_PURPOSE } from '../core/link-passwords.ts';
import { trustProxyRule } from '../core/trust-proxy.ts';
import { AppError } from '../errors.ts';
import type { PartOptions } from '../part.ts';
import { clientOfAddress, hostOfReader, hostReader, onNodeRequest, type AddressOf } from './client-address.ts';
import { fastTransport } from './fast-transport.ts';
import { nodeTransport, registerRedirect } from './node-transport.ts';
import { NotFoundLimit } from './not-found-limit.ts';
import type { ClickCounts, ClickGrants, CountryOf, VisitRecorder } from './ports.ts';
import { rawAnswers } from './raw-answers.ts';
import { RedirectHandler, type RedirectDeps } from './redirect-handler.ts';
import { RedirectCounts } from './redirect-metrics.ts';
import { redirectObserver } from './redirect-observer.ts';
import type { RedirectEdge } from './server.ts';
import { visitorReaders } from './visitor.ts';

/** What app.ts gives the edge besides PartOptions. */
export interface EdgeOptions {
  /** Where the server's request listener and the fast path find the redirect handlers (server.ts). */
  readonly edge: RedirectEdge;
  /** The client's address by TRUST_PROXY's rule: one reader (and its memo) for the 404 budget, links' rules and analytics. */
  readonly addressOf: AddressOf;
}

/** Where the features above plug into the redirect; each is read once, when the handlers are built. */
export class RedirectPorts {
  /** Click counts (analytics); null: clicks are not counted. */
  clicks: ClickCounts | null = null;
  /** Click analytics; null: off. */
  visits: VisitRecorder | null = null;
  /** The redirects of links with a click limit (links); none: such a link cannot be followed (503). */
  limits: ClickGrants = NO_GRANTS;
  /** The country of a client address, for links' rules by country (analytics' geography database). */
  countryOf: CountryOf = () => 'unknown';
}

const NO_GRANTS: ClickGrants = {
  take: () => Promise.reject(new AppError('DATABASE_UNAVAILABLE')),
};

declare module 'fastify' {
  interface FastifyInstance {
    /** The 404 budget per client, shared by every route that answers 404s for codes; null: no limit. */
    notFoundLimit: NotFoundLimit | null;
    /** The client a request comes from, by TRUST_PROXY's rule (as request.ip). */
    clientAddress: (req: IncomingMessage) => string;
    /** The host a request is for, by TRUST_PROXY's rule: which domain it asks (resolve/hosts.ts). */
    hostOf: (req: IncomingMessage) => string | undefined;
    /** What redirects counted of themselves; null with METRICS_ENABLED=false. */
    redirectCounts: RedirectCounts | null;
    /** Where the features plug into the redirect, until the app is ready. */
    redirectPorts: RedirectPorts;
  }
}

async function edgePart(app: FastifyInstance, { config, log, edge, addressOf }: PartOptions & EdgeOptions): Promise<void> {
  const notFoundLimit =
    config.notFoundLimitPerMinute === 0 ? null : new NotFoundLimit(config.notFoundLimitPerMinute, config.notFoundLimitClients);
  const trust = trustProxyRule(config.trustProxy);
  const clientOf = clientOfAddress(addressOf);
  const clientAddress = onNodeRequest(clientOf);
  const hostOf = hostReader(trust);
  const ports = new RedirectPorts();
  const counts = app.metrics === null ? null : new RedirectCounts();
  if (app.metrics !== null) counts?.register(app.metrics);
  let node: RedirectHandler<IncomingMessage, ServerResponse> | null = null;
  registerRedirect(app, () => node as RedirectHandler<IncomingMessage, ServerResponse>);
  app.addHook('onReady', async () => {
    const { hosts, cache, codeSpace, resolver } = app;
    const deps: RedirectDeps = {
      hosts,
      unknownHostRedirect: (config.unknownHostRedirect ?? null) as RedirectTarget | null,
      cache,
      codeSpace,
      resolver,
      log,
      slowRequestMs: config.slowRequestMs,
      notFoundLimit,
      observer: redirectObserver(ports.clicks, counts),
      visits: ports.visits,
      visitors: visitorReaders(addressOf, ports.countryOf),
      passKey: deriveKey(config.codeSecret, PASS_KEY_PURPOSE),
      limits: ports.limits,
      scheduledAnswer: config.scheduledLinkAnswer,
    };
    node = new RedirectHandler(deps, nodeTransport(config.redirectCacheControl, { clientOf: clientAddress, hostOf }));
    edge.handler = node;
    if (config.fastPath) {
      const answers = rawAnswers(config.redirectCacheControl, config.keepAliveTimeoutMs);
      edge.fast = new RedirectHandler(deps, fastTransport(answers, clientOf, hostOfReader(trust)));
    }
  });
  // Fastify marks its routes closing before this hook: from here on it answers redirects too, with Connection: close.
  app.addHook('preClose', async () => {
    edge.handler = null;
    edge.fast = null;
  });
  app.decorate('notFoundLimit', notFoundLimit);
  app.decorate('clientAddress', clientAddress);
  app.decorate('hostOf', hostOf);
  app.decorate('redirectPorts', ports);
  app.decorate('redirectCounts', counts);
}

export default fp(edgePart, { name: 'edge', dependencies: ['read-path'] });
