// The load suite: every path of the service measured against its baseline in one run.
//
//   npm run load                                   the whole suite, on embedded defaults (or DATABASE_URL)
//   npm run load -- --scenario hot,not-found       only these scenarios (and what they need)
//   npm run load -- --url http://host:port --scenario hot     against an existing deployment
//   npm run load -- --links 1000000 --seconds 10  bigger and longer
//   REDIS_URL=redis://127.0.0.1:6379 npm run load   with the Redis tier (the redis scenario needs it)
//   DATABASE_URL=postgres://… npm run load -- --scenario storage    bytes per link in Postgres (and Redis)
//   DATABASE_URL=postgres://… npm run load -- --scenario list --list-links 1000000
//                                                  the link list's latency with a million links in a workspace
//   taskset -c 0 npm run load -- --server-cpus 1 --scenario baseline,hot --against ../old
//                                                  per core, and the service of another checkout in the same rounds
//   DATABASE_URL=postgres://… taskset -c 0 npm run load -- --server-cpus 1 --scenario hot,hot-domain --against ../old
//                                                  the hot path on a branded domain, on the default one, and before domains
//   taskset -c 0 npm run load -- --server-cpus 1 --scenario ceiling,baseline,hot,hot-slow,go
//                                                  the redirect path per core, with wrk, against node:http and Go
//   DATABASE_URL=postgres://… taskset -c 0 npm run load -- --server-cpus 1 --scenario hot,analytics
//                                                  the hot path with click analytics on and off, on browsers' clicks
//   taskset -c 0 npm run load -- --server-cpus 1 --database-cpus 0 --scenario analytics --against ../old
//                                                  the same on a Postgres of the run's own, kept off the server's core,
//                                                  and the analytics of another checkout in the same rounds
//   taskset -c 0 npm run load -- --server-cpus 1 --database-cpus 0 --scenario hot,rules --against ../old
//                                                  plain links against another checkout's, and links with rules
//                                                  against plain ones, in the same rounds
//   taskset -c 0 npm run load -- --server-cpus 1 --database-cpus 0 --scenario stream
//                                                  the click stream (CLICK_STREAM=redis) against none, analytics on both
//
// It starts what it needs as child processes (the service, the bare node:http baseline, the
// load generator's ceiling, the Go reference, the naive variants), seeds links through POST
// /links (the list scenario seeds its own workspace with SQL: load/list-seed.ts), runs each
// scenario for a bounded time, prints one table, and writes
// load/results/<timestamp>.json and .html. The redirect runs are driven by wrk when it is
// installed (autocannon in this process tops out below a fast path), the others by autocannon.
// Read the ratios, not the absolute figures: the load generator and the servers share the
// machine's cores.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { basename, join, resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Request } from 'autocannon';
import { createApiKey } from '../src/auth/api-keys.ts';
import { pino } from 'pino';
import { migrate } from '../src/db/migrate.ts';
import { createTestDatabase, withClient } from '../test/helpers/db.ts';
import { PrivatePostgres } from '../test/helpers/private-postgres.ts';
import { deleteKeys, PrivateRedis, randomPrefix } from '../test/helpers/redis.ts';
import { startServer, type ServerProcess } from '../test/helpers/server-process.ts';
import { buildGoReference, startGoReference, writeLinksFile } from './go-reference.ts';
import { chooseTerms, deepCursors, explainPath, exportAll, listAnswers, listShapes } from './list-bench.ts';
import { LIST_WORKSPACE_ID, seedList } from './list-seed.ts';
import { compare, measure, WARMUP_MS, type Variant } from './measure.ts';
import { thisMachine } from './machine.ts';
import { percentiles } from './percentiles.ts';
import { ownCpus, parseCpuList, which } from './proc.ts';
import { describeStorage, slowestPlan } from './report/describe.ts';
import { renderReport } from './report/page.ts';
import { renderTable } from './report/text.ts';
import { analyticsStorage, clicksStorage, clickTableSizes, linksStorage, redisStorage } from './storage.ts';
import { judgeTargets, markGeneratorLimits, quietRun, SCENARIOS, type Scenario } from './targets.ts';
import { get, getOn, post, randomCodes, RULED_OPTIONS, seededRandom, targetUrl, zipfPaths } from './traffic.ts';
import type { AnalyticsStorage, ListExport, ListPlan, RunResult, SuiteResult } from './types.ts';
import { audience, clickHeaders, USER_AGENTS } from './visitors.ts';
import { findWrk } from './wrk.ts';

/**
 * Connections of the latency run. Measured on this machine at 6000 req/s against the service:
 * p99 1.8 ms over 10 connections, 2.3 ms over 25, 11.7 ms over 100.
 */
const LATENCY_CONNECTIONS = 20;

const SEED_CONNECTIONS = 400;

/**
 * Links clicked once before the storage figures, so that link_clicks_daily has rows to size
 * (CLICK_MAX_CODES: one flush takes them all).
 */
const CLICK_SAMPLE = 20_000;

/** Clicks on each of those links, in all, for the storage of a busy link's day of analytics. */
const BUSY_CLICKS = 20;

/**
 * The visitors of the analytics and storage runs (load/visitors.ts): 10,000 addresses, each with
 * one of ~20 browsers and crawlers and one of 5 languages, clicking through ~10 referrers or none.
 */
const VISITORS = { visitors: 10_000, agents: USER_AGENTS.length };

/**
 * More than any scanner run here has reached (autocannon's ceiling is ~30k req/s with 404
 * bodies; wrk -t1 with its Lua script ~110k req/s on one core); sizes the list of distinct
 * unknown codes, so that no code is asked for twice.
 */
const MAX_SCANNER_RPS = { autocannon: 40_000, wrk: 150_000 };

/** The redirect runs that wrk drives when it is there: GETs at full speed. */
const WRK_SCENARIOS = [
  'ceiling',
  'baseline',
  'hot',
  'hot-domain',
  'hot-slow',
  'go',
  'cluster',
  'not-found',
  'dashboard',
  'analytics',
  'stream',
  'rules',
];

/**
 * The stream scenario's second pair runs at this share of the slower one's rate: below what either
 * serves on its core, so that both answer the same requests and their server CPU compares.
 */
const STREAM_PACED_SHARE = 0.6;

/** The branded short domain of the hot-domain scenario (added through POST /domains; no DNS needed: requests name it in Host). */
const BRANDED_HOST = 'go.load.test';

/** Scenarios that need neither the main service nor its seeded links. */
const SELF_CONTAINED: readonly string[] = ['list', 'memory'];

/**
 * The list scenario asks each shape of GET /links over this many connections: a few people on
 * the dashboard at once, not a flood (the list's goal is a latency, not a rate).
 */
const LIST_CONNECTIONS = 4;
/** Requests of each list shape before the measured ones, not counted. */
const LIST_WARMUP = 20;
/** The most a list shape may take; a shape that slow is stopped and measured on what it answered. */
const LIST_SHAPE_SECONDS = 60;

/** A failure the suite explains in one line (a server that misbehaved, a probe that failed). */
class LoadError extends Error {}

// Servers run with the Node flags that `npm start` gives the service (package.json), nothing else.
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
const SERVICE_NODE_OPTIONS = /^node((?: --\S+)*) src\/process\/main\.ts$/.exec(packageJson.scripts.start)?.[1]?.trim() ?? '';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    scenario: { type: 'string', default: SCENARIOS.join(',') },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
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
const seconds = positive('seconds');
const rounds = Math.round(positive('rounds'));
const linkCount = positive('links');
const connections = positive('connections');
const memoryLinks = positive('memory-links');
const listLinkCount = Math.round(positive('list-links'));
const listRequests = Math.round(positive('list-requests'));
// Its deep pages are pages 21–30 of 25 links.
if (listLinkCount < 1000) usage(`--list-links must be at least 1000, not "${values['list-links']}"`);
const zipfS = positive('zipf-s');
const remote = values.url?.replace(/\/+$/, '');
const redisUrl = values['redis-url'];
/** Every server runs under `taskset -c` these CPUs: run this process on the others for per-core figures. */
const serverCpus = cpuOption('server-cpus');
const serverPrefix = serverCpus === null ? [] : ['taskset', '-c', serverCpus.join(',')];
/**
 * A Postgres of the run's own (initdb'd into a temp folder, on a spare port) on these CPUs at the
 * lowest priority (nice 19), rather than DATABASE_URL's: on a machine of two cores, the shared
 * server's backends run on the server's core or the generator's, and a scenario whose service
 * writes much (analytics) is then charged Postgres's work, which a deployment's database does on
 * its own machine. At nice 19 on the generator's CPU it works in the time the generator leaves.
 */
