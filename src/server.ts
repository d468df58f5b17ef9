// The process: config, database, migrations, listen, and a graceful close on SIGTERM/SIGINT.
// Run `node src/server.ts` directly (not through npm or a shell) so that the signal reaches it.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { ConfigError, DEV_CODE_SECRET, loadConfig, type Config } from './config.ts';
import { openDatabase } from './database.ts';
import { migrate } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import type { Lifecycle } from './http/health.ts';
import { createLogger } from './logger.ts';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return process.exit(78); // EX_CONFIG
  }
}

async function start(config: Config, log: Logger, lifecycle: Lifecycle) {
  const database = await openDatabase(config, log);
  await migrate(database.url, log);
  const pool = createPool(database.url, { ...config, dbPoolMax: database.poolMax }, log);
  const app = await buildApp({ config, db: pool, log, lifecycle });
  await app.listen({ port: config.port, host: config.host });
  return { app, pool, database };
}

const config = readConfig();
const log = createLogger(config.logLevel);
if (config.codeSecret === DEV_CODE_SECRET) {
  log.warn('CODE_SECRET is the development default: set your own so that codes cannot be predicted');
}
const lifecycle: Lifecycle = { draining: false };
const service = await start(config, log, lifecycle).catch((err: unknown) => {
  log.fatal({ err }, 'cannot start');
  process.exit(1);
});

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: readiness fails, then draining');
  const deadline = setTimeout(() => {
    log.error('grace period over before the drain finished: exiting');
    process.exit(1);
  }, config.shutdownGraceMs);
  deadline.unref();
  lifecycle.draining = true;
  if (config.readinessDrainMs > 0) await sleep(config.readinessDrainMs);
  // A keep-alive connection whose request was in flight at close() would otherwise stay open
  // until KEEP_ALIVE_TIMEOUT_MS after its response; close each one as soon as it is idle.
  const sweeper = setInterval(() => service.app.server.closeIdleConnections(), 50);
  await service.app.close(); // stops accepting, finishes in-flight requests, flushes the write queue
  clearInterval(sweeper);
  await service.pool.end();
  await service.database.stop();
  log.info('shut down cleanly');
  process.exit(0);
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    shutdown(signal).catch((err: unknown) => {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  });
}
