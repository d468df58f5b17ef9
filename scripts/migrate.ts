// `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded engine) and exits.

import { ConfigError, loadConfig } from '../src/config/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { createLogger } from '../src/process/logger.ts';
import { migrate } from '../src/db/migrate.ts';

try {
  const config = loadConfig();
  const log = createLogger(config);
  const database = await openDatabase(config, log);
  try {
    const applied = await migrate(database.url, log);
    log.info({ applied: applied.length }, applied.length === 0 ? 'database is up to date' : 'migrations applied');
  } finally {
    await database.stop();
  }
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exitCode = err instanceof ConfigError ? 78 : 1;
}
