// The Redis tier as one part: the client, the link store, and the invalidation subscription.
// Off (null) when neither REDIS_URL nor REDIS_CLUSTER_URLS is set: one instance then works
// alone, and its LRU is the only cache (docs/operations.md#several-instances).

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { keyOf } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { Config } from '../config/config.ts';
import { Cluster } from 'ioredis';
import { createRedisClient, type RedisClient } from './client.ts';
import { Outbox } from './entries.ts';
import { RedisLinkStore } from './link-store.ts';
import { Subscription, type Invalidations } from './subscription.ts';

export type RedisTierConfig = Pick<
  Config,
  | 'redisUrl'
  | 'redisClusterUrls'
  | 'redisClusterNatMap'
  | 'redisKeyPrefix'
  | 'redisCommandTimeoutMs'
  | 'redisConnectTimeoutMs'
  | 'redisAutoPipelining'
  | 'redisTtlMs'
  | 'negativeTtlMs'
>;

export interface RedisTier {
  readonly store: RedisLinkStore;
  /** The connection, for other users of the shared Redis (the create rate limits). */
  readonly client: RedisClient;
  /** For /readyz: informative only, Redis never makes an instance unready. */
  status(): { redis: RedisLinkStore['state']; invalidations: 'live' | 'deaf'; unsentInvalidations: number };
  /** Whether invalidations reach this instance now. */
  hearing(): boolean;
  /** Subscribes to other instances' changes, in the background; until then this instance is deaf. */
  listen(invalidations: Invalidations): void;
  close(): void;
}

export function createRedisTier(config: RedisTierConfig, log: Logger): RedisTier | null {
  const client = createRedisClient(config);
  if (client === null) return null;
  const outbox = new Outbox(randomBytes(6).toString('base64url'));
  const store = new RedisLinkStore({
    client,
    prefix: config.redisKeyPrefix,
    ttlMs: config.redisTtlMs,
    negativeTtlMs: config.negativeTtlMs,
    outbox,
    log,
  });
  let subscription: Subscription | null = null;
  const hearing = (): boolean => subscription?.live ?? false;
  log.info({ cluster: client.isCluster, prefix: config.redisKeyPrefix }, 'Redis tier on: connecting in the background');

  return {
    store,
    client,
    status: () => ({
      redis: store.state,
      invalidations: hearing() ? 'live' : 'deaf',
      unsentInvalidations: store.unsent,
    }),
    hearing,
    listen(invalidations) {
      subscription ??= subscribe(client, store, outbox, config.redisKeyPrefix, invalidations, log);
    },
    close() {
      subscription?.stop();
      store.shutdown();
      // Not quit(): a hanging Redis would hold the shutdown up.
      client.disconnect();
    },
  };
}

function subscribe(
  client: RedisClient,
  store: RedisLinkStore,
  outbox: Outbox,
  prefix: string,
  invalidations: Invalidations,
  log: Logger,
): Subscription {
  // The Subscription subscribes at each connect, and handles a failure. ioredis's own re-subscribe
  // after a reconnect is a promise nobody awaits: a command timeout there would be an unhandled
  // rejection, which ends the process. (A cluster's subscriber catches its own.)
  const subscriber: RedisClient = client instanceof Cluster ? client.duplicate() : client.duplicate({ autoResubscribe: false });
  // The main client reports Redis going away; this one would say the same again.
  subscriber.on('error', () => {});
  const subscription = new Subscription({
    client,
    subscriber,
    prefix,
    outbox,
    invalidations,
    tick: () => void store.retryUnsent().then((sent) => dropSent(sent, invalidations, log)),
    log,
  });
  subscription.start();
  return subscription;
}

/**
 * This instance cached its own changes that Redis did not take; another instance's newer change,
 * heard before that, found nothing to drop here. Once Redis has them, they are read from it again.
 */
function dropSent(sent: readonly Link[], invalidations: Invalidations, log: Logger): void {
  try {
    for (const link of sent) invalidations.changed(keyOf(link));
  } catch (err) {
    log.error({ err }, 'changes sent again could not be dropped from the LRU');
  }
}
