// Builds the real app on a real Postgres database for one test file.

import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { buildApp } from '../../src/app.ts';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { loadConfig, type Config } from '../../src/config/config.ts';
import type { ShortCode } from '../../src/core/codes.ts';
import { DEFAULT_DOMAIN_ID } from '../../src/core/domains.ts';
import type { Queryable } from '../../src/db/pool.ts';
import type { Lifecycle } from '../../src/part.ts';
import type { AppPart } from '../../src/app.ts';
import { redirectsOverSockets } from './redirects-over-sockets.ts';
import type { LinkRef } from '../../src/core/link.ts';

export const TEST_BASE_URL = 'https://sho.rt';

/**
 * The service's defaults, but no 404 budget, no create limits and no budget of credential look-ups:
 * every request of a test comes from one address (test/edge/not-found-limit, test/links/rate-limits
 * and test/security/credentials turn them on); plain links may be created without a key
 * (test/security/creates holds the default); LRUs of ten thousand entries. And a
 * Redis command may take 2 s, not 100 ms: a test that counts what Redis answered must not depend on
 * how busy the machine is; the tests of a slow or hanging Redis set the timeout they test.
 */
export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    BASE_URL: TEST_BASE_URL,
    NOT_FOUND_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_ENABLED: 'false',
    CREDENTIAL_LOOKUPS_PER_MINUTE: '0',
    REDIS_COMMAND_TIMEOUT_MS: '2000',
    // Domain checks ask a port where nothing answers (refused at once), never the machine's resolver:
    // tests do not reach outside, and a check of a test's domains costs no DNS timeouts.
    DOMAIN_DNS_RESOLVERS: '127.0.0.1:9',
    // Most tests create plain links without a key; tests of options, domains and keys send one.
    CREATE_REQUIRES_API_KEY: 'false',
    // The LRUs are allocated whole when the app is built: at the default sizes (a million links, a
    // hundred thousand unknown codes) a fifth of a second of a core per app, where a test's app holds a
    // few thousand at most. A test of the bounds sets its own.
    CACHE_MAX_ENTRIES: '10000',
    NEGATIVE_MAX_ENTRIES: '10000',
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  /** A pool of the test's own on the app's database, for what the test reads or writes itself. */
  pool: pg.Pool;
  config: Config;
  lifecycle: Lifecycle;
}

/** A test context (`t`), or an object collecting clean-ups for an app shared by a whole file. */
export interface Cleanup {
  after(fn: () => Promise<void>): void;
}

export interface StartOptions {
  /** A window between the app and its pool (a gate that holds a statement, a recorder). */
  wrapDb?: (db: Queryable) => Queryable;
  /** Where the app logs (see logs.ts); silent unless TEST_LOG_LEVEL says otherwise. */
  log?: Logger;
  /** Instead of the app's parts (a test may add one of its own after them). */
  parts?: readonly AppPart[];
  /**
   * 'sockets' (the default): app.inject() of a redirect goes over a real connection, through the
   * fast path (redirects-over-sockets.ts). 'fastify': Fastify's inject() for everything, for tests
   * of what requests made in one event-loop turn share (batches, single-flight) and of inject itself.
   */
  redirects?: 'sockets' | 'fastify';
}

/** The app on `databaseUrl` (migrated already), closed after the test. */
export async function startApp(
  t: Cleanup,
  databaseUrl: string,
  env: Record<string, string> = {},
  { wrapDb, parts, redirects = 'sockets', log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }) }: StartOptions = {},
): Promise<TestApp> {
  const config = testConfig(databaseUrl, env);
  const lifecycle: Lifecycle = { draining: false };
  const app = await buildApp({
    config,
    log,
    lifecycle,
    ...(wrapDb === undefined ? {} : { wrapDb }),
    ...(parts === undefined ? {} : { parts }),
  });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const closeSockets = redirects === 'sockets' ? await redirectsOverSockets(app) : async () => {};
  t.after(async () => {
    await closeSockets();
    await closeApp(app);
    await pool.end();
  });
  return { app, pool, config, lifecycle };
}

/**
 * app.close() as the service drains (src/process/serve.ts): each connection is closed as soon as it
 * is idle. close() closes the connections idle at that moment only; one whose request was in flight
 * then (a browser's fetch as a test ends) would stay open, and hold close(), until
 * KEEP_ALIVE_TIMEOUT_MS (72 s) after its answer.
 */
export async function closeApp(app: FastifyInstance): Promise<void> {
  const sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
  try {
    await app.close();
  } finally {
    clearInterval(sweeper);
  }
}

/**
 * The app on `databaseUrl`, and the lookups its resolver sent to the Postgres primary: its own
 * count, the one `/metrics` exports (shortener_postgres_batch_size_count), whatever the SQL says.
 */
export async function startCountedApp(t: Cleanup, databaseUrl: string, env: Record<string, string> = {}, options: StartOptions = {}) {
  const started = await startApp(t, databaseUrl, env, options);
  const counts = started.app.lookupCounts;
  if (counts === null) throw new Error('startCountedApp needs METRICS_ENABLED: the lookups are counted by the metrics');
  return { ...started, lookups: () => counts.postgresBatches };
}

/** What the app answers for a code: status and location. */
export async function getRedirect(app: FastifyInstance, code: string) {
  const res = await app.inject({ url: `/${code}` });
  return { status: res.statusCode, location: res.headers.location };
}

const helperKeys = new WeakMap<FastifyInstance, Promise<string>>();

/** An admin key of the default workspace on `app`'s database, made once per app. */
function helperKeyOf(app: FastifyInstance): Promise<string> {
  let key = helperKeys.get(app);
  if (key === undefined) {
    key = createApiKey(app.db, { name: 'test helper', role: 'admin' }).then((created) => created.secret);
    helperKeys.set(app, key);
  }
  return key;
}

/**
 * POST /links. Plain links are created without a key (testConfig lets them); a link with options
 * or on a named domain takes one (403 ANONYMOUS_CREATE_LIMITED otherwise), so it is sent with an
 * admin key of the default workspace, the workspace anonymous links land in.
 */
export async function createLink(app: FastifyInstance, body: Record<string, unknown>) {
  const keyed = (body.options !== undefined && body.options !== null) || body.domain !== undefined;
  const headers = keyed ? { authorization: `Bearer ${await helperKeyOf(app)}` } : {};
  const res = await app.inject({ method: 'POST', url: '/links', payload: body, headers });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
}

/** The Authorization header of an API key. */
export function bearer(key: { readonly secret: string }): { authorization: string } {
  return { authorization: `Bearer ${key.secret}` };
}

/** The error of an answer (`{"error": {code, message}}`), or undefined. */
export function errorOf(res: { json: () => unknown }): { code: string; message: string } | undefined {
  return (res.json() as { error?: { code: string; message: string } }).error;
}

export function errorCode(res: { json: () => unknown }): string | undefined {
  return errorOf(res)?.code;
}

/** Redirect requests of `app` that missed its LRU: each was handed to the resolver there and then. */
export function lruMisses(app: FastifyInstance): number {
  return app.redirectCounts?.lru[1] ?? Number.NaN;
}

/** The link `code` names on the default domain, as the management functions take it. */
export function onDefault(code: string): LinkRef {
  return { domainId: DEFAULT_DOMAIN_ID, code: code as ShortCode };
}