const databaseCpus = cpuOption('database-cpus');
const generatorChoice = values.generator;
if (!['auto', 'wrk', 'autocannon'].includes(generatorChoice))
  usage(`--generator must be wrk, autocannon or auto, not "${generatorChoice}"`);
// The load generator's CPUs: this process's (autocannon runs in it), and wrk is pinned to the same.
const generatorOption = cpuOption('generator-cpus');
if (generatorOption !== null) {
  const pinned = spawnSync('taskset', ['-a', '-p', '-c', generatorOption.join(','), String(process.pid)], { encoding: 'utf8' });
  if (pinned.status !== 0) usage(`--generator-cpus: taskset failed: ${pinned.error?.message ?? pinned.stderr}`);
}
if (generatorChoice === 'wrk' && which('wrk') === null) usage('--generator wrk: wrk is not installed (apt-get install wrk)');
const generatorCpus = ownCpus();
const clusterPlacement = placeCluster(cpuOption('cluster-cpus'));
/** Another checkout of the service (with its node_modules), whose hot path runs in the same rounds as this one's. */
const against = values.against === undefined ? undefined : resolvePath(values.against);
const againstEntry = against === undefined ? undefined : entryOf(against);
if (against !== undefined && againstEntry === undefined)
  usage(`--against ${against}: no service entry there (package.json's start script)`);
const selected = new Set(values.scenario.split(',').map((s) => s.trim()));
for (const name of selected) {
  if (!(SCENARIOS as readonly string[]).includes(name)) usage(`unknown scenario "${name}"; choose from ${SCENARIOS.join(', ')}`);
}
// The latency run is offered half of the hot run's measured maximum, and compared with the
// FAST_PATH=false service at the same rate.
if (selected.has('latency')) {
  selected.add('hot');
  selected.add('hot-slow');
}
const wants = (s: Scenario) => selected.has(s);

// Whatever happens, the suite ends by itself: every run is bounded, and so is the whole (the list
// scenario's seeding and index builds took 62–66 s per million links on two cores: 18–21 s of
// links, 6–7 s of totals, 36–39 s of indexes; --scenario list, 2026-12-02).
const WATCHDOG_MS = (20 + (selected.has('list') ? Math.ceil(listLinkCount / 1_000_000) * 10 : 0)) * 60_000;
const watchdog = setTimeout(() => {
  console.error(`load: the suite ran longer than ${WATCHDOG_MS / 60_000} minutes; stopping`);
  void abandon(1);
}, WATCHDOG_MS);

const started = new Date();
const runs: RunResult[] = [];
const scratch = await mkdtemp(join(tmpdir(), 'shortener-load-'));
const cleanups: (() => Promise<unknown>)[] = [() => rm(scratch, { recursive: true, force: true })];
const live = new Set<ServerProcess>();
const wrk = generatorChoice === 'autocannon' ? null : await findWrk(scratch, generatorCpus?.join(',') ?? null);
const generatorNote =
  wrk !== null
    ? `wrk ${wrk.version} (-t1) drives ${WRK_SCENARIOS.join(', ')}; autocannon the others`
    : generatorChoice === 'autocannon'
      ? 'autocannon drives every run (--generator autocannon)'
      : 'autocannon drives every run: wrk is not installed (apt-get install wrk), so the redirect runs stop near autocannon’s own ceiling';
const cpusNote = [
  `generator on CPU ${generatorCpus?.join(',') ?? '(any)'}`,
  `servers on CPU ${serverCpus?.join(',') ?? '(any, not pinned)'}`,
  `cluster on CPU ${clusterPlacement.cpus?.join(',') ?? '(any, not pinned)'}`,
  ...(databaseCpus === null ? [] : [`Postgres of the run's own on CPU ${databaseCpus.join(',')} at nice 19`]),
].join(' · ');
// Ctrl-C: stop the servers, drop the scratch database, remove the scratch folder.
process.once('SIGINT', () => void abandon(130));

/** Ends the suite from outside its flow (watchdog, Ctrl-C), leaving nothing behind. */
async function abandon(code: number): Promise<never> {
  for (const server of live) server.child.kill('SIGKILL');
  await runCleanups();
  return process.exit(code);
}

function log(line: string): void {
  console.error(`[${((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(3)} s] ${line}`);
}

