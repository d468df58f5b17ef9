// One serving process: database, migrations, listen, and a graceful close on SIGTERM/SIGINT.
// It is the whole service when WORKERS=1, and each worker's body in cluster mode.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openDatabase } from './database.ts';
import { migrate } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import type { Lifecycle } from './http/health.ts';

export interface ServeOptions {
  /** false in a cluster worker: the primary migrated once before forking. */
  readonly migrate: boolean;
}

async function start(config: Config, log: Logger, lifecycle: Lifecycle, options: ServeOptions) {
  const database = await openDatabase(config, log);
  if (options.migrate) await migrate(database.url, log);
  const pool = createPool(database.url, { ...config, dbPoolMax: database.poolMax }, log);
  const app = await buildApp({ config, db: pool, log, lifecycle });
  await app.listen({ port: config.port, host: config.host });
  return { app, pool, database };
}

export async function serve(config: Config, log: Logger, options: ServeOptions): Promise<void> {
  const lifecycle: Lifecycle = { draining: false };
  const service = await start(config, log, lifecycle, options).catch((err: unknown) => {
    log.fatal({ err }, 'cannot start');
    process.exit(1);
  });

  let closing = false;
  async function shutdown(signal: string): Promise<void> {
    // Idempotent: in cluster mode a worker may get the signal twice (from its process group and from the primary).
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
}
