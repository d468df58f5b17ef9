// How long the service takes from the spawn of its process to a 200 from GET /readyz, started as
// `npm start` starts it after what `npm ci` readies (scripts/prepare.ts: the compile cache and the
// embedded engine's template, timed apart). On each engine, --rounds first starts, each on fresh data
// after a prepare of its own (a newcomer's `npm ci && npm start`: the embedded engine copies and
// migrates a new data folder; Postgres migrates a new scratch database), then --rounds restarts, as
// every deploy restarts it. Issue 39's bars, on the medians: the embedded engine's first start
// ≤ 3 s, Postgres's restarts ≤ 1.5 s.
//
//   DATABASE_URL=postgres://… npm run load -- --scenario startup

import { spawn } from 'node:child_process';
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
  minutes: (options) => 1 + options.rounds / 2,
  async run(context) {
    if (!context.setup.local) return [context.skip('startup', 'startup · embedded', ONLY_LOCAL)];
    const { processes, options } = context;
    const embedded = await starts(context, 'startup · embedded', async (i) => ({
      EMBEDDED_DATA_DIR: join(processes.scratch, `startup-embedded-${i}`),
      NODE_ENV: 'development',
    }));
    if (process.env.DATABASE_URL === undefined && options.databaseCpus === null)
      return [embedded, context.skip('startup', 'startup · postgres', 'needs DATABASE_URL (or --database-cpus)')];
    const postgres = await starts(
      context,
      'startup · postgres',
      async () => (await prepareDatabase(processes, options.databaseCpus, 'unused', { migrated: false })).env,
    );
    return [embedded, postgres];
  },
};

/**
 * --rounds first starts, each on fresh data after its own npm ci's prepare (a compile cache of its
 * own), as many newcomers would start it; then --rounds restarts on what the last one
 * left. Each start is stopped once ready; the medians are judged.
 */
async function starts(context: Context, label: string, freshData: (round: number) => Promise<Record<string, string>>): Promise<RunResult> {
  const prepareMs: number[] = [];
  const firstMs: number[] = [];
  let env: Record<string, string> = {};
  for (let i = 0; i < context.options.rounds; i++) {
    const folder = (what: string): string => join(context.processes.scratch, `${what}-${label.replace(/\W+/g, '-')}-${i}`);
    // The template is the same for every install of this PGlite: made by the first prepare, found by the others.
    env = {
      ...(await freshData(i)),
      NODE_COMPILE_CACHE: folder('compile-cache'),
      EMBEDDED_TEMPLATE_DIR: join(context.processes.scratch, 'templates'),
    };
    prepareMs.push(await prepare(env));
    firstMs.push(await readyAfter(context, env));
  }
  const restartsMs: number[] = [];
  for (let i = 0; i < context.options.rounds; i++) restartsMs.push(await readyAfter(context, env));
  const figures: StartupFigures = { prepareMs, firstMs, restartsMs };
  context.log(
    `${label}: prepared in ${prepareMs.map(fmtSeconds).join(', ')}; first starts ready ${firstMs.map(fmtSeconds).join(', ')} ` +
      `after the spawn; restarts ${restartsMs.map(fmtSeconds).join(', ')}`,
  );
  return quietRun('startup', label, { startup: figures });
}

/** Milliseconds that scripts/prepare.ts takes, run as `npm ci` runs it (no pinning: it is not judged). */
async function prepare(env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [new URL('../../scripts/prepare.ts', import.meta.url).pathname], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  // The prepare script says what it could not make and goes on; here that would time a start it did not prepare.
  if (code !== 0 || said !== '') throw new LoadError(`scripts/prepare.ts exited with ${code}: ${said}`);
  return performance.now() - started;
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

/** Judges the median of the first starts, or of the restarts, of the run `label` against `goalS` seconds. */
export function startTarget(name: string, label: string, which: 'first' | 'restart', goalS: number): Target {
  return (runs) => {
    const run = runs.find(label);
    if (run === undefined) return notApplicable(name, `the run "${label}" did not happen`);
    if (run.skipped !== undefined) return notApplicable(name, run.skipped);
    if (run.startup === undefined) return notApplicable(name, `the run "${label}" has no start-up figures`);
    const ms = median(which === 'first' ? run.startup.firstMs : run.startup.restartsMs);
    return { name, value: fmtSeconds(ms), verdict: ms <= goalS * 1000 ? 'PASS' : 'MISS' };
  };
}
