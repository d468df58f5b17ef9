// What every scenario is handed (load/scenario.ts): the options, what the run was set up with (the
// load generator, where each side runs), the processes it may start, the main service once it is
// up, the servers the redirect rounds keep up, the runs so far, and the log. One object, passed in.

import type { ServerProcess } from '../test/helpers/server-process.ts';
import type { Options } from './options.ts';
import type { Processes } from './processes.ts';
import type { Request } from 'autocannon';
import type { Prepared, PreparedRedis } from './databases.ts';
import { quietRun } from './targets.ts';
import type { RunResult } from './types.ts';
import type { Wrk } from './wrk.ts';

/** What the needs may depend on, known before anything starts. */
export interface Ground {
  /** The database can be opened by several processes at once (not the embedded engine, not --url). */
  readonly sharedDatabase: boolean;
}

export interface Service {
  /** Its process; null with --url (the deployment's). */
  readonly main: ServerProcess | null;
  readonly url: string;
  /** null with --url. */
  readonly database: Prepared | null;
  readonly redis: PreparedRedis | null;
  /** [code, url] of each seeded link. */
  readonly links: readonly (readonly [string, string])[];
  readonly codes: readonly string[];
  /** The hot traffic: a Zipf draw over the seeded codes. */
  readonly hotPaths: readonly Request[];
  /** Asks for every link once (the first time only), so that all of them are in the LRU before a hot run. */
  warm(): Promise<void>;
}

/** A service with every link in its LRU, and the hot traffic over its links. */
export interface Seeded {
  readonly server: ServerProcess;
  readonly paths: readonly Request[];
}

export interface Setup extends Ground {
  /** Servers of the suite's own (not --url). */
  readonly local: boolean;
  /** What every server runs under: `taskset -c` --server-cpus, or nothing. */
  readonly serverPrefix: readonly string[];
  /** The load generator's CPUs: this process's (autocannon runs in it), and wrk is pinned to the same. */
  readonly generatorCpus: readonly number[] | null;
  readonly cluster: ClusterPlacement;
  readonly wrk: Wrk | null;
  /** The scenarios that wrk drives when it is there. */
  readonly wrkDrives: readonly string[];
  /** Which generator drives which runs, and where each side runs: for the log and the report. */
  readonly generatorNote: string;
  readonly cpusNote: string;
}

/** Where the two workers of the cluster run; informational (no verdict) when they share the load generator's CPU, or nothing is pinned. */
export interface ClusterPlacement {
  readonly cpus: number[] | null;
  readonly informational?: string;
}

/** Servers that the redirect rounds started, kept up until no scenario left needs them ('rounds'). */
export interface RoundServers {
  readonly all: ServerProcess[];
  /** The baseline's, which not-found and latency measure again at their own traffic. */
  baseline?: ServerProcess;
  /** The FAST_PATH=false service, which latency measures again at the hot run's half rate. */
  slow?: Seeded;
}

export class Context {
  readonly options: Options;
  readonly setup: Setup;
  readonly processes: Processes;
  readonly started = new Date();
  /** Every run so far, in order: what the report lists. */
  readonly runs: RunResult[] = [];
  readonly rounds: RoundServers = { all: [] };
  #service: Service | undefined;

  constructor(options: Options, setup: Setup, processes: Processes) {
    this.options = options;
    this.setup = setup;
    this.processes = processes;
  }

  /** The main service: the runner starts it before the first scenario that needs it or its links. */
  get service(): Service {
    if (this.#service === undefined) throw new Error('no main service: the scenario does not say that it needs it');
    return this.#service;
  }

  get serviceIfStarted(): Service | undefined {
    return this.#service;
  }

  serve(service: Service): void {
    this.#service = service;
  }

  readonly log = (line: string): void => {
    console.error(`[${((Date.now() - this.started.getTime()) / 1000).toFixed(0).padStart(3)} s] ${line}`);
  };

  /** Logs a run as it is measured. */
  readonly record = (run: RunResult): RunResult => {
    const statuses = Object.entries(run.statuses)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    this.log(
      `${run.label}: ${run.rps.toLocaleString('en-US')} req/s, p99 ${run.latency.p99} ms, ${statuses}` +
        (run.errors > 0 ? `, ${run.errors} errors` : ''),
    );
    return run;
  };

  /** A run that cannot be made here, saying why. */
  skip(scenario: string, label: string, reason: string): RunResult {
    this.log(`${label}: skipped (${reason})`);
    return quietRun(scenario, label, { skipped: reason });
  }

  /** The generator of a run of `scenario`: wrk when there is one and the scenario is one it drives. */
  driver(scenario: string): { wrk?: Wrk } {
    return this.setup.wrk !== null && this.setup.wrkDrives.includes(scenario) ? { wrk: this.setup.wrk } : {};
  }
}
