// The redirect family: the service's hot path (`hot`) in the same rounds as what bounds it from
// above and below: the load generator's own ceiling, a bare node:http server with a Map
// (`baseline`), a Go fasthttp server (`go`), the same service through node:http alone
// (`hot-slow`), and its links on a branded domain (`hot-domain`).
//
//   taskset -c 0 npm run load -- --server-cpus 1 --scenario ceiling,baseline,hot,hot-slow,go
//   taskset -c 0 npm run load -- --server-cpus 1 --scenario baseline,hot --against ../old
//   DATABASE_URL=postgres://… taskset -c 0 npm run load -- --server-cpus 1 --scenario hot,hot-domain --against ../old

import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Request } from 'autocannon';
import { createApiKey } from '../../src/auth/api-keys.ts';
import { withClient } from '../../test/helpers/db.ts';
import type { Context } from '../context.ts';
import { buildGoReference, startGoReference, writeLinksFile } from '../go-reference.ts';
import type { Variant } from '../measure.ts';
import { inRounds, LoadError, ONLY_LOCAL, skippedInRounds, type InRounds } from '../scenario.ts';
import { hotPaths, seed, warmUp } from '../seeding.ts';
import { mainAnswering, seededService, serverAnswering, type Answering } from '../service.ts';
import { notApplicable, perCoreRatio, ratio, withDetail, type Judged } from '../targets.ts';
import { fixed, getOn } from '../traffic.ts';
import type { RunResult } from '../types.ts';

/** A variant of `scenario` sent `requests` (the hot traffic by default), by wrk when the scenario is one it drives and it is there. */
export function redirectVariant(
  context: Context,
  scenario: string,
  variant: string,
  label: string,
  answering: Answering,
  requests: readonly Request[] = context.service.hotPaths,
): Variant {
  return {
    scenario,
    variant,
    label,
    ...answering,
    connections: context.options.connections,
    requests: fixed(requests),
    ...context.driver(scenario),
  };
}

export const ceiling: InRounds = {
  name: 'ceiling',
  needs: ['service', 'processes', 'wrk'],
  answers: ['302'],
  async rounds(context) {
    if (!context.setup.local) return skippedInRounds(context.skip('ceiling', 'ceiling', ONLY_LOCAL));
    const server = await context.processes.launch({}, 'ceiling-server.ts');
    context.rounds.all.push(server);
    return inRounds(redirectVariant(context, 'ceiling', 'ceiling (no HTTP work)', 'ceiling', serverAnswering(server)));
  },
};

export const baseline: InRounds = {
  name: 'baseline',
  needs: ['service', 'processes', 'wrk'],
  answers: ['302'],
  async rounds(context) {
    if (!context.setup.local) return skippedInRounds(context.skip('baseline', 'baseline', ONLY_LOCAL));
    const file = join(context.processes.scratch, 'links.json');
    await writeFile(file, JSON.stringify(context.service.links));
    const server = await context.processes.launch({ LINKS_FILE: file }, 'baseline-server.ts');
    context.rounds.all.push(server);
    context.rounds.baseline = server;
    return inRounds(redirectVariant(context, 'baseline', 'baseline (node:http + Map)', 'baseline', serverAnswering(server)));
  },
};

export const go: InRounds = {
  name: 'go',
  needs: ['service', 'processes', 'go', 'wrk'],
  answers: ['302'],
  async rounds(context) {
    const { processes, options } = context;
    const built = context.setup.local ? await buildGoReference(processes.scratch) : { missing: ONLY_LOCAL };
    if ('missing' in built) return skippedInRounds(context.skip('go', 'go', built.missing));
    const file = join(processes.scratch, 'links.txt');
    writeLinksFile(file, context.service.links);
    // One Go thread per server core; unpinned, Go's own default (every CPU it may run on).
    const env = { LINKS_FILE: file, ...(options.serverCpus === null ? {} : { GOMAXPROCS: String(options.serverCpus.length) }) };
    const server = processes.adopt(await startGoReference(built.binary, env, context.setup.serverPrefix));
    context.rounds.all.push(server);
    return inRounds(redirectVariant(context, 'go', 'Go fasthttp + sharded map', 'go', serverAnswering(server)));
  },
};

// Per second of server CPU (issue 39): wrk on one core cannot saturate a fast server, and a ratio
// of rates would then flatter the slower one.
const HOT_OVER_BASELINE = 1.5;
const HOT_OVER_GO = 0.85;

export const hot: InRounds = {
  name: 'hot',
  needs: ['service', 'against', 'wrk'],
  answers: ['302'],
  targets: [
    perCoreRatio(`hot ≥ ${HOT_OVER_BASELINE} × baseline, per server CPU-second`, 'hot', 'baseline', HOT_OVER_BASELINE),
    perCoreRatio(`hot ≥ ${HOT_OVER_GO} × go, per server CPU-second`, 'hot', 'go', HOT_OVER_GO),
  ],
  async rounds(context) {
    const { service } = context;
    await service.warm();
    const own = redirectVariant(context, 'hot', 'service', 'hot', mainAnswering(service));
    const against = context.options.against;
    if (against === undefined) return inRounds(own);
    // The service of another checkout, on links of its own, in the same rounds: a change's gain side by side.
    const label = `hot · ${basename(against.dir)}`;
    if (!context.setup.local) return { variants: [own], skipped: [context.skip('hot', label, ONLY_LOCAL)] };
    const other = await seededService(context, { script: against.entry, env: {}, folder: 'pglite-against', name: against.dir });
    context.rounds.all.push(other.server);
    return inRounds(own, redirectVariant(context, 'hot', `service of ${against.dir}`, label, serverAnswering(other.server), other.paths));
  },
};