function record(run: RunResult): RunResult {
  runs.push(run);
  const statuses = Object.entries(run.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  log(
    `${run.label}: ${run.rps.toLocaleString('en-US')} req/s, p99 ${run.latency.p99} ms, ${statuses}` +
      (run.errors > 0 ? `, ${run.errors} errors` : ''),
  );
  return run;
}

function skip(scenario: Scenario, label: string, reason: string): void {
  runs.push(quietRun(scenario, label, { skipped: reason }));
  log(`${label}: skipped (${reason})`);
}

log(`load generator: ${generatorNote}; ${cpusNote}`);
try {
  // First, while nothing else runs: the link list, on a database and a service of its own.
  if (wants('list')) await listRun();
  const ranOn = [...selected].some((s) => !SELF_CONTAINED.includes(s))
    ? await serviceRuns()
    : {
        database: process.env.DATABASE_URL === undefined ? 'none' : 'scratch databases on DATABASE_URL’s server, dropped afterwards',
        redis: 'not used',
      };

  if (wants('memory')) runs.push(await memoryRun());

  const marked = markGeneratorLimits(runs);
  const targets = judgeTargets(marked);
  const result: SuiteResult = {
    startedAt: started.toISOString(),
    durationSeconds: Math.round((Date.now() - started.getTime()) / 1000),
    machine: thisMachine(),
    settings: {
      database: ranOn.database,
      redis: ranOn.redis,
      url: remote ?? null,
      links: linkCount,
      zipfS,
      secondsPerRun: seconds,
      connections,
      generator: generatorNote,
      cpus: cpusNote,
      command: `npm run load -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, ''),
    },
    runs: marked,
    targets,
  };
  await mkdir(values.out, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const jsonPath = join(values.out, `${stamp}.json`);
  const htmlPath = join(values.out, `${stamp}.html`);
  await writeFile(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(htmlPath, renderReport(result));
  console.log(renderTable(result));
  console.log(`\nresults: ${jsonPath}\nreport:  ${htmlPath}`);
} catch (err) {
  console.error(err instanceof LoadError ? `load: ${err.message}` : err);
  process.exitCode = 1;
} finally {
  // After a failure, servers may still be up: they hold the scratch database and keep this
  // process alive.
  for (const server of live) await stop(server);
  clearTimeout(watchdog);
  await runCleanups();
}

/**
 * Every scenario that runs against the main service (seeded through POST /links) or beside it;
 * what they ran on, for the report.
 */
async function serviceRuns(): Promise<{ database: string; redis: string }> {
  const database = remote === undefined ? await prepareDatabase() : null;
  const redis = remote === undefined ? prepareRedis() : null;
  const service = (extra: Record<string, string> = {}, serverScript?: string) => launch({ ...database?.env, ...extra }, serverScript);
  // The service as deployed: with the Redis tier when there is a Redis (its creates write through).
  // Behind a proxy on loopback for the rules scenario, whose country rules read X-Forwarded-For.
  const main = remote === undefined ? await service({ ...redis?.env, ...(wants('rules') ? { TRUST_PROXY: 'loopback' } : {}) }) : null;
  const base = remote ?? (main as ServerProcess).url;
  const pidOf = (server: ServerProcess | null) => server?.child.pid;

  // Links through the real API: 80-character URLs, as many as asked.
  log(`seeding ${linkCount.toLocaleString('en-US')} links through POST ${base}/links`);
  const links = await seed(base, linkCount);
  const codes = links.map(([code]) => code);
  const hotPaths = zipfPaths(codes, Math.max(20_000, connections * 200), zipfS, 1).map(get);

  const pathsOf = (list: readonly string[]) => list.map((code) => get(`/${code}`));
  const fixed = (requests: readonly Request[]) => () => requests;
  const local = remote === undefined;
  const onlyLocal = 'needs local processes (not with --url)';

  // Right after seeding, before any other scenario adds rows or keys: what the seeded links cost.
  if (wants('storage')) {
    const databaseUrl = database?.env.DATABASE_URL;
    if (!local) skip('storage', 'storage', onlyLocal);
    else if (databaseUrl === undefined)
      skip('storage', 'storage', 'needs DATABASE_URL (the embedded engine is one session, held by the service)');
    else runs.push(await storageRun(codes.slice(0, CLICK_SAMPLE), { ...database?.env, ...redis?.env }, databaseUrl, redis));
  }

  // The redirect path against the Node ceiling, the load generator's own, and Go, side by side.
  // A database that several processes can open at once (not the embedded engine).
  const shared = database?.env.DATABASE_URL !== undefined;
  const group: Variant[] = [];
  const helpers: ServerProcess[] = [];
  /** The generator of a redirect run: wrk when there is one, for the scenarios it can drive. */
  const driver = (scenario: Scenario) => (wrk !== null && WRK_SCENARIOS.includes(scenario) ? { wrk } : {});
  const redirectRun = (
    scenario: Scenario,
    variant: string,
    label: string,
    server: ServerProcess,
    requests: readonly Request[] = hotPaths,
  ): Variant => ({
    scenario,
    variant,
    label,
    url: server.url,
    connections,
    requests: fixed(requests),
    serverPid: pidOf(server),
    ...driver(scenario),
  });
  let baselineServer: ServerProcess | undefined;
  let slow: { server: ServerProcess; paths: readonly Request[] } | undefined;
  if (wants('ceiling')) {
    if (!local) skip('ceiling', 'ceiling', onlyLocal);
    else {
      const ceiling = await launch({}, 'ceiling-server.ts');
      helpers.push(ceiling);
      group.push(redirectRun('ceiling', 'ceiling (no HTTP work)', 'ceiling', ceiling));
    }
  }
  if (wants('baseline')) {
    if (!local) skip('baseline', 'baseline', onlyLocal);
    else {
      const file = join(scratch, 'links.json');
      await writeFile(file, JSON.stringify(links));
      const baseline = await launch({ LINKS_FILE: file }, 'baseline-server.ts');
      baselineServer = baseline;
      helpers.push(baseline);
      group.push(redirectRun('baseline', 'baseline (node:http + Map)', 'baseline', baseline));
    }
  }
  if (wants('go')) {
    const built = local ? await buildGoReference(scratch) : { missing: onlyLocal };
    if ('missing' in built) skip('go', 'go', built.missing);
    else {
      const file = join(scratch, 'links.txt');
      writeLinksFile(file, links);
      // One Go thread per server core; unpinned, Go's own default (every CPU it may run on).
      const env: Record<string, string> = { LINKS_FILE: file, ...(serverCpus === null ? {} : { GOMAXPROCS: String(serverCpus.length) }) };
      const go = await startGoReference(built.binary, env, serverPrefix);
      live.add(go);
      helpers.push(go);
      group.push(redirectRun('go', 'Go fasthttp + sharded map', 'go', go));
    }
  }
  // Every link once, so that all of them are in the LRU before a hot run.
  let warm = false;
  const warmMain = async () => {
    if (warm) return;
    warm = true;
    await warmUp(base, codes, 'the service');
  };
  if (wants('hot')) {
    await warmMain();
    group.push(
      main === null
        ? { scenario: 'hot', variant: 'service', label: 'hot', url: base, connections, requests: fixed(hotPaths), ...driver('hot') }
        : redirectRun('hot', 'service', 'hot', main),
    );
    if (against !== undefined) {
      if (!local) skip('hot', `hot · ${basename(against)}`, onlyLocal);
      else {
        const other = await seededService({ script: againstEntry as string, env: {}, folder: 'pglite-against', name: against });
        helpers.push(other.server);
        group.push(redirectRun('hot', `service of ${against}`, `hot · ${basename(against)}`, other.server, other.paths));
      }
    }
  }
  if (wants('rules')) {
    // Links with options (a device, a country-and-language and a split, the heaviest common set:
    // every fact read) against the plain links, on the same service in the same rounds, each sent
    // the same browsers' clicks through a proxy, so that the difference is the rules alone.
    if (main === null) skip('rules', 'rules', onlyLocal);
    else {
      log(`seeding ${linkCount.toLocaleString('en-US')} links with rules through POST ${base}/links`);
      const ruled = (await seed(base, linkCount, undefined, RULED_OPTIONS)).map(([code]) => code);
      await warmUp(base, ruled, 'the links with rules');
      const visitors = audience({ ...VISITORS, seed: 23 });
      const clicked = (paths: readonly Request[]) => paths.map((request) => ({ ...request, headers: clickHeaders(visitors.click()) }));
      const ruledPaths = zipfPaths(ruled, Math.max(20_000, connections * 200), zipfS, 1).map(get);
      group.push(redirectRun('rules', 'service, links with rules', 'rules', main, clicked(ruledPaths)));
      group.push(redirectRun('rules', 'service, plain links, the same clicks', 'rules · plain', main, clicked(hotPaths)));
    }
  }
  if (wants('hot-domain')) {
    // The same service and traffic as the hot run, on links of a branded domain: a Host to look up, prefixed cache keys.
    const databaseUrl = database?.env.DATABASE_URL;
    if (main === null) skip('hot-domain', 'hot-domain', onlyLocal);
    else if (databaseUrl === undefined)
      skip(
        'hot-domain',
        'hot-domain',
        'needs DATABASE_URL (its admin key is written into the database; the embedded engine is one session, held by the service)',
      );
    else group.push(redirectRun('hot-domain', `service, Host: ${BRANDED_HOST}`, 'hot-domain', main, await brandedPaths(base, databaseUrl)));
  }
  if (wants('hot-slow')) {
    if (!local) skip('hot-slow', 'hot-slow', onlyLocal);
    else {
      // The same service with every request through node:http: on the same database when it can
      // be shared (with the same Redis), else on a scratch one of its own, seeded alike.
      slow = await seededService(
        shared
          ? { env: { ...database?.env, ...redis?.env, FAST_PATH: 'false' }, codes, name: 'the FAST_PATH=false service' }
          : { env: { FAST_PATH: 'false' }, folder: 'pglite-slow', name: 'the FAST_PATH=false service' },
      );
      helpers.push(slow.server);
      group.push(redirectRun('hot-slow', 'service, FAST_PATH=false', 'hot-slow', slow.server, slow.paths));
    }
  }
  if (wants('cluster')) {
    if (!local) skip('cluster', 'cluster', onlyLocal);
    else if (!shared) skip('cluster', 'cluster', 'needs DATABASE_URL (cluster mode refuses the embedded engine, a single session)');
    else {
      const { cpus: workerCpus, informational } = clusterPlacement;
      const prefix = workerCpus === null ? [] : ['taskset', '-c', workerCpus.join(',')];
      const server = await launch({ ...database?.env, ...redis?.env, WORKERS: '2' }, undefined, prefix);
      helpers.push(server);
      // Each worker has its own LRU: every code twice, on consecutive connections.
      await warmUp(server.url, codes, 'the cluster', { copies: 2 });
      group.push({
        ...redirectRun('cluster', `service, WORKERS=2${workerCpus === null ? '' : ` on CPUs ${workerCpus.join(',')}`}`, 'cluster', server),
        ...(informational === undefined ? {} : { informational }),
      });
    }
  }
  if (wants('not-found')) {
    // A scanner: distinct codes of the generated shape, none of them a link, never repeated
    // (each round has its own), and more of them than can be asked for in a round. The baseline
    // answers the same codes with the same 404 bytes: a 404 costs autocannon more than a 302 (it
    // reads a body), and this shows how much.
    const scanner = driver('not-found');
    const perRound = Math.ceil(MAX_SCANNER_RPS[wrk === null ? 'autocannon' : 'wrk'] * (seconds / rounds + WARMUP_MS / 1000));
    const random = randomCodes(perRound * rounds, codes[0]?.length ?? 7, seededRandom(2), new Set(codes));
    const lists = Array.from({ length: rounds }, (_, round) => pathsOf(random.slice(round * perRound, (round + 1) * perRound)));
    const scan = (round: number) => lists[round] ?? [];
    // autocannon stops at the end of the list; wrk runs for its time (the list is longer than it can ask for).
    const bound = scanner.wrk === undefined ? { amount: perRound } : {};
    group.push({
      scenario: 'not-found',
      variant: 'service',
      label: 'not-found',
      url: base,
      connections,
      serverPid: pidOf(main),
      requests: scan,
      ...bound,
      ...scanner,
    });
    if (baselineServer !== undefined) {
      group.push({
        scenario: 'not-found',
        variant: 'baseline (node:http + Map)',
        label: 'not-found · baseline',
        url: baselineServer.url,
        connections,
        serverPid: pidOf(baselineServer),
        requests: scan,
        ...bound,
        ...scanner,
      });
    }
  }
  const measured = group.length === 0 ? [] : await compare(group, seconds, rounds);
  measured.forEach(record);
  const hot = measured.find((run) => run.label === 'hot');

  if (wants('latency') && hot !== undefined) {
    // Half the hot run's maximum, paced evenly over a few connections (with a hundred, their
    // timers fire in clumps and the latency measured is that of the clumps) by autocannon (wrk
    // cannot pace). The baseline at the same rate shows what the machine and the load generator
    // add to any server's latency; the FAST_PATH=false service at the same rate is "today".
    const rate = Math.max(1, Math.round(hot.rps / 2));
    const paced = { connections: LATENCY_CONNECTIONS, requests: fixed(hotPaths), overallRate: rate };
    const pair: Variant[] = [{ scenario: 'latency', variant: 'service', label: 'latency', url: base, serverPid: pidOf(main), ...paced }];
    if (slow !== undefined) {
      pair.push({
        scenario: 'latency',
        variant: 'service, FAST_PATH=false',
        label: 'latency · FAST_PATH=false',
        url: slow.server.url,
        serverPid: pidOf(slow.server),
        ...paced,
        requests: fixed(slow.paths),
      });
    }
    if (baselineServer !== undefined) {
      pair.push({
        scenario: 'latency',
        variant: 'baseline (node:http + Map)',
        label: 'latency · baseline',
        url: baselineServer.url,
        serverPid: pidOf(baselineServer),
        ...paced,
      });
    }
    (await compare(pair, seconds, rounds)).forEach(record);
  }
  for (const helper of helpers) await stop(helper);

  if (wants('mixed')) {
    // 19 redirects, then one create, over and over: 95 % / 5 %.
    const mixed = hotPaths.map((request, i) => (i % 20 === 19 ? post('/links', { url: targetUrl(linkCount + i) }) : request));
    record(
      await measure(
        { scenario: 'mixed', variant: 'service', label: 'mixed', url: base, connections, requests: fixed(mixed), serverPid: pidOf(main) },
        seconds,
      ),
    );
  }

  if (wants('create')) {
    const creates = fixed(Array.from({ length: 1000 }, (_, i) => post('/links', { url: targetUrl(2 * linkCount + i) })));
    // Its own embedded folder: PGlite lets one process at a time open a data directory.
    const naiveEnv = database?.env.DATABASE_URL === undefined ? { EMBEDDED_DATA_DIR: join(scratch, 'naive-pglite') } : database.env;
    const naive = local ? await launch(naiveEnv, 'naive-create-server.ts') : null;
    if (naive === null) skip('create', 'create · one INSERT per request', onlyLocal);
    for (const n of [100, 400]) {
      const pair: Variant[] = [
        {
          scenario: 'create',
          variant: 'service',
          label: `create ${n}`,
          url: base,
          connections: n,
          requests: creates,
          serverPid: pidOf(main),
        },
      ];
      if (naive !== null) {
        pair.push({
          scenario: 'create',
          variant: 'one INSERT per request',
          label: `create ${n} · one INSERT per request`,
          url: naive.url,
          connections: n,
          requests: creates,
          serverPid: pidOf(naive),
        });
      }
      (await compare(pair, seconds, rounds)).forEach(record);
    }
    if (naive !== null) await stop(naive);
  }
  // An LRU of one entry cannot help: every request goes below it, batched per event-loop turn.
  const noCache = { CACHE_MAX_ENTRIES: '1', NEGATIVE_MAX_ENTRIES: '1' };

  /** Variants of the service side by side (alternating rounds), or one after another on an embedded database. */
  const variantsOf = async (
    scenario: Scenario,
    variants: { variant: string; label: string; env: Record<string, string> }[],
    also: Variant[] = [],
  ) => {
    if (shared) {
      const servers = await Promise.all(variants.map((v) => service(v.env)));
      const side = variants.map((v, i): Variant => ({
        scenario,
        variant: v.variant,
        label: v.label,
        url: servers[i]?.url ?? '',
        connections,
        requests: fixed(hotPaths),
        serverPid: pidOf(servers[i] ?? null),
      }));
      (await compare([...side, ...also], seconds, rounds)).forEach(record);
      for (const server of servers) await stop(server);
    } else {
      // One embedded data folder, one process at a time.
      for (const v of variants) {
        const server = await service(v.env);
        record(
          await measure(
            {
              scenario,
              variant: v.variant,
              label: v.label,
              url: server.url,
              connections,
              requests: fixed(hotPaths),
              serverPid: pidOf(server),
            },
            seconds,
          ),
        );
        await stop(server);
      }
    }
  };

  const redisScenario = async () => {
    const why = !local
      ? 'needs services configured with a one-entry LRU (not with --url)'
      : redis === null
        ? 'needs a Redis: set REDIS_URL or --redis-url'
        : undefined;
    if (why !== undefined || redis === null) {
      for (const label of ['redis', 'redis · one GET per request', 'redis · auto-pipelining']) skip('redis', label, why ?? '');
    } else {
      // Every seeded link is in Redis (written through by the seeding service, same key prefix).
      // REDIS_BATCH_MAX=1 turns the batch fetcher into one GET per request; with
      // REDIS_AUTO_PIPELINING=true ioredis merges those GETs of one turn into one pipeline. The
      // main service, its LRU warm, runs in the same rounds as the hot reference (not with an
      // embedded database, which one process at a time can open).
      const onRedis = { ...noCache, ...redis.env };
      const reference: Variant[] = [];
      if (shared && main !== null) {
        await warmMain();
        reference.push({
          scenario: 'redis',
          variant: 'service, every link in the LRU',
          label: 'redis · hot reference',
          url: base,
          connections,
          requests: fixed(hotPaths),
          serverPid: pidOf(main),
        });
      }
      await variantsOf(
        'redis',
        [
          { variant: 'service', label: 'redis', env: onRedis },
          { variant: 'one GET per request', label: 'redis · one GET per request', env: { ...onRedis, REDIS_BATCH_MAX: '1' } },
          {
            variant: 'ioredis auto-pipelining',
            label: 'redis · auto-pipelining',
            env: { ...onRedis, REDIS_BATCH_MAX: '1', REDIS_AUTO_PIPELINING: 'true' },
          },
        ],
        reference,
      );
    }
  };
  // Beside the main service (its hot reference) on a shared database; after it on an embedded one.
  if (wants('redis') && shared) await redisScenario();
  if (main !== null) await stop(main);
  if (wants('redis') && !shared) await redisScenario();

  if (wants('postgres')) {
    if (!local) skip('postgres', 'postgres', 'needs services configured with a one-entry LRU (not with --url)');
    else {
      // Redis off: READ_BATCH_MAX=1 turns the same code path into one SELECT per request.
      await variantsOf('postgres', [
        { variant: 'service', label: 'postgres', env: noCache },
        { variant: 'one SELECT per request', label: 'postgres · one SELECT per request', env: { ...noCache, READ_BATCH_MAX: '1' } },
      ]);
    }
  }

  /**
   * The hot path on two services that differ in one setting, each with every link in its LRU,
   * side by side in alternating rounds (one after the other on an embedded database). `alone`:
   * while one runs, the others are stopped (SIGSTOP), and its run starts once Postgres has
   * finished what they asked of it, so that the work a variant does in the background (a flush
   * to Postgres) is not done beside the other's run, on its core; what each service logged at
   * warn or above is summed up.
   */
  const pairedHot = async (
    scenario: Scenario,
    /** `script`: the service of another checkout (--against), on the same database. */
    pair: readonly { variant: string; label: string; env: Record<string, string>; script?: string }[],
    requests: readonly Request[],
    setting: string,
    { alone = false, paced = 0 } = {},
  ) => {
    if (!local) {
      for (const v of pair) skip(scenario, v.label, `needs services started with and without ${setting} (not with --url)`);
      return;
    }
    const warmed = async (env: Record<string, string>, serverScript?: string) => {
      const server = await service(env, serverScript);
      await measure(
        {
          scenario,
          variant: 'warm-up',
          label: 'warm-up',
          url: server.url,
          connections,
          requests: fixed(pathsOf(codes)),
          amount: codes.length,
        },
        600,
        0,
      );
      return server;
    };
    const variantOf = (v: (typeof pair)[number], server: ServerProcess): Variant => ({
      scenario,
      variant: v.variant,
      label: v.label,
      url: server.url,
      connections,
      requests: fixed(requests),
      serverPid: pidOf(server),
      ...driver(scenario),
    });
    if (shared) {
      const servers = await Promise.all(pair.map((v) => warmed(v.env, v.script)));
      const databaseUrl = database?.env.DATABASE_URL ?? '';
      const others = (server: ServerProcess) => servers.filter((other) => other !== server);
      const aloneOn = (server: ServerProcess): Variant['alone'] => ({
        before: async () => {
          for (const other of others(server)) other.child.kill('SIGSTOP');
          await postgresQuiet(databaseUrl);
        },
        after: async () => {
          for (const other of others(server)) other.child.kill('SIGCONT');
        },
      });
      const full = await compare(
        pair.map((v, i) => ({
          ...variantOf(v, servers[i] as ServerProcess),
          ...(alone ? { alone: aloneOn(servers[i] as ServerProcess) } : {}),
        })),
        seconds,
        rounds,
      );
      full.forEach(record);
      // `paced`: then all of them at that share of the slower one's rate, offered evenly
      // (autocannon: wrk cannot pace): the server CPU each spends per request at the same rate,
      // whatever else (a Redis, a Postgres) the machine's two cores give their time to.
      const slowest = Math.min(...full.map((run) => run.rps));
      if (paced > 0 && slowest > 0) {
        const rate = Math.round(slowest * paced);
        log(`${scenario}: each at ${rate.toLocaleString('en-US')} req/s offered (${Math.round(paced * 100)} % of the slower's rate)`);
        (
          await compare(
            pair.map((v, i) => ({
              ...variantOf(v, servers[i] as ServerProcess),
              label: `${v.label} · paced`,
              connections: LATENCY_CONNECTIONS,
              overallRate: rate,
              wrk: undefined,
              ...(alone ? { alone: aloneOn(servers[i] as ServerProcess) } : {}),
            })),
            seconds,
            rounds,
          )
        ).forEach(record);
      }
      for (const [i, server] of servers.entries()) {
        await stop(server);
        logWarnings(pair[i]?.label ?? '', server);
      }
    } else {
      for (const v of pair) {
        const server = await warmed(v.env, v.script);
        record(await measure(variantOf(v, server), seconds));
        await stop(server);
      }
    }
  };

  if (wants('metrics')) {
    // Both count clicks, so requests carry a browser's User-Agent, as real clicks do.
    const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
    await pairedHot(
      'metrics',
      [
        { variant: 'METRICS_ENABLED=true', label: 'metrics', env: { METRICS_ENABLED: 'true' } },
        { variant: 'METRICS_ENABLED=false', label: 'metrics · off', env: { METRICS_ENABLED: 'false' } },
      ],
      hotPaths.map((request) => ({ ...request, headers: { 'user-agent': browser } })),
      'METRICS_ENABLED',
    );
  }

  if (wants('dashboard')) {
    // The dashboard is Fastify routes under /app/ (src/dashboard/routes.ts): the redirect path must
    // not know whether it is there. Plain GETs, so wrk drives them when it is installed.
    await pairedHot(
      'dashboard',
      [
        { variant: 'DASHBOARD_ENABLED=true', label: 'dashboard', env: { DASHBOARD_ENABLED: 'true' } },
        { variant: 'DASHBOARD_ENABLED=false', label: 'dashboard · off', env: { DASHBOARD_ENABLED: 'false' } },
      ],
      hotPaths,
      'DASHBOARD_ENABLED',
    );
  }
  if (wants('analytics')) {
    // What click analytics costs the hot path: the same service with ANALYTICS_ENABLED=false, in
    // the same rounds, sent the same clicks, each a visitor's as a browser or crawler sends it
    // through a proxy on loopback (both trust it: the address analytics reads is the visitor's).
    // A third variant flushes hourly, never within the run: the request path's share (record()
    // and the per-turn enrichment) without the flushes' (their rows built, sent, and Postgres).
    // ANALYTICS_FLUSH_INTERVAL_MS, where the service has it, writes the rollups apart from the counts.
    // Each runs alone: a flush of one would otherwise be done beside the other's run.
    const visitors = audience({ ...VISITORS, seed: 17 });
    const clicks = hotPaths.map((request) => ({ ...request, headers: clickHeaders(visitors.click()) }));
    // The rounds stop each service for seconds at a time (SIGSTOP): a flush under way must outlive
    // that, and Postgres ends a transaction idle for BREAKER_TIMEOUT_MS (db/pool.ts), as the
    // client gives up on a count write after it. Longer here for all three, so that a flush is not
    // failed by the rounds and done again (hot redirects never wait on Postgres).
    const proxied = { TRUST_PROXY: 'loopback', BREAKER_TIMEOUT_MS: '30000' };
    await pairedHot(
      'analytics',
      [
        { variant: 'ANALYTICS_ENABLED=true', label: 'analytics', env: { ...proxied, ANALYTICS_ENABLED: 'true' } },
        {
          variant: 'ANALYTICS_ENABLED=true, CLICK_FLUSH_INTERVAL_MS=ANALYTICS_FLUSH_INTERVAL_MS=3600000',
          label: 'analytics · no flush',
          env: { ...proxied, ANALYTICS_ENABLED: 'true', CLICK_FLUSH_INTERVAL_MS: '3600000', ANALYTICS_FLUSH_INTERVAL_MS: '3600000' },
        },
        { variant: 'ANALYTICS_ENABLED=false', label: 'analytics · off', env: { ...proxied, ANALYTICS_ENABLED: 'false' } },
        // The analytics of another checkout, in the same rounds: a change's gain side by side.
        ...(against === undefined
          ? []
          : [
              {
                variant: `ANALYTICS_ENABLED=true, the service of ${against}`,
                label: `analytics · ${basename(against)}`,
                env: { ...proxied, ANALYTICS_ENABLED: 'true' },
                script: againstEntry as string,
              },
            ]),
      ],
      clicks,
      'ANALYTICS_ENABLED',
      { alone: true },
    );
    const off = runs.find((run) => run.label === 'analytics · off');
    const perRequest = (run: RunResult) => (run.cpu.server === null ? '—' : `${((run.cpu.server / run.rps) * 1e6).toFixed(1)} µs`);
    for (const label of ['analytics', 'analytics · no flush', ...(against === undefined ? [] : [`analytics · ${basename(against)}`])]) {
      const on = runs.find((run) => run.label === label);
      if (on === undefined || off === undefined || on.rps === 0 || off.rps === 0) continue;
      log(
        `${label}: ${(on.rps / off.rps).toFixed(3)}× off; server CPU per request ${perRequest(on)}, off ${perRequest(off)}; ` +
          `CPU of the server and of ${on.generator ?? 'the generator'}: ${fmtShare(on.cpu.server)} and ${fmtShare(on.cpu.client)}, ` +
          `off ${fmtShare(off.cpu.server)} and ${fmtShare(off.cpu.client)}`,
      );
    }
  }
  if (wants('stream')) {
    // With --database-cpus, a Redis of the run's own there, at nice 19 as its Postgres: the stream's
    // XADDs (a few µs of Redis each) are work a deployment's Redis does on its own machine, and on
    // a shared one here they would take the server's core or the generator's.
    const streamRedis = databaseCpus === null ? redis : await privateRedisOn(databaseCpus);
    if (streamRedis === null) {
      for (const label of ['stream', 'stream · off'])
        skip('stream', label, 'needs a Redis: set REDIS_URL or --redis-url, or --database-cpus');
    } else {
      // What the click stream costs the hot path: the same service with CLICK_STREAM=off, in the
      // same rounds, both with analytics and the Redis tier, sent the analytics scenario's clicks.
      // Both flush every CLICK_FLUSH_INTERVAL_MS (its default, 5 s): the stream's batches fall in the runs.
      const visitors = audience({ ...VISITORS, seed: 17 });
      const clicks = hotPaths.map((request) => ({ ...request, headers: clickHeaders(visitors.click()) }));
      log(`stream: Redis is ${streamRedis.label}`);
      const both = { TRUST_PROXY: 'loopback', BREAKER_TIMEOUT_MS: '30000', ANALYTICS_ENABLED: 'true', ...streamRedis.env };
      await pairedHot(
        'stream',
        [
          { variant: 'CLICK_STREAM=redis', label: 'stream', env: { ...both, CLICK_STREAM: 'redis' } },
          { variant: 'CLICK_STREAM=off', label: 'stream · off', env: { ...both, CLICK_STREAM: 'off' } },
        ],
        clicks,
        'CLICK_STREAM',
        { alone: true, paced: STREAM_PACED_SHARE },
      );
      const perRequest = (run: RunResult) => (run.cpu.server === null ? '—' : `${((run.cpu.server / run.rps) * 1e6).toFixed(1)} µs`);
      for (const suffix of ['', ' · paced']) {
        const on = runs.find((run) => run.label === `stream${suffix}`);
        const off = runs.find((run) => run.label === `stream · off${suffix}`);
        if (on !== undefined && off !== undefined && on.rps > 0 && off.rps > 0) {
          log(`stream${suffix}: ${(on.rps / off.rps).toFixed(3)}× off; server CPU per request ${perRequest(on)}, off ${perRequest(off)}`);
        }
      }
    }
  }
  return {
    database: remote !== undefined ? 'the deployment’s own' : (database?.label ?? ''),
    redis: remote !== undefined ? 'the deployment’s own' : (redis?.label ?? 'off (REDIS_URL unset)'),
  };
}

async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).toReversed()) await cleanup().catch((err: unknown) => console.error(err));
}

