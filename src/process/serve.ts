// One serving process: build the app (app.ts), listen, and drain on SIGTERM/SIGINT. It is the
// whole service when WORKERS=1, and each worker's body in cluster mode. Draining: /readyz fails
// for READINESS_DRAIN_MS, then app.close() stops accepting, serves what is in flight or arrives on
// open connections, closes each connection once idle, and closes the parts; past
// SHUTDOWN_GRACE_MS the process exits 1.

import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { buildApp } from '../app.ts';
import type { Config } from '../config/config.ts';
import type { Lifecycle } from '../part.ts';

export interface ServeOptions {
  /** false in a cluster worker: the primary migrated once before forking. */
  readonly migrate: boolean;
}

/** Serves until a signal has drained the process; resolves with the exit code (1: it could not start, or drain in time). */
export async function serve(config: Config, log: Logger, options: ServeOptions): Promise<number> {
  const lifecycle: Lifecycle = { draining: false };
  let app: FastifyInstance | undefined;
  try {
    app = await buildApp({ config, log, lifecycle, migrate: options.migrate });
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    log.fatal({ err }, 'cannot start');
    await app?.close().catch(() => {});
    return 1;
  }
  const started = app;
  return new Promise((exit) => {
    let closing = false;
    const onSignal = (signal: string) => {
      // In cluster mode a worker may get the signal twice (from its process group and from the primary).
      if (closing) return;
      closing = true;
      const deadline = setTimeout(() => {
        log.error('grace period over before the drain finished: exiting');
        exit(1);
      }, config.shutdownGraceMs);
      deadline.unref();
      drain(started, config, log, lifecycle, signal).then(
        () => exit(0),
        (err: unknown) => {
          log.error({ err }, 'shutdown failed');
          exit(1);
        },
      );
    };
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, onSignal);
  });
}

async function drain(app: FastifyInstance, config: Config, log: Logger, lifecycle: Lifecycle, signal: string): Promise<void> {
  log.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down: readiness fails, then draining');
  lifecycle.draining = true;
  if (config.readinessDrainMs > 0) await sleep(config.readinessDrainMs);
  // A keep-alive connection whose request was in flight at close() would otherwise stay open
  // until KEEP_ALIVE_TIMEOUT_MS after its response; close each one as soon as it is idle.
  const sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
  try {
    // Stops accepting, finishes in-flight requests, drains the write queue, then closes every part.
    await app.close();
  } finally {
    clearInterval(sweeper);
  }
  log.info('shut down cleanly');
}
