// The Redis connection, configured as a cache and not as a queue: when Redis is down, slow or
// hanging, a command fails within REDIS_COMMAND_TIMEOUT_MS and the caller goes on to Postgres. So
// no offline queue, no re-send of commands in flight after a reconnect, no retry while a cluster's
// master fails over (a miss instead; the slots are refreshed every 5 s), and reconnects forever in
// the background with a capped, jittered back-off. Why each: docs/architecture.md#the-redis-tier.

import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Config } from '../config/config.ts';

export type RedisClient = Redis | Cluster;

export type RedisConfig = Pick<
  Config,
  'redisUrl' | 'redisClusterUrls' | 'redisClusterNatMap' | 'redisCommandTimeoutMs' | 'redisConnectTimeoutMs' | 'redisAutoPipelining'
>;

const BACKOFF_MIN_MS = 50;
const BACKOFF_MAX_MS = 2000;

/** Reconnect after 50 ms, 100 ms, … up to 2 s, each between half and all of its step. */
export function reconnectDelay(attempt: number): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 10));
  return Math.round(step * (0.5 + Math.random() / 2));
}

/** The client the configuration asks for, or null when the Redis tier is off. It connects in the background. */
export function createRedisClient(config: RedisConfig): RedisClient | null {
  const node = {
    commandTimeout: config.redisCommandTimeoutMs,
    connectTimeout: config.redisConnectTimeoutMs,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    // Whatever the server's CLIENT SETINFO support, it is one less command at each connect.
    disableClientInfo: true,
  } satisfies RedisOptions;
  if (config.redisClusterUrls.length > 0) {
    return new Cluster(
      config.redisClusterUrls.map((url) => clusterNode(url)),
      {
        enableOfflineQueue: false,
        retryDelayOnFailover: 0,
        retryDelayOnClusterDown: 0,
        // Each refresh is a short connection and a CLUSTER SLOTS per process: every 5 s, a moved
        // slot is a miss (never an error) for at most that long.
        slotsRefreshInterval: 5000,
        clusterRetryStrategy: reconnectDelay,
        // A batch is one GET per key (redis/link-store.ts); auto-pipelining sends those of one node together.
        enableAutoPipelining: true,
        natMap: { ...config.redisClusterNatMap },
        redisOptions: { ...node, ...credentials(config.redisClusterUrls[0] ?? '') },
      },
    );
  }
  if (config.redisUrl === undefined) return null;
  return new Redis(config.redisUrl, {
    ...node,
    enableOfflineQueue: false,
    retryStrategy: reconnectDelay,
    enableAutoPipelining: config.redisAutoPipelining,
  });
}

function clusterNode(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: u.port === '' ? 6379 : Number(u.port) };
}

function credentials(url: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const u = new URL(url);
  return {
    ...(u.username === '' ? {} : { username: decodeURIComponent(u.username) }),
    ...(u.password === '' ? {} : { password: decodeURIComponent(u.password) }),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