/** Starts a server (the service unless `name` says otherwise) and keeps it on the list to stop. */
async function launch(env: Record<string, string>, name = '../src/process/main.ts', prefix = serverPrefix): Promise<ServerProcess> {
  // Every server, baselines included, runs with the same Node flags. All load comes from one
  // address, whose 404 budget the not-found scenario would spend in a second, and whose create
  // limit the seeding and the create scenarios would.
  const server = await startServer(
    { NODE_OPTIONS: SERVICE_NODE_OPTIONS, NOT_FOUND_LIMIT_PER_MINUTE: '0', RATE_LIMIT_ENABLED: 'false', ...env },
    120_000,
    name.startsWith('/') ? name : script(name),
    prefix,
  );
  live.add(server);
  return server;
}

/**
 * Another service process with every link in its LRU: on the links of `codes` (its database is
 * the main one), or on a scratch database of its own in `folder` (no Redis: the hot path is the
 * LRU's), seeded like the main one; with the same traffic over its own codes.
 */
async function seededService(
  options: { script?: string; env: Record<string, string>; name: string } & ({ codes: readonly string[] } | { folder: string }),
): Promise<{ server: ServerProcess; paths: readonly Request[] }> {
  // Another checkout's service applies its own migrations: this one's may be of a schema its code does not know.
  const own = 'folder' in options ? await prepareDatabase(options.folder, { migrated: options.script === undefined }) : null;
  const server = await launch({ ...own?.env, ...options.env }, options.script);
  let codes: readonly string[];
  if ('codes' in options) codes = options.codes;
  else {
    log(`seeding ${linkCount.toLocaleString('en-US')} links into ${options.name}`);
    codes = (await seed(server.url, linkCount)).map(([code]) => code);
  }
  await warmUp(server.url, codes, options.name);
  return { server, paths: zipfPaths(codes, Math.max(20_000, connections * 200), zipfS, 1).map(get) };
}

