// What every part of the app is registered with (app.ts builds the parts in order): the config,
// the logger and the process's lifecycle. A part that needs more declares it as its own options
// (db/plugin.ts DatabaseOptions, edge/plugin.ts EdgeOptions), and app.ts gives every part all of them.

import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.ts';

/** Set `draining` on SIGTERM: readiness fails, so that load balancers stop sending traffic before the server closes. */
export interface Lifecycle {
  draining: boolean;
}

export interface PartOptions {
  readonly config: Config;
  readonly log: Logger;
  readonly lifecycle: Lifecycle;
}

/** A part of the app; `Extra` is what it takes besides PartOptions. */
export type Part<Extra = object> = FastifyPluginAsync<PartOptions & Extra>;
