// Limits on creates (POST /links, POST /links/bulk, POST /links/import), through
// @fastify/rate-limit; what they promise: docs/api.md#rate-limits-on-creates. The plugin's key
// carries the request's weight ("<links> <client>": the API key, or else the address), and every
// route gets the same store, so they share one count of links (api/counters.ts). It runs at
// preHandler, after the API-key hook and validation: a bulk's size is known, and a malformed body
// costs nothing. With `global: false` only the routes given the returned config are hooked: the
// redirect path never pays.

import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Principal } from '../auth/roles.ts';
import type { Config } from '../config/config.ts';
import { AppError } from '../errors.ts';
import type { RedisClient } from '../redis/client.ts';
import { clientCounter, type Count, type Counter } from '../api/counters.ts';
import { clientKey } from '../edge/client-address.ts';

type CreateLimitsConfig = Pick<
  Config,
  'rateLimitEnabled' | 'rateLimitCreatesPerIp' | 'rateLimitCreatesPerKey' | 'rateLimitWindowMs' | 'redisKeyPrefix'
>;

export interface CreateLimitsDeps {
  config: CreateLimitsConfig;
  /** The Redis tier's client; null: the tier is off, counts stay in this process. */
  redis: RedisClient | null;
  log: Logger;
}

/**
 * The plugin's store interface over a counter. The plugin only passes a key, so the key carries
 * the request's weight: "<weight> <client>". Every route gets this same store (not a child per
 * route, which would count POST /links and POST /links/bulk apart).
 */
function storeOf(counter: Counter): FastifyRateLimitStoreCtor {
  return class CreateLimitStore implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: Count) => void, timeWindow: number, max: number): void {
      const space = key.indexOf(' ');
      const weight = Number(key.slice(0, space));
      Promise.resolve(counter.add(key.slice(space + 1), weight, max, timeWindow)).then(
        (count) => callback(null, count),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/** Links a request would create: the items of a bulk, the rows of an import, else one. Known once the body is read. */
function weightOf(request: FastifyRequest): number {
  const body = request.body as { links?: unknown; records?: unknown } | null | undefined;
  if (Array.isArray(body?.links)) return Math.max(1, body.links.length);
  return Array.isArray(body?.records) ? Math.max(1, body.records.length) : 1;
}

function keyOf(request: FastifyRequest): Principal | null {
  // Undefined where the API-key hook is not registered: anonymous.
  return request.apiKey ?? null;
}

/** The count of creates that every context's limiter shares (in Redis, or else in this process). */
export function createCounter({ config, redis, log }: CreateLimitsDeps): Counter {
  return clientCounter(redis, config.redisKeyPrefix, log, 'creates:', 'create rate limits');
}

/**
 * Registers the limiter (nothing when RATE_LIMIT_ENABLED is false) and returns the route `config`
 * that puts a route under it; undefined when off. Register before the routes that use it. Limiters
 * of several contexts given the same `counter` count one client's creates together.
 */
export async function registerCreateLimits(
  app: FastifyInstance,
  { config, redis, log }: CreateLimitsDeps,
  counter?: Counter,
): Promise<{ rateLimit: RateLimitOptions } | undefined> {
  if (!config.rateLimitEnabled) return undefined;
  const counts = counter ?? createCounter({ config, redis, log });
  const perKey = config.rateLimitCreatesPerKey;
  const perIp = config.rateLimitCreatesPerIp;
  const windowSeconds = Math.round(config.rateLimitWindowMs / 1000);
  await app.register(rateLimit, {
    global: false,
    // After the API-key hook (onRequest) and after validation: a bulk's size is known, and a
    // malformed body is a 400 that costs no count.
    hook: 'preHandler',
    store: storeOf(counts),
    timeWindow: config.rateLimitWindowMs,
    keyGenerator: (request) => {
      const key = keyOf(request);
      return `${weightOf(request)} ${key === null ? `ip:${clientKey(request.ip)}` : `key:${key.id}`}`;
    },
    max: (request) => (keyOf(request) === null ? perIp : perKey),
    // 0: no limit for that kind of client (e.g. trusted internal callers, which carry a key).
    allowList: (request) => (keyOf(request) === null ? perIp === 0 : perKey === 0),
    // The counter never fails (it falls back to this process); were it to, a create goes on.
    skipOnError: true,
    errorResponseBuilder(request, context) {
      const who = keyOf(request) === null ? 'address' : 'API key';
      const weight = weightOf(request);
      return new AppError(
        'RATE_LIMITED',
        weight > context.max
          ? `${weight} links at once are more than the ${context.max} this ${who} may create in ${windowSeconds} s; send fewer.`
          : `This ${who} may create ${context.max} links per ${windowSeconds} s; retry after ${Math.ceil(context.ttl / 1000)} s.`,
      );
    },
  });
  return { rateLimit: {} };
}