/**
 * Asks for every code once (on `host`'s domain, if given), so that all are in the LRU before a hot
 * run; `copies` times for a cluster, on as many consecutive connections: node:cluster hands
 * connections to its workers in turn, so each worker gets every code (with a connection count
 * that `copies` divides).
 */
async function warmUp(
  url: string,
  codes: readonly string[],
  name: string,
  { copies = 1, host }: { copies?: number; host?: string } = {},
): Promise<void> {
  const request = host === undefined ? get : getOn(host);
  const requests = codes.flatMap((code) => Array.from({ length: copies }, () => request(`/${code}`)));
  const run = await measure(
    {
      scenario: 'hot',
      variant: 'service',
      label: 'warm-up',
      url,
      connections: Math.ceil(connections / copies) * copies,
      requests: () => requests,
      amount: requests.length,
    },
    600,
    0,
  );
  log(`warm-up of ${name}: ${run.requests.toLocaleString('en-US')} requests, ${JSON.stringify(run.statuses)}`);
}

/**
 * The hot traffic of a branded domain on the main service at `base`: an admin key written into
 * its database, the domain added with it through POST /domains, as many links created on it as
 * on the default domain, each asked for once on its Host; then the hot run's Zipf draw over them.
 */
async function brandedPaths(base: string, databaseUrl: string): Promise<Request[]> {
  const key = await withClient(databaseUrl, (client) => createApiKey(client, { name: 'load: branded domain', role: 'admin' }));
  const added = await fetch(`${base}/domains`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ host: BRANDED_HOST }),
  });
  if (added.status !== 201) fail(`POST /domains answered ${added.status}: ${await added.text()}`);
  log(`seeding ${linkCount.toLocaleString('en-US')} links on ${BRANDED_HOST} through POST ${base}/links`);
  const codes = (await seed(base, linkCount, BRANDED_HOST)).map(([code]) => code);
  await warmUp(base, codes, `the service on ${BRANDED_HOST}`, { host: BRANDED_HOST });
  return zipfPaths(codes, Math.max(20_000, connections * 200), zipfS, 1).map(getOn(BRANDED_HOST));
}

