// The main service of a run: started once, as deployed (with the Redis tier when there is a Redis),
// seeded with --links links through POST /links, and the hot traffic over them; with --url, the
// deployment stands in for it, seeded alike. Also the other services that scenarios start on its
// links, and what a variant needs to send them traffic.

import type { ServerProcess } from '../test/helpers/server-process.ts';
import type { Context, Seeded, Service } from './context.ts';
import { prepareDatabase, prepareRedis } from './databases.ts';
import { hotPaths, seed, warmUp } from './seeding.ts';

/** Where a variant sends its traffic, and the process whose CPU it reads (none with --url). */
export interface Answering {
  readonly url: string;
  readonly serverPid: number | undefined;
}

export const mainAnswering = (service: Service): Answering => ({ url: service.url, serverPid: service.main?.child.pid });
export const serverAnswering = (server: ServerProcess): Answering => ({ url: server.url, serverPid: server.child.pid });

/** Starts the main service with `settings` besides the database's and Redis's, and seeds it. */
export async function startService(context: Context, settings: Readonly<Record<string, string>>): Promise<Service> {
  const { options, processes, setup } = context;
  const database = setup.local ? await prepareDatabase(processes, options.databaseCpus) : null;
  const redis = setup.local ? prepareRedis(processes, options.redisUrl) : null;
  const main = setup.local ? await processes.launch({ ...database?.env, ...redis?.env, ...settings }) : null;
  const url = options.url ?? (main as ServerProcess).url;
  // Links through the real API: 80-character URLs, as many as asked.
  context.log(`seeding ${options.links.toLocaleString('en-US')} links through POST ${url}/links`);
  const links = await seed(context, url, options.links);
  const codes = links.map(([code]) => code);
  let warmed: Promise<void> | undefined;
  return {
    main,
    url,
    database,
    redis,
    links,
    codes,
    hotPaths: hotPaths(options, codes),
    warm: () => (warmed ??= warmUp(context, url, codes, 'the service')),
  };
}

/** What the run's services stored their data in, for the report. */
export function ranOn(service: Service | undefined, options: Context['options']): { database: string; redis: string } {
  if (service === undefined) {
    return {
      database: process.env.DATABASE_URL === undefined ? 'none' : 'scratch databases on DATABASE_URL’s server, dropped afterwards',
      redis: 'not used',
    };
  }
  if (options.url !== undefined) return { database: 'the deployment’s own', redis: 'the deployment’s own' };
  return { database: service.database?.label ?? '', redis: service.redis?.label ?? 'off (REDIS_URL unset)' };
}

/** Another service (another checkout's, if `script`) on the main one's database, with `env` besides. */
export function startBeside(context: Context, env: Record<string, string>, script?: string): Promise<ServerProcess> {
  return context.processes.launch({ ...context.service.database?.env, ...env }, script);
}

/**
 * Another service process with every link in its LRU: on the main one's links (`codes`; with `env`
 * naming its database), or on a scratch database of its own in `folder` (no Redis: the hot path is
 * the LRU's), seeded like the main one; with the same traffic over its own codes.
 */
export async function seededService(
  context: Context,
  options: { script?: string; env: Record<string, string>; name: string } & ({ codes: readonly string[] } | { folder: string }),
): Promise<Seeded> {
  // Another checkout's service applies its own migrations: this one's may be of a schema its code does not know.
  const own =
    'folder' in options
      ? await prepareDatabase(context.processes, context.options.databaseCpus, options.folder, { migrated: options.script === undefined })
      : null;
  const server = await context.processes.launch({ ...own?.env, ...options.env }, options.script);
  let codes: readonly string[];
  if ('codes' in options) codes = options.codes;
  else {
    context.log(`seeding ${context.options.links.toLocaleString('en-US')} links into ${options.name}`);
    codes = (await seed(context, server.url, context.options.links)).map(([code]) => code);
  }
  await warmUp(context, server.url, codes, options.name);
  return { server, paths: hotPaths(context.options, codes) };
}
