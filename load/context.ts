// What every scenario is handed (load/scenario.ts): the options, what the run was set up with (the
// load generator, where each side runs), the processes it may start, the main service once it is
// up, the servers the redirect rounds keep up, the runs so far, and the log. One object, passed in.

import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import type { ServerProcess } from '../test/helpers/server-process.ts';
import { usage, type Options } from './options.ts';
import { ownCpus } from './proc.ts';
import { Processes } from './processes.ts';
import { needsOf, type Ground, type Scenario } from './scenario.ts';
import type { Seeded, Service } from './service.ts';
import { quietRun } from './targets.ts';
import type { RunResult } from './types.ts';
import { findWrk, type Wrk } from './wrk.ts';

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

/** Sets the run up for `scenarios`: pins the load generator, finds wrk (for the scenarios it may drive), places the cluster. */
export async function openContext(options: Options, scenarios: readonly Scenario[]): Promise<Context> {
  const sharedDatabase = sharesDatabase(options);
  const wrkDrives = scenarios.filter((scenario) => needsOf(scenario, { sharedDatabase }).includes('wrk')).map((scenario) => scenario.name);
  if (options.generatorCpus !== null) {
    const pinned = spawnSync('taskset', ['-a', '-p', '-c', options.generatorCpus.join(','), String(process.pid)], { encoding: 'utf8' });
    if (pinned.status !== 0) usage(`--generator-cpus: taskset failed: ${pinned.error?.message ?? pinned.stderr}`);
  }
  const generatorCpus = ownCpus();
  const cluster = placeCluster(options.clusterCpus, options.serverCpus, generatorCpus);
  const serverPrefix = options.serverCpus === null ? [] : ['taskset', '-c', options.serverCpus.join(',')];
  const processes = await Processes.open(serverPrefix);
  const wrk = options.generator === 'autocannon' ? null : await findWrk(processes.scratch, generatorCpus?.join(',') ?? null);
  const generatorNote =
    wrk !== null
      ? `wrk ${wrk.version} (-t1) drives ${wrkDrives.join(', ')}; autocannon the others`
      : options.generator === 'autocannon'
        ? 'autocannon drives every run (--generator autocannon)'
        : 'autocannon drives every run: wrk is not installed (apt-get install wrk), so the redirect runs stop near autocannon’s own ceiling';
  const cpusNote = [
    `generator on CPU ${generatorCpus?.join(',') ?? '(any)'}`,
    `servers on CPU ${options.serverCpus?.join(',') ?? '(any, not pinned)'}`,
    `cluster on CPU ${cluster.cpus?.join(',') ?? '(any, not pinned)'}`,
    ...(options.databaseCpus === null ? [] : [`Postgres of the run's own on CPU ${options.databaseCpus.join(',')} at nice 19`]),
  ].join(' · ');
  const setup: Setup = {
    local: options.url === undefined,
    sharedDatabase,
    serverPrefix,
    generatorCpus,
    cluster,
    wrk,
    wrkDrives,
    generatorNote,
    cpusNote,
  };
  return new Context(options, setup, processes);
}

/** Whether the main service's database can be opened by several processes at once: known before anything starts. */
function sharesDatabase(options: Options): boolean {
  return options.url === undefined && (options.databaseCpus !== null || process.env.DATABASE_URL !== undefined);
}

/**
 * Where the two workers of the cluster run: --cluster-cpus, or the server CPUs and as many of
 * the others as it takes to make two, the load generator's last. Informational (no verdict) when
 * they include a CPU of the load generator, or nothing is pinned.
 */
function placeCluster(option: number[] | null, serverCpus: number[] | null, generatorCpus: number[] | null): ClusterPlacement {
  if (option === null && serverCpus === null)
    return { cpus: null, informational: 'nothing pinned: the workers share the cores with the load generator' };
  const picked = [...(option ?? serverCpus ?? [])];
  const all = Array.from({ length: cpus().length }, (_, i) => i);
  const generator = generatorCpus ?? [];
  for (const cpu of [...all.filter((c) => !generator.includes(c)), ...generator]) {
    if (option !== null || picked.length >= 2) break;
    if (!picked.includes(cpu)) picked.push(cpu);
  }
  picked.sort((a, b) => a - b);
  const sharedCpus = picked.filter((c) => generator.includes(c));
  return sharedCpus.length === 0
    ? { cpus: picked }
    : {
        cpus: picked,
        informational: `the workers' CPUs ${picked.join(',')} include the load generator's CPU ${sharedCpus.join(',')} (${all.length} cores here)`,
      };
}