/** Seeds links through POST /links (on the domain of host `domain`, if given); returns [code, url] of each one created. */
async function seed(url: string, count: number, domain?: string, options?: object): Promise<[string, string][]> {
  const links: [string, string][] = [];
  const refused = new Map<string, number>();
  const onResponse = (status: number, body: string) => {
    if (status === 201) {
      const created = JSON.parse(body) as { code: string; url: string };
      links.push([created.code, created.url]);
    } else {
      const code = (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? String(status);
      refused.set(code, (refused.get(code) ?? 0) + 1);
    }
  };
  const body = (i: number) => ({
    url: targetUrl(i),
    ...(domain === undefined ? {} : { domain }),
    ...(options === undefined ? {} : { options }),
  });
  const requests = Array.from({ length: count }, (_, i): Request => ({ ...post('/links', body(i)), onResponse }));
  // Many connections: creates are group-committed, so more of them in flight seed faster.
  const run = await measure(
    { scenario: 'seed', variant: 'service', label: 'seed', url, connections: SEED_CONNECTIONS, requests: () => requests, amount: count },
    600,
    0,
  );
  if (links.length !== count)
    fail(
      `seeding created ${links.length} of ${count} links: ${JSON.stringify(run.statuses)} (${JSON.stringify(Object.fromEntries(refused))}), ` +
        `${run.errors} connection errors or timeouts`,
    );
  log(`seeded at ${run.rps.toLocaleString('en-US')} links/s`);
  return links;
}

/**
 * A fresh database for this run: a scratch one on DATABASE_URL's server (migrated, unless not
 * `migrated`: the service migrates it as it starts), or an embedded folder.
 */
async function prepareDatabase(folder = 'pglite', { migrated = true } = {}): Promise<{ env: Record<string, string>; label: string }> {
  if (databaseCpus !== null) {
    const server = await PrivatePostgres.start({ cpus: databaseCpus });
    cleanups.push(() => server.stop());
    const url = await server.createDatabase('load');
    if (migrated) await migrate(url, pino({ level: 'silent' }));
    return {
      env: { DATABASE_URL: url },
      label: `a Postgres of the run's own on 127.0.0.1:${server.port}, on CPU ${databaseCpus.join(',')} at nice 19`,
    };
  }
  if (process.env.DATABASE_URL !== undefined) {
    const db = await createTestDatabase('load', { migrated });
    cleanups.push(() => db.drop());
    const server = new URL(db.url);
    return { env: { DATABASE_URL: db.url }, label: `Postgres at ${server.host} (scratch database ${db.name}, dropped afterwards)` };
  }
  return { env: { EMBEDDED_DATA_DIR: join(scratch, folder) }, label: 'embedded PGlite (DATABASE_URL unset)' };
}

/** A redis-server of the run's own on `onCpus` at nice 19, stopped at the end. */
async function privateRedisOn(onCpus: readonly number[]): Promise<{ env: Record<string, string>; label: string }> {
  const server = await PrivateRedis.start();
  cleanups.push(() => server.stop());
  spawnSync('taskset', ['-a', '-p', '-c', onCpus.join(','), String(server.pid)], { stdio: 'ignore' });
  spawnSync('renice', ['-n', '19', '-p', String(server.pid)], { stdio: 'ignore' });
  return {
    env: { REDIS_URL: server.url, REDIS_KEY_PREFIX: 'load:' },
    label: `a redis-server of the run's own on 127.0.0.1:${server.port}, on CPU ${onCpus.join(',')} at nice 19`,
  };
}

/** Redis for this run, under a key prefix of its own that is deleted afterwards; null without a Redis URL. */
function prepareRedis(): { env: Record<string, string>; url: string; prefix: string; label: string } | null {
  if (redisUrl === undefined) return null;
  const prefix = randomPrefix('load');
  cleanups.push(() => deleteKeys(redisUrl, prefix));
  return {
    env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix },
    url: redisUrl,
    prefix,
    label: `Redis at ${new URL(redisUrl).host} (key prefix ${prefix}, deleted afterwards)`,
  };
}

