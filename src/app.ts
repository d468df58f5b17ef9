// Builds the service from its parts. The process (serve.ts) and the tests both call this. Each
// part is a Fastify plugin that registers the onClose of what it creates where it creates it, so
// that Fastify closes them in the reverse order of registration (the write queue drains first,
// Postgres closes last), and a start that fails part-way leaves nothing open behind it.

import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import analytics from './analytics/plugin.ts';
import { onFrameworkError, registerErrorHandlers } from './api/errors.ts';
import { apiHostRule, refuseOffApiHosts } from './api/api-hosts.ts';
import docs from './api/docs-plugin.ts';
import auth from './auth/plugin.ts';
import type { Config } from './config/config.ts';
import { trustProxyRule } from './core/trust-proxy.ts';
import dashboard from './dashboard/plugin.ts';
import postgres, { type DatabaseOptions } from './db/plugin.ts';
import type { Queryable } from './db/pool.ts';
import domains from './domains/plugin.ts';
import { addressOfReader, hostReader } from './edge/client-address.ts';
import { onClientError } from './edge/client-errors.ts';
import edge, { type EdgeOptions } from './edge/plugin.ts';
import health from './health/plugin.ts';
import { serverFactoryOf, type RedirectEdge } from './edge/server.ts';
import { BODY_LIMIT_BYTES } from './links/create-routes.ts';
import links from './links/plugin.ts';
import compat from './compat/plugin.ts';
import mcp from './mcp/plugin.ts';
import metrics from './metrics/plugin.ts';
import ops from './ops/plugin.ts';
import people from './people/plugin.ts';
import type { Lifecycle, PartOptions } from './part.ts';
import operators from './operators/plugin.ts';
import redis from './redis/plugin.ts';
import readPath from './resolve/plugin.ts';
import webhooks from './webhooks/plugin.ts';
import writePath from './write/plugin.ts';

/** What app.ts gives every part: each reads the options it declares. */
export type AppOptions = PartOptions & DatabaseOptions & EdgeOptions;
export type AppPart = FastifyPluginAsync<AppOptions>;

/**
 * The parts, in the order they are built; each may use those before it, and they close in the
 * reverse order: the write queue drains before the click counts are flushed and the webhook
 * worker stops, and Postgres closes last.
 */
export const PARTS: readonly AppPart[] = [
  // Registered first: its hook counts the routes of every part after it.
  metrics,
  // Before the routes, which it reads as they are added.
  docs,
  postgres,
  redis,
  readPath,
  edge,
  // Pages for people: neither the API's authentication nor its body rules apply.
  dashboard,
  // Who a request acts as, for every API route after it.
  auth,
  // People's accounts, members, invitations and the audit log.
  people,
  domains,
  webhooks,
  analytics,
  writePath,
  links,
  // Probes of links' targets, and the routes that show what they found.
  health,
  // The abuse report form on every short domain, and the deployment's operators' API.
  operators,
  compat,
  // The MCP server at /mcp: its tools call the routes above in process, with the caller's key.
  mcp,
  ops,
];

export interface AppDeps {
  config: Config;
  log: Logger;
  /** Set `draining` to fail readiness before closing; a fresh one is made if omitted. */
  lifecycle?: Lifecycle;
  /** Apply pending migrations first (default false: the database is migrated). */
  migrate?: boolean;
  /** A window between the app and its pool: tests hold or inspect statements through it. */
  wrapDb?: (db: Queryable) => Queryable;
  /** The parts to build (tests build a prefix of PARTS, and one that fails). */
  parts?: readonly AppPart[];
}

/** The app, ready to listen; if any part fails to start, what the others opened is closed and the error thrown. */
export async function buildApp({
  config,
  log,
  lifecycle = { draining: false },
  migrate = false,
  wrapDb,
  parts = PARTS,
}: AppDeps): Promise<FastifyInstance> {
  const slot: RedirectEdge = { handler: null, fast: null };
  const trustProxy = trustProxyRule(config.trustProxy);
  // Widened to the logger type that route modules are written against.
  const fastifyLog: FastifyBaseLogger = log;
  const app = Fastify({
    serverFactory: serverFactoryOf(config, slot, log),
    loggerInstance: fastifyLog,
    // request.ip follows the same rule as the redirect listener's client address.
    ...(trustProxy === undefined ? {} : { trustProxy }),
    // No per-request log line: the redirect route writes its response and nothing else.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // While closing, requests on open connections are still served (with Connection: close):
    // the write queue drains only after the server has closed, so their creates still commit.
    return503OnClosing: false,
    frameworkErrors: onFrameworkError,
    clientErrorHandler: onClientError,
    // Each part bounds its own waits (connects, statements, the migration lock); the embedded engine
    // alone took 13 s to start on a busy machine, past Fastify's default of 10 s.
    pluginTimeout: 0,
    // Long paths reach the shape check and get our 404, not the router's 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    ajv: {
      // Fastify's defaults would drop unknown fields and turn [1] into "1"; we refuse both.
      customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false },
    },
  });
  // The API speaks JSON only; every other body type is a 415.
  app.removeContentTypeParser('text/plain');
  registerErrorHandlers(app);
  // Before every part's hooks: a short domain's host never reaches the API's authentication.
  refuseOffApiHosts(app, apiHostRule(config.apiHosts, config.baseUrl, config.dubApiHosts), hostReader(trustProxy));
  const options: AppOptions = { config, log, lifecycle, migrate, wrapDb, edge: slot, addressOf: addressOfReader(trustProxy, log) };
  for (const part of parts) app.register(part, options);
  try {
    await app.ready();
  } catch (err) {
    await app.close().catch((closeErr: unknown) => log.error({ err: closeErr }, 'closing after a failed start failed too'));
    throw err;
  }
  return app;
}
