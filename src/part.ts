// What every part of the app is registered with (src/app.ts).

import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config/config.ts';
import type { Queryable } from './db/pool.ts';
import type { AddressOf } from './edge/client-address.ts';
import type { RedirectEdge } from './edge/server.ts';
import type { Lifecycle } from './lifecycle.ts';

export interface PartOptions {
  readonly config: Config;
  readonly log: Logger;
  readonly lifecycle: Lifecycle;
  /** Apply pending migrations first (false: a cluster's primary, or the tests, did it). */
  readonly migrate: boolean;
  /** A window between the app and its pool (tests hold or inspect statements through it). */
  readonly wrapDb: ((db: Queryable) => Queryable) | undefined;
  /** Where the server's request listener finds the redirect handler. */
  readonly edge: RedirectEdge;
  /** The client's address by TRUST_PROXY's rule: one reader (and its memo) for the 404 budget and analytics. */
  readonly addressOf: AddressOf;
}

export type Part = FastifyPluginAsync<PartOptions>;