/**
 * The storage scenario: the size of what the seeding wrote to Postgres and to Redis, then one
 * click on each link of `codes` (the click flusher writes their rows of link_clicks_daily, their
 * counts in `links` and their rollups), and the size of that; then BUSY_CLICKS - 1 more on each,
 * and what the rollups of that busy day cost. The clicks are browsers' (load/visitors.ts),
 * through a service of their own that believes X-Forwarded-For from loopback (the main service
 * does not: every click would come from 127.0.0.1, one country), on the same database and Redis.
 */
async function storageRun(
  codes: readonly string[],
  env: Record<string, string>,
  databaseUrl: string,
  redis: { url: string; prefix: string } | null,
): Promise<RunResult> {
  const links = await linksStorage(databaseUrl);
  const keys = redis === null ? null : await redisStorage(redis.url, redis.prefix);
  const empty = await clickTableSizes(databaseUrl);
  // Statements of two minutes: a flush of a busy day's rollups takes longer than the default 2 s
  // allows (load/enrich-bench.ts), and here it is the size that is measured, not the time.
  const clicker = await launch({
    ...env,
    TRUST_PROXY: 'loopback',
    ANALYTICS_ENABLED: 'true',
    CLICK_FLUSH_INTERVAL_MS: '1000',
    ANALYTICS_FLUSH_INTERVAL_MS: '1000',
    DB_STATEMENT_TIMEOUT_MS: '120000',
    BREAKER_TIMEOUT_MS: '125000',
  });
  const visitors = audience({ ...VISITORS, seed: 23 });
  const click = async (times: number, counted: number) => {
    const requests = Array.from({ length: times }, () =>
      codes.map((code) => ({ ...get(`/${code}`), headers: clickHeaders(visitors.click()) })),
    ).flat();
    await measure(
      {
        scenario: 'storage',
        variant: 'service',
        label: 'clicks',
        url: clicker.url,
        connections,
        requests: () => requests,
        amount: requests.length,
      },
      600,
      0,
    );
    await clicksCounted(databaseUrl, counted);
  };
  const analytics: AnalyticsStorage[] = [];
  try {
    await click(1, codes.length);
    const clicked = await clicksStorage(databaseUrl);
    analytics.push(await analyticsStorage(databaseUrl, empty, codes.length, 1));
    log(`storage: the busy day: ${BUSY_CLICKS - 1} more clicks on each of the ${codes.length.toLocaleString('en-US')} links`);
    await click(BUSY_CLICKS - 1, codes.length * BUSY_CLICKS);
    analytics.push(await analyticsStorage(databaseUrl, empty, codes.length, BUSY_CLICKS));
    const storage = { postgres: { ...links, ...clicked }, redis: keys, analytics };
    log(`storage: ${describeStorage(storage).join('; ')}`);
    return quietRun('storage', 'storage', { storage });
  } finally {
    await stop(clicker);
  }
}

/**
 * Waits until link_clicks_daily and the links' own rows of click_rollups (dimension 0: every
 * click) both count `clicks` clicks. Gives up when the count has not grown for 150 s (a flush may
 * take up to the clicker's statement timeout).
 */
