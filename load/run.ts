// The load suite: every path of the service measured against its baseline in one run.
//
//   npm run load                                   the whole suite, on embedded defaults (or DATABASE_URL)
//   npm run load -- --scenario hot,not-found       only these scenarios (and what they need)
//   npm run load -- --url http://host:port --scenario hot     against an existing deployment
//   npm run load -- --links 1000000 --seconds 10  bigger and longer
//   REDIS_URL=redis://127.0.0.1:6379 npm run load   with the Redis tier (the redis scenario needs it)
//   DATABASE_URL=postgres://… npm run load -- --scenario storage    bytes per link in Postgres (and Redis)
//   taskset -c 0 npm run load -- --server-cpus 1 --scenario baseline,hot --against ../old
//                                                  per core, and the service of another checkout in the same rounds
//
// It starts what it needs as child processes (the service, the bare node:http baseline, the
// load generator's ceiling, the naive variants), seeds links through POST /links, runs each
// scenario for a bounded time with autocannon in this process, prints one table, and writes
// load/results/<timestamp>.json and .html. Read the ratios, not the absolute figures: this
// process and the server share the machine's cores.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem, type } from 'node:os';
import { basename, join, resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { Request } from 'autocannon';
import { createTestDatabase, withClient } from '../test/helpers/db.ts';
import { deleteKeys, randomPrefix } from '../test/helpers/redis.ts';
import { startServer, type ServerProcess } from '../test/helpers/server-process.ts';
import { compare, measure, WARMUP_MS, type Variant } from './measure.ts';
import { describeStorage, renderReport, renderTable } from './report.ts';
import { clicksStorage, linksStorage, redisStorage } from './storage.ts';
import { judgeTargets, quietRun, SCENARIOS, type Scenario } from './targets.ts';
import { get, post, randomCodes, seededRandom, targetUrl, zipfPaths } from './traffic.ts';
import type { RunResult, SuiteResult } from './types.ts';

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

/** More than any scanner run here has reached (the load generator's ceiling is ~30k req/s); sizes the list of distinct unknown codes. */
const MAX_SCANNER_RPS = 40_000;

/** A failure the suite explains in one line (a server that misbehaved, a probe that failed). */
class LoadError extends Error {}

// Servers run with the Node flags that `npm start` gives the service (package.json), nothing else.
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
const SERVICE_NODE_OPTIONS = /^node((?: --\S+)*) src\/server\.ts$/.exec(packageJson.scripts.start)?.[1]?.trim() ?? '';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    scenario: { type: 'string', default: SCENARIOS.join(',') },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    links: { type: 'string', default: '100000' },
    connections: { type: 'string', default: '100' },
    'memory-links': { type: 'string', default: '1000000' },
    'zipf-s': { type: 'string', default: '1.1' },
    'redis-url': { type: 'string', default: process.env.REDIS_URL },
    'server-cpus': { type: 'string' },
    against: { type: 'string' },
    out: { type: 'string', default: new URL('results', import.meta.url).pathname },
  },
});
const seconds = positive('seconds');
const rounds = Math.round(positive('rounds'));
const linkCount = positive('links');
const connections = positive('connections');
const memoryLinks = positive('memory-links');
const zipfS = positive('zipf-s');
const remote = values.url?.replace(/\/+$/, '');
const redisUrl = values['redis-url'];
/** Every server runs under `taskset -c` these CPUs: run this process on the others for per-core figures. */
const serverPrefix = values['server-cpus'] === undefined ? [] : ['taskset', '-c', values['server-cpus']];
/** Another checkout of the service (with its node_modules), whose hot path runs in the same rounds as this one's. */
const against = values.against === undefined ? undefined : resolvePath(values.against);
if (against !== undefined && !existsSync(join(against, 'src/server.ts'))) usage(`--against ${against}: no src/server.ts there`);
const selected = new Set(values.scenario.split(',').map((s) => s.trim()));
for (const name of selected) {
  if (!(SCENARIOS as readonly string[]).includes(name)) usage(`unknown scenario "${name}"; choose from ${SCENARIOS.join(', ')}`);
}
// The latency run is offered half of the hot run's measured maximum.
if (selected.has('latency')) selected.add('hot');
const wants = (s: Scenario) => selected.has(s);

