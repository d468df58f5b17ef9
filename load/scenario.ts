// What a scenario of the load suite is: its name, what it needs, what its runs must answer, the
// targets it is judged on, and how it runs. The runner (load/run.ts) starts what the chosen
// scenarios need once, runs them in the order of load/scenarios/index.ts, and judges every target.

import type { Context, Ground } from './context.ts';
import type { Variant } from './measure.ts';
import type { Target } from './targets.ts';
import type { RunResult } from './types.ts';

/**
 * What a scenario needs. The runner acts on the first four: it starts the main service before the
 * first scenario that needs it or its links and stops it once no scenario left needs it up, keeps
 * the servers of the redirect rounds up while a scenario left needs them, and lets wrk drive the
 * scenario's runs when it is installed. The others the scenario looks for itself: without one, it
 * skips its runs and says why.
 */
export type Resource =
  /** The main service up beside its runs, seeded with --links links through POST /links (or the deployment of --url). */
  | 'service'
  /** Those seeded links and their database, the main service stopped: its own services open that database. */
  | 'links'
  /** The servers that the redirect rounds started (the baseline, the FAST_PATH=false service), still up. */
  | 'rounds'
  /** wrk drives its runs when it is installed (plain GETs at full speed); autocannon otherwise. */
  | 'wrk'
  /** Servers of its own: not with --url. */
  | 'processes'
  /** A Postgres that several processes open at once (DATABASE_URL, or --database-cpus): not the embedded engine. */
  | 'postgres'
  /** A Redis (REDIS_URL or --redis-url). */
  | 'redis'
  /** Go and Debian's fasthttp source, to build the reference server. */
  | 'go'
  /** The checkout of --against, when it is given: its service in the same rounds as this one's. */
  | 'against';

/** A resource, or another scenario whose runs it reads: that one runs too, before it (latency is offered half of hot's rate). */
export type Need = Resource | Scenario;

interface About {
  /** Its name for --scenario, and the `scenario` of its runs. */
  readonly name: string;
  readonly needs: readonly Need[] | ((ground: Ground) => readonly Need[]);
  /** The statuses its runs must answer; a run with another (or a connection error) is not a valid figure. Absent: any. */
  readonly answers?: readonly string[];
  readonly targets?: readonly Target[];
  /** Settings it needs the main service started with, besides its own. */
  readonly serviceSettings?: Readonly<Record<string, string>>;
  /** Minutes it may add to the suite's bound (load/run.ts), for these options. */
  readonly minutes?: (options: Context['options']) => number;
}

/** A scenario measured on its own: its runs, in order. */
export interface OnItsOwn extends About {
  run(context: Context): Promise<RunResult[]>;
}

/**
 * A scenario of the redirect rounds: its variants are measured in alternating rounds with those of
 * every other such scenario chosen (load/measure.ts compare()), so that their ratios are read on
 * the same machine at the same time.
 */
export interface InRounds extends About {
  rounds(context: Context): Promise<RoundsPart>;
}

export type Scenario = OnItsOwn | InRounds;

/** What a scenario brings to the redirect rounds: its variants, and the runs it cannot make (skipped, saying why). */
export interface RoundsPart {
  readonly variants: readonly Variant[];
  readonly skipped: readonly RunResult[];
}

/** Variants for the rounds. */
export function inRounds(...variants: Variant[]): RoundsPart {
  return { variants, skipped: [] };
}

/** Nothing for the rounds: why, as skipped runs. */
export function skippedInRounds(...runs: RunResult[]): RoundsPart {
  return { variants: [], skipped: runs };
}

export function needsOf(scenario: Scenario, ground: Ground): readonly Need[] {
  return typeof scenario.needs === 'function' ? scenario.needs(ground) : scenario.needs;
}

export function isInRounds(scenario: Scenario): scenario is InRounds {
  return 'rounds' in scenario;
}

/** Why a run that needs servers of the suite's own is skipped with --url. */
export const ONLY_LOCAL = 'needs local processes (not with --url)';

/** A failure the suite explains in one line (a server that misbehaved, a probe that failed). */
export class LoadError extends Error {}
