// Services that differ in one setting, on the main service's links, measured side by side: in
// alternating rounds on a database they can share, one after the other on the embedded engine
// (which one process at a time opens). The tiers below the LRU (load/scenarios/tiers.ts) and the
// features on the hot path (metrics, dashboard, analytics, stream) are measured so.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Request } from 'autocannon';
import { withClient } from '../test/helpers/db.ts';
import type { ServerProcess } from '../test/helpers/server-process.ts';
import type { Context } from './context.ts';
import { compare, LATENCY_CONNECTIONS, measure, type Variant } from './measure.ts';
import { serverAnswering, startBeside } from './service.ts';
import { codePaths, fixed } from './traffic.ts';
import type { RunResult } from './types.ts';

/** One service of a comparison: its variant and label, its settings, and (`script`) the entry of another checkout (--against). */
export interface Setting {
  readonly variant: string;
  readonly label: string;
  readonly env: Record<string, string>;
  readonly script?: string;
}

/** Services of `settings` started cold on the hot traffic, side by side with `also` (variants already up), or one after another. */
export async function servicesSideBySide(
  context: Context,
  scenario: string,
  settings: readonly Setting[],
  also: readonly Variant[] = [],
): Promise<RunResult[]> {
  const { options, service } = context;
  if (context.setup.sharedDatabase) {
    const servers = await Promise.all(settings.map((setting) => startBeside(context, setting.env)));
    const side = settings.map((setting, i) => variantOf(context, scenario, setting, servers[i] as ServerProcess, service.hotPaths));
    const runs = (await compare([...side, ...also], options.seconds, options.rounds)).map(context.record);
    for (const server of servers) await context.processes.stop(server);
    return runs;
  }
  // One embedded data folder, one process at a time.
  const runs: RunResult[] = [];
  for (const setting of settings) {
    const server = await startBeside(context, setting.env);
    runs.push(context.record(await measure(variantOf(context, scenario, setting, server, service.hotPaths), options.seconds)));
    await context.processes.stop(server);
  }
  return runs;
}

/** The variant of a service of `setting`, sent `requests`. */
function variantOf(context: Context, scenario: string, setting: Setting, server: ServerProcess, requests: readonly Request[]): Variant {
  return {
    scenario,
    variant: setting.variant,
    label: setting.label,
    ...serverAnswering(server),
    connections: context.options.connections,
    requests: fixed(requests),
  };
}

/**
 * The hot path on services that differ in one setting (named `setting`), each with every link in
 * its LRU, sent `requests`, side by side in alternating rounds (one after the other on an embedded
 * database). `alone`: while one runs, the others are stopped (SIGSTOP), and its run starts once
 * Postgres has finished what they asked of it, so that the work a variant does in the background
 * (a flush to Postgres) is not done beside the other's run, on its core; what each service logged
 * at warn or above is summed up. `paced`: then all of them at that share of the slower one's rate.
 */
export async function hotSideBySide(
  context: Context,
  scenario: string,
  settings: readonly Setting[],
  requests: readonly Request[],
  setting: string,
  { alone = false, paced = 0 } = {},
): Promise<RunResult[]> {
  if (!context.setup.local)
    return settings.map((s) => context.skip(scenario, s.label, `needs services started with and without ${setting} (not with --url)`));
  const { options } = context;
  const driven = (s: Setting, server: ServerProcess): Variant => ({
    ...variantOf(context, scenario, s, server, requests),
    ...context.driver(scenario),
  });
  if (!context.setup.sharedDatabase) {
    const runs: RunResult[] = [];
    for (const s of settings) {
      const server = await warmed(context, scenario, s);
      runs.push(context.record(await measure(driven(s, server), options.seconds)));
      await context.processes.stop(server);
    }
    return runs;
  }
  const servers = await Promise.all(settings.map((s) => warmed(context, scenario, s)));
  const databaseUrl = context.service.database?.env.DATABASE_URL ?? '';
  const variants = settings.map((s, i) => {
    const server = servers[i] as ServerProcess;
    return { ...driven(s, server), ...(alone ? { alone: aloneOn(server, servers, databaseUrl) } : {}) };
  });
  const runs = (await compare(variants, options.seconds, options.rounds)).map(context.record);
  const slowest = Math.min(...runs.map((run) => run.rps));
  if (paced > 0 && slowest > 0) runs.push(...(await pacedRuns(context, scenario, variants, Math.round(slowest * paced), paced)));
  for (const [i, server] of servers.entries()) {
    await context.processes.stop(server);
    logWarnings(context, settings[i]?.label ?? '', server);
  }
  return runs;
}

/**
 * The variants again, each at `rate` offered evenly (autocannon: wrk cannot pace): the server CPU
 * each spends per request at the same rate, whatever else (a Redis, a Postgres) the machine's two
 * cores give their time to.
 */
async function pacedRuns(
  context: Context,
  scenario: string,
  variants: readonly Variant[],
  rate: number,
  share: number,
): Promise<RunResult[]> {
  context.log(`${scenario}: each at ${rate.toLocaleString('en-US')} req/s offered (${Math.round(share * 100)} % of the slower's rate)`);
  const paced = variants.map((variant) => ({
    ...variant,
    label: `${variant.label} · paced`,
    connections: LATENCY_CONNECTIONS,
    overallRate: rate,
    wrk: undefined,
  }));
  return (await compare(paced, context.options.seconds, context.options.rounds)).map(context.record);
}

/** A service of `setting` on the main one's database, with every link asked for once. */
async function warmed(context: Context, scenario: string, setting: Setting): Promise<ServerProcess> {
  const server = await startBeside(context, setting.env, setting.script);
  const { codes } = context.service;
  await measure(
    {
      scenario,
      variant: 'warm-up',
      label: 'warm-up',
      url: server.url,
      connections: context.options.connections,
      requests: fixed(codePaths(codes)),
      amount: codes.length,
    },
    600,
    0,
  );
  return server;
}

/** `server` alone: the others stopped while it runs, and Postgres done with what they asked of it first. */
function aloneOn(server: ServerProcess, servers: readonly ServerProcess[], databaseUrl: string): Variant['alone'] {
  const others = servers.filter((other) => other !== server);
  return {
    before: async () => {
      for (const other of others) other.child.kill('SIGSTOP');
      await postgresQuiet(databaseUrl);
    },
    after: async () => {
      for (const other of others) other.child.kill('SIGCONT');
    },
  };
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

/** What a service logged at warn or above, each message once with how many times. */
function logWarnings(context: Context, label: string, server: ServerProcess): void {
  const counted = new Map<string, number>();
  for (const entry of server.logs) {
    if (typeof entry.level !== 'number' || entry.level < 40) continue;
    const message = String(entry.msg);
    counted.set(message, (counted.get(message) ?? 0) + 1);
  }
  if (counted.size === 0) return;
  context.log(`${label}: the service logged ${[...counted].map(([message, n]) => `"${message}" ×${n}`).join(', ')}`);
}