/** The hot run of the other checkout (--against), labelled by its folder. */
export function againstHot(runs: Judged): RunResult | undefined {
  return runs.all.find((run) => run.scenario === 'hot' && run.label !== 'hot');
}

/** The branded short domain of the hot-domain scenario (added through POST /domains; no DNS needed: requests name it in Host). */
const BRANDED_HOST = 'go.load.test';

/** Branded domains' goal: their hot path within 5 % of the release before them (--against), in the same rounds. */
const HOT_DOMAIN_OVER_AGAINST = 0.95;

export const hotDomain: InRounds = {
  name: 'hot-domain',
  needs: ['service', 'postgres', 'against', 'wrk'],
  answers: ['302'],
  targets: [
    // Links on a branded domain against the release before domains (--against); the default domain's ratio beside it.
    (runs) => {
      const other = againstHot(runs);
      const name = `hot-domain ≥ ${HOT_DOMAIN_OVER_AGAINST} × hot of --against`;
      const target = ratio(name, 'hot-domain', other?.label ?? 'hot · <--against>', HOT_DOMAIN_OVER_AGAINST)(runs);
      const hotRun = runs.find('hot');
      return withDetail(
        target,
        hotRun !== undefined && other !== undefined && runs.invalid(hotRun) === undefined && runs.invalid(other) === undefined
          ? `default domain: hot ${(hotRun.rps / other.rps).toFixed(2)}× "${other.label}"`
          : undefined,
      );
    },
  ],
  async rounds(context) {
    // The same service and traffic as the hot run, on links of a branded domain: a Host to look up, prefixed cache keys.
    const { service } = context;
    const databaseUrl = service.database?.env.DATABASE_URL;
    if (service.main === null) return skippedInRounds(context.skip('hot-domain', 'hot-domain', ONLY_LOCAL));
    if (databaseUrl === undefined) {
      const why =
        'needs DATABASE_URL (its admin key is written into the database; the embedded engine is one session, held by the service)';
      return skippedInRounds(context.skip('hot-domain', 'hot-domain', why));
    }
    const paths = await brandedPaths(context, databaseUrl);
    return inRounds(redirectVariant(context, 'hot-domain', `service, Host: ${BRANDED_HOST}`, 'hot-domain', mainAnswering(service), paths));
  },
};

/**
 * The hot traffic of a branded domain on the main service: an admin key written into its
 * database, the domain added with it through POST /domains, as many links created on it as on the
 * default domain, each asked for once on its Host; then the hot run's Zipf draw over them.
 */
async function brandedPaths(context: Context, databaseUrl: string): Promise<Request[]> {
  const base = context.service.url;
  const key = await withClient(databaseUrl, (client) => createApiKey(client, { name: 'load: branded domain', role: 'admin' }));
  const added = await fetch(`${base}/domains`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ host: BRANDED_HOST }),
  });
  if (added.status !== 201) throw new LoadError(`POST /domains answered ${added.status}: ${await added.text()}`);
  context.log(`seeding ${context.options.links.toLocaleString('en-US')} links on ${BRANDED_HOST} through POST ${base}/links`);
  const codes = (await seed(context, base, context.options.links, { domain: BRANDED_HOST, key: key.secret })).map(([code]) => code);
  await warmUp(context, base, codes, `the service on ${BRANDED_HOST}`, { host: BRANDED_HOST });
  return hotPaths(context.options, codes, getOn(BRANDED_HOST));
}

export const hotSlow: InRounds = {
  name: 'hot-slow',
  needs: ['service', 'processes', 'wrk'],
  answers: ['302'],
  targets: [
    // The fast path against node:http, in the same rounds: shown, not judged.
    (runs) => {
      const name = 'hot ÷ hot-slow (FAST_PATH=false)';
      const [hotRun, slow] = [runs.find('hot'), runs.find('hot-slow')];
      if (hotRun === undefined || slow === undefined) return notApplicable(name, 'needs the runs "hot" and "hot-slow"');
      const problem = runs.invalid(hotRun) ?? runs.invalid(slow);
      if (problem !== undefined) return notApplicable(name, `${runs.invalid(hotRun) === undefined ? 'hot-slow' : 'hot'}: ${problem}`);
      return {
        name,
        value: `${(hotRun.rps / slow.rps).toFixed(2)}×`,
        verdict: 'INFO',
        detail: `hot ${hotRun.rps.toLocaleString('en-US')} req/s, hot-slow ${slow.rps.toLocaleString('en-US')} req/s`,
      };
    },
  ],
  async rounds(context) {
    if (!context.setup.local) return skippedInRounds(context.skip('hot-slow', 'hot-slow', ONLY_LOCAL));
    // The same service with every request through node:http: on the same database when it can
    // be shared (with the same Redis), else on a scratch one of its own, seeded alike.
    const { service } = context;
    const name = 'the FAST_PATH=false service';
    const slow = await seededService(
      context,
      context.setup.sharedDatabase
        ? { env: { ...service.database?.env, ...service.redis?.env, FAST_PATH: 'false' }, codes: service.codes, name }
        : { env: { FAST_PATH: 'false' }, folder: 'pglite-slow', name },
    );
    context.rounds.all.push(slow.server);
    context.rounds.slow = slow;
    return inRounds(redirectVariant(context, 'hot-slow', 'service, FAST_PATH=false', 'hot-slow', serverAnswering(slow.server), slow.paths));
  },
};