async function clicksCounted(databaseUrl: string, clicks: number): Promise<void> {
  const count = () =>
    withClient(databaseUrl, async (client) => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT least((SELECT coalesce(sum(clicks + bot_clicks), 0) FROM link_clicks_daily),
                      (SELECT coalesce(sum(clicks + bot_clicks), 0) FROM click_rollups WHERE dimension = 0)) AS n`,
      );
      return Number(rows[0]?.n);
    });
  let last = -1;
  for (let still = 0; still < 150_000; still += 250) {
    const now = await count();
    if (now >= clicks) return;
    if (now !== last) still = 0;
    last = now;
    await sleep(250);
  }
  log(
    `storage: link_clicks_daily and click_rollups count ${last.toLocaleString('en-US')} of ${clicks.toLocaleString('en-US')} clicks, and no more for 150 s; sizing those`,
  );
}

/**
 * The list scenario: a workspace of --list-links links seeded straight into a scratch database
 * (load/list-seed.ts), the service on it, and each shape of the link list (load/list-bench.ts)
 * asked --list-requests times over LIST_CONNECTIONS connections by autocannon, which times every
 * response from its request's write to its last byte; then each shape's plan, and the export of
 * the whole list, once. One run per shape, and one over all of them ('list').
 */
async function listRun(): Promise<void> {
  if (remote !== undefined) return skip('list', 'list', 'needs local processes (not with --url)');
  if (process.env.DATABASE_URL === undefined) {
    return skip(
      'list',
      'list',
      'needs DATABASE_URL: it seeds its workspace with SQL into a scratch database (the embedded engine is one session, held by the service)',
    );
  }
  const db = await createTestDatabase('list');
  cleanups.push(() => db.drop());
  log(`list: seeding ${listLinkCount.toLocaleString('en-US')} links into the scratch database ${db.name}`);
  const seeded = await seedList(db.url, listLinkCount, log);
  const server = await launch({ DATABASE_URL: db.url });
  const serverPid = server.child.pid;
  try {
    const key = await withClient(db.url, (client) =>
      createApiKey(client, { name: 'list benchmark', role: 'viewer', workspaceId: LIST_WORKSPACE_ID }),
    );
    const headers = { authorization: `Bearer ${key.secret}` };
    const terms = await chooseTerms(db.url, seeded);
    const deep = {
      created: await deepCursors(server.url, key.secret, 'created'),
      clicks: await deepCursors(server.url, key.secret, 'clicks'),
    };
    const pooled: number[] = [];
    const shapeRuns: RunResult[] = [];
    for (const shape of listShapes(seeded, terms, deep)) {
      // Every connection walks every path of the shape.
      const requests = Array.from({ length: LIST_CONNECTIONS * shape.paths.length }, (_, i): Request => ({
        method: 'GET',
        path: shape.paths[i % shape.paths.length] ?? '/',
        headers,
      }));
      const variant: Variant = {
        scenario: 'list',
        variant: 'service',
        label: `list · ${shape.label}`,
        url: server.url,
        connections: LIST_CONNECTIONS,
        requests: () => requests,
        serverPid,
      };
      const waited = await listAnswers(server.url, key.secret);
      if (waited > 0) log(`list: waited ${waited} ms for the list's breaker that the shape before opened`);
      await measure({ ...variant, label: 'warm-up', amount: LIST_WARMUP }, LIST_SHAPE_SECONDS, 0);
      const run = await measure({ ...variant, amount: listRequests, latencySink: pooled }, LIST_SHAPE_SECONDS, 0);
      const plans: ListPlan[] = [];
      for (const path of shape.paths) {
        const plan = await explainPath(db.url, path);
        if (plan !== null) plans.push(plan);
      }
      shapeRuns.push(record({ ...run, listShape: { paths: shape.paths, plans } }));
      const slowest = slowestPlan(plans);
      if (slowest !== undefined) {
        const matched = slowest.matches === null ? '' : `, ${slowest.matches.toLocaleString('en-US')} rows match`;
        const ofPaths = plans.length > 1 ? ` (the slowest of its ${plans.length} paths: ${slowest.path})` : '';
        log(`  plan${ofPaths}: ${slowest.indexes.join(', ') || 'no index'}, ${slowest.executionMs} ms in Postgres${matched}`);
      }
    }
    let exported: ListExport | null = null;
    let exportProblem: string | undefined;
    try {
      await listAnswers(server.url, key.secret);
      exported = await exportAll(server.url, key.secret, serverPid);
      log(
        `list: GET /links/export.csv: ${exported.rows.toLocaleString('en-US')} rows in ${exported.seconds} s ` +
          `(${exported.rowsPerSecond.toLocaleString('en-US')} rows/s), first byte after ${exported.firstByteMs} ms`,
      );
    } catch (err) {
      exportProblem = err instanceof Error ? err.message : String(err);
      log(`list: GET /links/export.csv failed: ${exportProblem}`);
    }
    const worst = shapeRuns.reduce((a, b) => (b.latency.p99 > a.latency.p99 ? b : a));
    const counted = shapeRuns.reduce((sum, run) => sum + run.seconds, 0);
    const sum = (pick: (run: RunResult) => number) => shapeRuns.reduce((total, run) => total + pick(run), 0);
    const statuses: Record<string, number> = {};
    for (const run of shapeRuns) for (const [status, n] of Object.entries(run.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
    const requests = sum((run) => run.requests);
    const overall: RunResult = {
      scenario: 'list',
      variant: 'service',
      label: 'list',
      generator: 'autocannon',
      connections: LIST_CONNECTIONS,
      offeredRate: null,
      seconds: Math.round(counted * 100) / 100,
      requests,
      rps: Math.round(requests / counted),
      latency: percentiles(pooled),
      statuses,
      errors: sum((run) => run.errors),
      cpu: {
        client: Math.round((sum((run) => run.cpu.client * run.seconds) / counted) * 100) / 100,
        server: shapeRuns.some((run) => run.cpu.server === null)
          ? null
          : Math.round((sum((run) => (run.cpu.server ?? 0) * run.seconds) / counted) * 100) / 100,
      },
      list: {
        links: seeded.links,
        requestsPerShape: listRequests,
        connections: LIST_CONNECTIONS,
        worst: { label: worst.label, p99: worst.latency.p99 },
        seeding: seeded.seeding,
        export: exported,
        ...(exportProblem === undefined ? {} : { exportProblem }),
      },
    };
    record(overall);
  } finally {
    await stop(server);
  }
}

async function memoryRun(): Promise<RunResult> {
  const flags = SERVICE_NODE_OPTIONS === '' ? [] : SERVICE_NODE_OPTIONS.split(' ');
  const args = ['--expose-gc', ...flags, script('memory-probe.ts'), '--links', String(memoryLinks)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) fail(`memory probe exited with ${code}`);
  const memory = JSON.parse(out) as { links: number; rssMb: number; rssBeforeMb: number; heapUsedMb: number; bytesPerLink: number };
  log(
    `memory: ${memory.rssMb} MB resident with ${memory.links.toLocaleString('en-US')} links in the LRU ` +
      `(${memory.rssBeforeMb} MB before the first)`,
  );
  const { links, rssMb, rssBeforeMb, heapUsedMb, bytesPerLink } = memory;
  return quietRun('memory', 'memory', { memory: { links, rssMb, rssBeforeMb, heapUsedMb, bytesPerLink } });
}

async function stop(server: ServerProcess): Promise<void> {
  // A server stopped (SIGSTOP) beside another's run would not act on the SIGTERM.
  server.child.kill('SIGCONT');
  server.child.kill('SIGTERM');
  // The service drains within its SHUTDOWN_GRACE_MS (10 s); anything slower is stuck.
  const stuck = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await server.exited;
  clearTimeout(stuck);
  live.delete(server);
}

/** What a service logged at warn or above, each message once with how many times. */
function logWarnings(label: string, server: ServerProcess): void {
  const counted = new Map<string, number>();
  for (const entry of server.logs) {
    if (typeof entry.level !== 'number' || entry.level < 40) continue;
    const message = String(entry.msg);
    counted.set(message, (counted.get(message) ?? 0) + 1);
  }
  if (counted.size === 0) return;
  log(`${label}: the service logged ${[...counted].map(([message, n]) => `"${message}" ×${n}`).join(', ')}`);
}

/**
 * Waits (up to 5 s, above the statement timeout) until no other session runs a statement on the
 * database: a service just stopped may have left one (a flush) for Postgres to finish.
 */
async function postgresQuiet(databaseUrl: string): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    for (let waited = 0; waited < 5000; waited += 50) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state = 'active'`,
      );
      if (rows[0]?.n === 0) return;
      await sleep(50);
    }
  });
}

function fmtShare(share: number | null): string {
  return share === null ? '—' : `${Math.round(share * 100)} %`;
}

function script(name: string): string {
  return new URL(name, import.meta.url).pathname;
}

/** A --*-cpus option as a list of CPUs, or null when it is not set. */
function cpuOption(name: 'server-cpus' | 'generator-cpus' | 'cluster-cpus' | 'database-cpus'): number[] | null {
  const list = values[name];
  if (list === undefined) return null;
  try {
    return parseCpuList(list);
  } catch {
    return usage(`--${name} must be a CPU list such as 1 or 0,2-3, not "${list}"`);
  }
}

/**
 * Where the two workers of the cluster run: --cluster-cpus, or the server CPUs and as many of
 * the others as it takes to make two, the load generator's last. Informational (no verdict) when
 * they include a CPU of the load generator, or nothing is pinned.
 */
function placeCluster(option: number[] | null): { cpus: number[] | null; informational?: string } {
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

function positive(
  name: 'seconds' | 'rounds' | 'links' | 'connections' | 'memory-links' | 'list-links' | 'list-requests' | 'zipf-s',
): number {
  const n = Number(values[name]);
  if (!Number.isFinite(n) || n <= 0) usage(`--${name} must be a positive number, not "${values[name]}"`);
  return n;
}

function usage(message: string): never {
  console.error(`load: ${message}`);
  process.exit(2);
}

function fail(message: string): never {
  throw new LoadError(message);
}

/** The entry file of the checkout at `dir`: the last argument of its package.json start script, if it exists. */
function entryOf(dir: string): string | undefined {
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const start = (JSON.parse(readFileSync(manifest, 'utf8')) as { scripts?: { start?: string } }).scripts?.start;
  const file = start?.trim().split(/\s+/).at(-1);
  return file === undefined || !existsSync(join(dir, file)) ? undefined : join(dir, file);
}
