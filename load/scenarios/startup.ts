// How long the service takes from the spawn of its process to a 200 from GET /readyz, started as
// `npm start` starts it: on the embedded engine (a fresh data folder, which the first start creates
// and migrates: a newcomer's `npm ci && npm start`) and on Postgres (a scratch database, migrated
// by the first start; then restarted --rounds times, as every deploy restarts it). Each engine starts with a
// compile cache folder of its own, empty at its first start. Issue 39's bars: the embedded engine's
// first start ≤ 3 s, Postgres's restarts ≤ 1.5 s (their median).
//
//   DATABASE_URL=postgres://… npm run load -- --scenario startup

import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../context.ts';
import { prepareDatabase } from '../databases.ts';
import { LoadError, ONLY_LOCAL, type OnItsOwn } from '../scenario.ts';
import { notApplicable, quietRun, type Target } from '../targets.ts';
import type { RunResult, StartupFigures } from '../types.ts';
import { median } from '../percentiles.ts';
import { fmtSeconds } from '../report/format.ts';

/** A start slower than this is stuck, not slow. */
const START_TIMEOUT_MS = 60_000;
const POLL_MS = 10;

const EMBEDDED_FIRST_START_GOAL_S = 3;
const POSTGRES_RESTART_GOAL_S = 1.5;

export const startup: OnItsOwn = {
  name: 'startup',
  needs: ['processes'],
  targets: [
    startTarget(
      `startup: embedded engine, first start ≤ ${EMBEDDED_FIRST_START_GOAL_S} s`,
      'startup · embedded',
      'first',
      EMBEDDED_FIRST_START_GOAL_S,
    ),
    startTarget(
      `startup: Postgres, restart ≤ ${POSTGRES_RESTART_GOAL_S} s (median)`,
      'startup · postgres',
      'restart',
      POSTGRES_RESTART_GOAL_S,
    ),
  ],
  minutes: () => 2,
  async run(context) {
    if (!context.setup.local) return [context.skip('startup', 'startup · embedded', ONLY_LOCAL)];
    const { processes, options } = context;
    const embedded = await starts(context, 'startup · embedded', {
      EMBEDDED_DATA_DIR: join(processes.scratch, 'startup-embedded'),
      NODE_ENV: 'development',
    });
    if (process.env.DATABASE_URL === undefined && options.databaseCpus === null)
      return [embedded, context.skip('startup', 'startup · postgres', 'needs DATABASE_URL (or --database-cpus)')];
    const database = await prepareDatabase(processes, options.databaseCpus, 'unused', { migrated: false });
    return [embedded, await starts(context, 'startup · postgres', database.env)];
  },
};

/** The first start on `env`'s data, then --rounds more (the restarts, whose median is judged), each stopped once ready. */
async function starts(context: Context, label: string, env: Record<string, string>): Promise<RunResult> {
  const cache = join(context.processes.scratch, `compile-cache-${label.replace(/\W+/g, '-')}`);
  const first = await readyAfter(context, { ...env, NODE_COMPILE_CACHE: cache });
  const restarts: number[] = [];
  for (let i = 0; i < context.options.rounds; i++) restarts.push(await readyAfter(context, { ...env, NODE_COMPILE_CACHE: cache }));
  const figures: StartupFigures = { firstMs: first, restartsMs: restarts };
  context.log(`${label}: ready ${fmtSeconds(first)} after the first spawn, then ${restarts.map(fmtSeconds).join(', ')}`);
  return quietRun('startup', label, { startup: figures });
}

/**
 * Milliseconds from the spawn of one service process (launched as the suite launches every server)
 * until its /readyz answers 200; it is then stopped.
 */
async function readyAfter(context: Context, env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const server = await context.processes.launch(env);
  try {
    // Listening is not yet ready: /readyz also asks Postgres.
    while (!(await ready(server.url))) {
      if (performance.now() - started > START_TIMEOUT_MS)
        throw new LoadError(`the service was not ready ${START_TIMEOUT_MS / 1000} s after its spawn`);
      await sleep(POLL_MS);
    }
    return performance.now() - started;
  } finally {
    await context.processes.stop(server);
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Judges the first start, or the median of the restarts, of the run `label` against `goalS` seconds. */
export function startTarget(name: string, label: string, which: 'first' | 'restart', goalS: number): Target {
  return (runs) => {
    const run = runs.find(label);
    if (run === undefined) return notApplicable(name, `the run "${label}" did not happen`);
    if (run.skipped !== undefined) return notApplicable(name, run.skipped);
    if (run.startup === undefined) return notApplicable(name, `the run "${label}" has no start-up figures`);
    const ms = which === 'first' ? run.startup.firstMs : median(run.startup.restartsMs);
    return { name, value: fmtSeconds(ms), verdict: ms <= goalS * 1000 ? 'PASS' : 'MISS' };
  };
}
