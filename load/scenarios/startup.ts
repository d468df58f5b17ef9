// How long the service takes from the spawn of its process to a 200 from GET /readyz, started as
// `npm start` starts it: on the embedded engine (a fresh data folder, which the first start creates
// and migrates: a newcomer's `npm ci && npm start`) and on Postgres (a scratch database, migrated
// by the first start; then restarted --rounds times, as every deploy restarts it). Each engine starts with a
// compile cache folder of its own, empty at its first start. Issue 39's bars: the embedded engine's
// first start ≤ 3 s, Postgres's restarts ≤ 1.5 s (their median).
//
//   DATABASE_URL=postgres://… npm run load -- --scenario startup

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../test/helpers/redis.ts';
import type { Context } from '../context.ts';
import { prepareDatabase } from '../databases.ts';
import { LOAD_CODE_SECRET, loadScript, SERVICE_NODE_OPTIONS } from '../processes.ts';
import { LoadError, ONLY_LOCAL, type OnItsOwn } from '../scenario.ts';
import { notApplicable, quietRun, type Target } from '../targets.ts';
import type { RunResult, StartupFigures } from '../types.ts';
import { median } from '../percentiles.ts';

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

/** Milliseconds from the spawn of one service process until its /readyz answers 200; it is then stopped. */
async function readyAfter(context: Context, env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const flags = SERVICE_NODE_OPTIONS === '' ? [] : SERVICE_NODE_OPTIONS.split(' ');
  const command = [...context.setup.serverPrefix, process.execPath, ...flags, loadScript('../src/process/main.ts')];
  const [file, ...args] = [command[0] ?? process.execPath, ...command.slice(1)];
  const started = performance.now();
  const child = spawn(file, args, {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CODE_SECRET: LOAD_CODE_SECRET,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  try {
    for (;;) {
      if (exited) throw new LoadError(`the service exited before it was ready: ${stderr.trim().slice(-500)}`);
      if (performance.now() - started > START_TIMEOUT_MS)
        throw new LoadError(`the service was not ready after ${START_TIMEOUT_MS / 1000} s`);
      if (await ready(port)) return performance.now() - started;
      await sleep(POLL_MS);
    }
  } finally {
    child.kill('SIGTERM');
    await exit;
  }
}

async function ready(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Seconds, to two decimals. */
const fmtSeconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

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
