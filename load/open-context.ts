// Setting a run up for its scenarios, before anything starts: the load generator pinned, wrk found
// for the scenarios it may drive, the cluster's CPUs placed, and whether the database can be shared.

import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { Context, type ClusterPlacement, type Setup } from './context.ts';
import { usage, type Options } from './options.ts';
import { ownCpus } from './proc.ts';
import { Processes } from './processes.ts';
import { needsOf, type Scenario } from './scenario.ts';
import { findWrk } from './wrk.ts';

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
