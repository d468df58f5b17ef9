// The load suite's command line, read and checked once before anything starts: a wrong value ends
// the suite with one line saying which and why (exit code 2).

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseCpuList, which } from './proc.ts';

export interface Options {
  /** --url without its trailing slashes: an existing deployment, instead of servers of the suite's own. */
  readonly url: string | undefined;
  /** --scenario: the names asked for (the runner adds what they need). */
  readonly scenarios: readonly string[];
  readonly seconds: number;
  readonly rounds: number;
  /** --starts: fresh starts of each server in the starts scenario. */
  readonly starts: number;
  readonly links: number;
  readonly connections: number;
  readonly memoryLinks: number;
  readonly listLinks: number;
  readonly listRequests: number;
  readonly zipfS: number;
  readonly redisUrl: string | undefined;
  /** Every server runs under `taskset -c` these CPUs: run this process on the others for per-core figures. */
  readonly serverCpus: number[] | null;
  /** This process (autocannon runs in it) is pinned to these CPUs, and wrk to the same. */
  readonly generatorCpus: number[] | null;
  readonly clusterCpus: number[] | null;
  /**
   * A Postgres of the run's own (initdb'd into a temp folder, on a spare port) on these CPUs at the
   * lowest priority (nice 19), rather than DATABASE_URL's: on a machine of two cores, the shared
   * server's backends run on the server's core or the generator's, and a scenario whose service
   * writes much (analytics) is then charged Postgres's work, which a deployment's database does on
   * its own machine. At nice 19 on the generator's CPU it works in the time the generator leaves.
   */
  readonly databaseCpus: number[] | null;
  readonly generator: 'auto' | 'wrk' | 'autocannon';
  /** Another checkout of the service (with its node_modules), whose service runs in the same rounds as this one's. */
  readonly against: { readonly dir: string; readonly entry: string } | undefined;
  readonly out: string;
}

type Positive = 'seconds' | 'rounds' | 'starts' | 'links' | 'connections' | 'memory-links' | 'list-links' | 'list-requests' | 'zipf-s';
type CpuList = 'server-cpus' | 'generator-cpus' | 'cluster-cpus' | 'database-cpus';

/** `args` read against the names of the scenarios there are (each default: all of them). */
export function parseOptions(args: readonly string[], scenarios: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...args],
    options: {
      url: { type: 'string' },
      scenario: { type: 'string', default: scenarios.join(',') },
      seconds: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      starts: { type: 'string', default: '10' },
      links: { type: 'string', default: '100000' },
      connections: { type: 'string', default: '100' },
      'memory-links': { type: 'string', default: '1000000' },
      'list-links': { type: 'string', default: '1000000' },
      'list-requests': { type: 'string', default: '300' },
      'zipf-s': { type: 'string', default: '1.1' },
      'redis-url': { type: 'string', default: process.env.REDIS_URL },
      'server-cpus': { type: 'string' },
      'generator-cpus': { type: 'string' },
      'cluster-cpus': { type: 'string' },
      'database-cpus': { type: 'string' },
      generator: { type: 'string', default: 'auto' },
      against: { type: 'string' },
      out: { type: 'string', default: new URL('results', import.meta.url).pathname },
    },
  });
  const positive = (name: Positive): number => {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n <= 0) usage(`--${name} must be a positive number, not "${values[name]}"`);
    return n;
  };
  const cpuList = (name: CpuList): number[] | null => {
    const list = values[name];
    if (list === undefined) return null;
    try {
      return parseCpuList(list);
    } catch {
      return usage(`--${name} must be a CPU list such as 1 or 0,2-3, not "${list}"`);
    }
  };
  const numbers = {
    seconds: positive('seconds'),
    rounds: Math.round(positive('rounds')),
    starts: Math.round(positive('starts')),
    links: positive('links'),
    connections: positive('connections'),
    memoryLinks: positive('memory-links'),
    listLinks: Math.round(positive('list-links')),
    listRequests: Math.round(positive('list-requests')),
  };
  // Its deep pages are pages 21–30 of 25 links.
  if (numbers.listLinks < 1000) usage(`--list-links must be at least 1000, not "${values['list-links']}"`);
  const zipfS = positive('zipf-s');
  const serverCpus = cpuList('server-cpus');
  const databaseCpus = cpuList('database-cpus');
  const generator = generatorOf(values.generator);
  return {
    ...numbers,
    zipfS,
    serverCpus,
    databaseCpus,
    generator,
    generatorCpus: cpuList('generator-cpus'),
    clusterCpus: cpuList('cluster-cpus'),
    url: values.url?.replace(/\/+$/, ''),
    redisUrl: values['redis-url'],
    against: againstOf(values.against),
    scenarios: scenariosOf(values.scenario, scenarios),
    out: values.out,
  };
}

function generatorOf(choice: string): Options['generator'] {
  if (choice !== 'auto' && choice !== 'wrk' && choice !== 'autocannon')
    usage(`--generator must be wrk, autocannon or auto, not "${choice}"`);
  if (choice === 'wrk' && which('wrk') === null) usage('--generator wrk: wrk is not installed (apt-get install wrk)');
  return choice;
}

function againstOf(dir: string | undefined): Options['against'] {
  if (dir === undefined) return undefined;
  const against = resolve(dir);
  const entry = entryOf(against);
  if (entry === undefined) usage(`--against ${against}: no service entry there (package.json's start script)`);
  return { dir: against, entry };
}

function scenariosOf(list: string, scenarios: readonly string[]): string[] {
  const names = [...new Set(list.split(',').map((s) => s.trim()))];
  for (const name of names) if (!scenarios.includes(name)) usage(`unknown scenario "${name}"; choose from ${scenarios.join(', ')}`);
  return names;
}

/** The entry file of the checkout at `dir`: the last argument of its package.json start script, if it exists. */
export function entryOf(dir: string): string | undefined {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const start = (JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: { start?: string } }).scripts?.start;
  const file = start?.trim().split(/\s+/).at(-1);
  return file === undefined || !existsSync(join(dir, file)) ? undefined : join(dir, file);
}

export function usage(message: string): never {
  console.error(`load: ${message}`);
  return process.exit(2);
}
