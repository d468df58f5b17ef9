// Where Postgres comes from: DATABASE_URL, or the embedded engine when it is unset.

import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { EMBEDDED_MAX_CONNECTIONS, startEmbeddedPostgres } from './db/embedded.ts';

export interface DatabaseTarget {
  readonly url: string;
  readonly poolMax: number;
  stop(): Promise<void>;
}

export async function openDatabase(config: Config, log: Logger): Promise<DatabaseTarget> {
  if (config.databaseUrl !== undefined) {
    return { url: config.databaseUrl, poolMax: config.dbPoolMax, stop: async () => {} };
  }
  const embedded = await startEmbeddedPostgres(config.embeddedDataDir);
  log.warn(
    { dataDir: config.embeddedDataDir },
    'DATABASE_URL is unset: running on the embedded Postgres engine (PGlite), for development and trials only',
  );
  // PGlite runs one statement at a time; more connections would only queue inside it.
  return { url: embedded.url, poolMax: Math.min(config.dbPoolMax, EMBEDDED_MAX_CONNECTIONS - 1), stop: () => embedded.stop() };
}
