// Builds the real app on a real Postgres database for one test file.

import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import type { Queryable } from '../../src/db/pool.ts';
import type { Lifecycle } from '../../src/http/health.ts';
import { countingDb } from './db.ts';

export const TEST_BASE_URL = 'https://sho.rt';

/**
 * The service's defaults, but no 404 budget and no create limits: every request of a test comes
 * from one address (test/not-found-limit and test/rate-limits turn them on).
 */
export function testConfig(databaseUrl: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    BASE_URL: TEST_BASE_URL,
    NOT_FOUND_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_ENABLED: 'false',
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  pool: pg.Pool;
  config: Config;
  lifecycle: Lifecycle;
}

/** A test context (`t`), or an object collecting clean-ups for an app shared by a whole file. */
export interface Cleanup {
  after(fn: () => Promise<void>): void;
}

/**
 * The app on `databaseUrl`, closed after the test. `wrap` may put a window (a query counter, a
 * gate) between the app and the real pool; `log` may keep what is logged (see logs.ts).
 */
export async function startApp(
  t: Cleanup,
  databaseUrl: string,
  env: Record<string, string> = {},
  wrap: (db: Queryable) => Queryable = (db) => db,
  log: Logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
): Promise<TestApp> {
  const config = testConfig(databaseUrl, env);
  const pool = createPool(databaseUrl, config, log);
  const lifecycle: Lifecycle = { draining: false };
  const app = await buildApp({ config, db: wrap(pool), log, lifecycle });
  t.after(async () => {
    await app.close();
    await pool.end();
  });
  return { app, pool, config, lifecycle };
}

/** The app on `databaseUrl`, with its lookups of links by code (not its other statements) counted. */
export async function startCountedApp(t: Cleanup, databaseUrl: string, env: Record<string, string> = {}) {
  let statements: string[] = [];
  const started = await startApp(t, databaseUrl, env, (db) => {
    const counted = countingDb(db);
    statements = counted.statements;
    return counted.db;
  });
  const lookups = () => statements.filter((sql) => sql.includes('FROM links WHERE code = ANY')).length;
  return { ...started, lookups };
}

/** What the app answers for a code: status and location. */
export async function getRedirect(app: FastifyInstance, code: string) {
  const res = await app.inject({ url: `/${code}` });
  return { status: res.statusCode, location: res.headers.location };
}

export async function createLink(app: FastifyInstance, body: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: '/links', payload: body });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
}
