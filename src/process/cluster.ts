// Cluster mode (WORKERS > 1, for a machine without an orchestrator): this primary migrates once and
// forks the workers, each running src/process/serve.ts on one shared listening socket. It replaces
// a worker that dies, with a back-off so that a crash loop idles, and on SIGTERM/SIGINT drains them
// all; it exits 0 only if every worker did. Timings and exit codes: docs/architecture.md#cluster-mode.

import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { migrate } from '../db/migrate.ts';

/** Replacement delay after a death: doubles with each death in the last minute, so a crash loop idles. */
const RESTART_BASE_MS = 250;
const RESTART_MAX_MS = 30_000;
const CRASH_WINDOW_MS = 60_000;
/** Past the workers' own SHUTDOWN_GRACE_MS (after which they exit 1 themselves): time for that exit to arrive. */
const EXIT_MARGIN_MS = 2000;

export function restartDelayMs(recentDeaths: number): number {
  return Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** Math.max(0, recentDeaths - 1));
}

/** Runs the workers until a signal has drained them all; resolves with the exit code. */
export async function runPrimary(config: Config, log: Logger): Promise<number> {
  // config.ts refuses cluster mode without DATABASE_URL: PGlite is a single session.
  const databaseUrl = config.databaseUrl ?? '';
  try {
    // Once, here, rather than n workers queueing on the advisory lock.
    await migrate(databaseUrl, log);
  } catch (err) {
    log.fatal({ err }, 'cannot start');
    return 1;
  }
  const exited = Promise.withResolvers<number>();

  if (config.redisUrl === undefined && config.redisClusterUrls.length === 0) {
    log.warn(
      { workers: config.workers },
      'no Redis: each worker caches on its own, and a change made through one is not seen by the others until their cache TTLs end',
    );
  }

  let phase: 'starting' | 'serving' | 'stopping' = 'starting';
  const live = new Set<Worker>();
  const restarts = new Set<NodeJS.Timeout>();
  let deaths: number[] = [];
  const listening = new Set<number>();
  let failed = false;

  const fork = () => live.add(cluster.fork());

  cluster.on('listening', (worker) => {
    if (phase !== 'starting') return;
    listening.add(worker.id); // by id: a worker listening on several addresses counts once
    if (listening.size < config.workers) return;
    phase = 'serving';
    log.info({ workers: config.workers, pids: [...live].map((w) => w.process.pid) }, 'every worker is listening');
  });

  cluster.on('exit', (worker, code, signal) => {
    live.delete(worker);
    const fields = { worker: worker.id, workerPid: worker.process.pid, code, signal };
    if (phase === 'stopping') {
      if (code !== 0) failed = true;
      log.info(fields, 'worker exited');
      if (live.size === 0) finish();
      return;
    }
    if (phase === 'starting') {
      // As with WORKERS=1: a service that cannot start exits rather than retrying forever.
      log.fatal(fields, 'a worker died during start-up: stopping');
      failed = true;
      stop('start-up failure');
      return;
    }
    const now = Date.now();
    deaths = deaths.filter((t) => now - t < CRASH_WINDOW_MS);
    deaths.push(now);
    const delayMs = restartDelayMs(deaths.length);
    log.error({ ...fields, restartInMs: delayMs, deathsLastMinute: deaths.length }, 'worker died: replacing it');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (phase === 'serving') fork();
    }, delayMs);
    restarts.add(timer);
  });

  function stop(reason: string): void {
    if (phase === 'stopping') return;
    phase = 'stopping';
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    log.info({ reason, workers: live.size, graceMs: config.shutdownGraceMs }, 'shutting down: every worker drains');
    if (live.size === 0) return finish();
    // Each worker runs its own graceful shutdown on the signal (it ignores a second one).
    for (const worker of live) worker.process.kill('SIGTERM');
    setTimeout(() => {
      const pids = [...live].map((w) => w.process.pid);
      log.error({ pids }, 'grace period over with workers still draining: killing them');
      for (const worker of live) worker.process.kill('SIGKILL');
      exited.resolve(1);
    }, config.shutdownGraceMs + EXIT_MARGIN_MS);
  }

  function finish(): void {
    if (failed) log.error('shut down, but not every worker drained cleanly');
    else log.info('shut down cleanly');
    exited.resolve(failed ? 1 : 0);
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stop(signal));
  for (let i = 0; i < config.workers; i++) fork();
  return exited.promise;
}