// Whatever happens, the suite ends by itself: every run is bounded, and so is the whole.
const WATCHDOG_MS = 20 * 60_000;
const watchdog = setTimeout(() => {
  console.error(`load: the suite ran longer than ${WATCHDOG_MS / 60_000} minutes; stopping`);
  void abandon(1);
}, WATCHDOG_MS);

const started = new Date();
const runs: RunResult[] = [];
const scratch = await mkdtemp(join(tmpdir(), 'shortener-load-'));
const cleanups: (() => Promise<unknown>)[] = [() => rm(scratch, { recursive: true, force: true })];
const live = new Set<ServerProcess>();
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

try {
  const database = remote === undefined ? await prepareDatabase() : null;
  const redis = remote === undefined ? prepareRedis() : null;
  const service = (extra: Record<string, string> = {}) => launch({ ...database?.env, ...extra });
  // The service as deployed: with the Redis tier when there is a Redis (its creates write through).
  const main = remote === undefined ? await service(redis?.env) : null;
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
    else runs.push(await storageRun(base, pathsOf(codes.slice(0, CLICK_SAMPLE)), databaseUrl, redis));
  }

  // The redirect path against the Node ceiling and the load generator's own, side by side.
  const group: Variant[] = [];
  const helpers: ServerProcess[] = [];
  let baselineServer: ServerProcess | undefined;
  if (wants('ceiling')) {
    if (!local) skip('ceiling', 'ceiling', onlyLocal);
    else {
      const ceiling = await launch({}, 'ceiling-server.ts');
      helpers.push(ceiling);
      group.push({
        scenario: 'ceiling',
        variant: 'ceiling (no HTTP work)',
        label: 'ceiling',
        url: ceiling.url,
        connections,
        requests: fixed(hotPaths),
        serverPid: pidOf(ceiling),
      });
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
      group.push({
        scenario: 'baseline',
        variant: 'baseline (node:http + Map)',
        label: 'baseline',
        url: baseline.url,
        connections,
        requests: fixed(hotPaths),
        serverPid: pidOf(baseline),
      });
    }
  }
  // Every link once, so that all of them are in the LRU before a hot run.
  let warm = false;
  const warmUp = async () => {
    if (warm) return;
    warm = true;
    const run = await measure(
      {
        scenario: 'hot',
        variant: 'service',
        label: 'warm-up',
        url: base,
        connections,
        requests: fixed(pathsOf(codes)),
        amount: codes.length,
      },
      600,
      0,
    );
    log(`warm-up: ${run.requests.toLocaleString('en-US')} requests, ${JSON.stringify(run.statuses)}`);
  };
  if (wants('hot')) {
    await warmUp();
    group.push({
      scenario: 'hot',
      variant: 'service',
      label: 'hot',
      url: base,
      connections,
      requests: fixed(hotPaths),
      serverPid: pidOf(main),
    });
    if (against !== undefined) {
      if (!local) skip('hot', `hot · ${basename(against)}`, onlyLocal);
      else group.push(await againstVariant(against));
    }
  }
  if (wants('not-found')) {
    // A scanner: distinct codes of the generated shape, none of them a link, never repeated
    // (each round has its own), and more of them than can be asked for in a round. The baseline
    // answers the same codes with the same 404 bytes: a 404 costs the load generator more than a
    // 302 (it reads a body), and this shows how much.
    const perRound = Math.ceil(MAX_SCANNER_RPS * (seconds / rounds + WARMUP_MS / 1000));
    const random = randomCodes(perRound * rounds, codes[0]?.length ?? 7, seededRandom(2), new Set(codes));
    const scan = (round: number) => pathsOf(random.slice(round * perRound, (round + 1) * perRound));
    group.push({
      scenario: 'not-found',
      variant: 'service',
      label: 'not-found',
      url: base,
      connections,
      amount: perRound,
      serverPid: pidOf(main),
      requests: scan,
    });
    if (baselineServer !== undefined) {
      group.push({
        scenario: 'not-found',
        variant: 'baseline (node:http + Map)',
        label: 'not-found · baseline',
        url: baselineServer.url,
        connections,
        amount: perRound,
        serverPid: pidOf(baselineServer),
        requests: scan,
      });
    }
  }
  const measured = group.length === 0 ? [] : await compare(group, seconds, rounds);
  measured.forEach(record);
  const hot = measured.find((run) => run.label === 'hot');

  if (wants('latency') && hot !== undefined) {
    // Half the hot run's maximum, paced evenly over a few connections (with a hundred, their
    // timers fire in clumps and the latency measured is that of the clumps); the baseline at
    // the same rate shows what the machine and the load generator add to any server's latency.
    const rate = Math.max(1, Math.round(hot.rps / 2));
    const paced = { connections: LATENCY_CONNECTIONS, requests: fixed(hotPaths), overallRate: rate };
    const pair: Variant[] = [{ scenario: 'latency', variant: 'service', label: 'latency', url: base, serverPid: pidOf(main), ...paced }];
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
  // A database that several processes can open at once (not the embedded engine).
  const shared = database?.env.DATABASE_URL !== undefined;
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
        await warmUp();
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

  if (wants('metrics')) {
    if (!local) {
      for (const label of ['metrics', 'metrics · off'])
        skip('metrics', label, 'needs services started with and without METRICS_ENABLED (not with --url)');
    } else {
      // The hot path with metrics on and off: two services, each with every link in its LRU,
      // side by side in alternating rounds (one after the other on an embedded database). Both
      // count clicks, so requests carry a browser's User-Agent, as real clicks do.
      const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
      const clicks = fixed(hotPaths.map((request) => ({ ...request, headers: { 'user-agent': browser } })));
      const pair = [
        { variant: 'METRICS_ENABLED=true', label: 'metrics', env: { METRICS_ENABLED: 'true' } },
        { variant: 'METRICS_ENABLED=false', label: 'metrics · off', env: { METRICS_ENABLED: 'false' } },
      ];
      const warmed = async (env: Record<string, string>) => {
        const server = await service(env);
        await measure(
          {
            scenario: 'metrics',
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
        scenario: 'metrics',
        variant: v.variant,
        label: v.label,
        url: server.url,
        connections,
        requests: clicks,
        serverPid: pidOf(server),
      });
      if (shared) {
        const servers = await Promise.all(pair.map((v) => warmed(v.env)));
        (
          await compare(
            pair.map((v, i) => variantOf(v, servers[i] as ServerProcess)),
            seconds,
            rounds,
          )
        ).forEach(record);
        for (const server of servers) await stop(server);
      } else {
        for (const v of pair) {
          const server = await warmed(v.env);
          record(await measure(variantOf(v, server), seconds));
          await stop(server);
        }
      }
    }
  }

  if (wants('memory')) runs.push(await memoryRun());

  const targets = judgeTargets(runs);
  const result: SuiteResult = {
    startedAt: started.toISOString(),
    durationSeconds: Math.round((Date.now() - started.getTime()) / 1000),
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      os: `${type()} ${release()}`,
      node: process.version,
    },
    settings: {
      database: remote !== undefined ? 'the deployment’s own' : (database?.label ?? ''),
      redis: remote !== undefined ? 'the deployment’s own' : (redis?.label ?? 'off (REDIS_URL unset)'),
      url: remote ?? null,
      links: linkCount,
      zipfS,
      secondsPerRun: seconds,
      connections,
      command: `npm run load -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, ''),
    },
    runs,
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

async function runCleanups(): Promise<void> {
  for (const cleanup of cleanups.splice(0).toReversed()) await cleanup().catch((err: unknown) => console.error(err));
}

/** Starts a server (the service unless `name` says otherwise) and keeps it on the list to stop. */
async function launch(env: Record<string, string>, name = '../src/server.ts'): Promise<ServerProcess> {
  // Every server, baselines included, runs with the same Node flags. All load comes from one
  // address, whose 404 budget the not-found scenario would spend in a second, and whose create
  // limit the seeding and the create scenarios would.
  const server = await startServer(
    { NODE_OPTIONS: SERVICE_NODE_OPTIONS, NOT_FOUND_LIMIT_PER_MINUTE: '0', RATE_LIMIT_ENABLED: 'false', ...env },
    120_000,
    name.startsWith('/') ? name : script(name),
    serverPrefix,
  );
  live.add(server);
  return server;
}

/**
 * The service of another checkout, on a scratch database of its own (no Redis: the hot path is
 * the LRU's), seeded and warmed like this one, with the same traffic over its own codes.
 */
async function againstVariant(dir: string): Promise<Variant> {
  const database = await prepareDatabase('pglite-against');
  const other = await launch(database.env, join(dir, 'src/server.ts'));
  log(`seeding ${linkCount.toLocaleString('en-US')} links into the service of ${dir}`);
  const codes = (await seed(other.url, linkCount)).map(([code]) => code);
  const warm = await measure(
    {
      scenario: 'hot',
      variant: 'against',
      label: 'warm-up',
      url: other.url,
      connections,
      requests: () => codes.map((code) => get(`/${code}`)),
      amount: codes.length,
    },
    600,
    0,
  );
  log(`warm-up of ${dir}: ${warm.requests.toLocaleString('en-US')} requests, ${JSON.stringify(warm.statuses)}`);
  const paths = zipfPaths(codes, Math.max(20_000, connections * 200), zipfS, 1).map(get);
  return {
    scenario: 'hot',
    variant: `service of ${dir}`,
    label: `hot · ${basename(dir)}`,
    url: other.url,
    connections,
    requests: () => paths,
    serverPid: other.child.pid,
  };
}

/** Seeds links through POST /links; returns [code, url] of each one created. */
async function seed(url: string, count: number): Promise<[string, string][]> {
  const links: [string, string][] = [];
  const onResponse = (status: number, body: string) => {
    if (status === 201) {
      const created = JSON.parse(body) as { code: string; url: string };
      links.push([created.code, created.url]);
    }
  };
  const requests = Array.from({ length: count }, (_, i): Request => ({ ...post('/links', { url: targetUrl(i) }), onResponse }));
  // Many connections: creates are group-committed, so more of them in flight seed faster.
  const run = await measure(
    { scenario: 'seed', variant: 'service', label: 'seed', url, connections: SEED_CONNECTIONS, requests: () => requests, amount: count },
    600,
    0,
  );
  if (links.length !== count)
    fail(`seeding created ${links.length} of ${count} links: ${JSON.stringify(run.statuses)}, ${run.errors} connection errors or timeouts`);
  log(`seeded at ${run.rps.toLocaleString('en-US')} links/s`);
  return links;
}

/** A fresh database for this run: a scratch one on DATABASE_URL's server, or an embedded folder. */
async function prepareDatabase(folder = 'pglite'): Promise<{ env: Record<string, string>; label: string }> {
  if (process.env.DATABASE_URL !== undefined) {
    const db = await createTestDatabase('load');
    cleanups.push(() => db.drop());
    const server = new URL(db.url);
    return { env: { DATABASE_URL: db.url }, label: `Postgres at ${server.host} (scratch database ${db.name}, dropped afterwards)` };
  }
  return { env: { EMBEDDED_DATA_DIR: join(scratch, folder) }, label: 'embedded PGlite (DATABASE_URL unset)' };
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
 * click on each link of `clicks` (the click flusher writes their rows of link_clicks_daily and
 * their counts in `links`), and the size of that.
 */
async function storageRun(
  base: string,
  clicks: readonly Request[],
  databaseUrl: string,
  redis: { url: string; prefix: string } | null,
): Promise<RunResult> {
  const links = await linksStorage(databaseUrl);
  const keys = redis === null ? null : await redisStorage(redis.url, redis.prefix);
  await measure(
    { scenario: 'storage', variant: 'service', label: 'clicks', url: base, connections, requests: () => clicks, amount: clicks.length },
    600,
    0,
  );
  await clickRowsWritten(databaseUrl, clicks.length);
  const storage = { postgres: { ...links, ...(await clicksStorage(databaseUrl)) }, redis: keys };
  log(`storage: ${describeStorage(storage).join('; ')}`);
  return quietRun('storage', 'storage', { storage });
}

/** Waits (up to two default click-flush intervals) until link_clicks_daily holds `rows` rows. */
async function clickRowsWritten(databaseUrl: string, rows: number): Promise<void> {
  const count = () =>
    withClient(databaseUrl, async (client) =>
      Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM link_clicks_daily')).rows[0]?.n),
    );
  for (let waited = 0; waited < 10_000; waited += 250) {
    if ((await count()) >= rows) return;
    await sleep(250);
  }
  log(`storage: link_clicks_daily holds ${await count()} of ${rows} rows after 10 s; sizing those`);
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
  server.child.kill('SIGTERM');
  // The service drains within its SHUTDOWN_GRACE_MS (10 s); anything slower is stuck.
  const stuck = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await server.exited;
  clearTimeout(stuck);
  live.delete(server);
}

function script(name: string): string {
  return new URL(name, import.meta.url).pathname;
}

function positive(name: 'seconds' | 'rounds' | 'links' | 'connections' | 'memory-links' | 'zipf-s'): number {
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
