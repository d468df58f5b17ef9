// Where Postgres comes from: DATABASE_URL, or the embedded engine when it is unset.

import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';

export interface DatabaseTarget {
  readonly url: string;
  readonly poolMax: number;
  stop(): Promise<void>;
}

export async function openDatabase(config: Config, log: Logger): Promise<DatabaseTarget> {
  if (config.databaseUrl !== undefined) {
    return { url: config.databaseUrl, poolMax: config.dbPoolMax, stop: async () => {} };
  }
  // Loaded only here: PGlite and its socket server are no part of a process on Postgres.
  const { startEmbeddedPostgres } = await import('./embedded.ts');
  const embedded = await startEmbeddedPostgres(config.embeddedDataDir, config.embeddedTemplateDir, (err) =>
    log.warn({ err, templateDir: config.embeddedTemplateDir }, 'the embedded template cannot be made or copied: initdb runs instead'),
  );
  log.warn(
    { dataDir: config.embeddedDataDir, dataFrom: embedded.dataFrom },
    'DATABASE_URL is unset: running on the embedded Postgres engine (PGlite), for development and trials only',
  );
  // PGlite is one session: its socket server interleaves connections per protocol message, so
  // one pooled connection keeps every statement whole. Creates are batched anyway.
  return { url: embedded.url, poolMax: 1, stop: () => embedded.stop() };
}
