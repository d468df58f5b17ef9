// Limits on creates (POST /links and POST /links/bulk), through @fastify/rate-limit; what they
// promise: README.md, "Rate limits on creates". The plugin's key carries the request's weight
// ("<links> <client>": the API key, or else the address), and both routes get the same store, so
// they share one count of links. It runs at preHandler, after the API-key hook and validation: a
// bulk's size is known, and a malformed body costs nothing. Counts are kept in Redis (ADD_SCRIPT,
// one key per client) when the tier is on, in a LocalCounter otherwise, and in it for
// REDIS_BYPASS_MS after each Redis failure. With `global: false` only the routes given the
// returned config are hooked: the redirect path never pays.

import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Principal } from '../auth/roles.ts';
import type { Config } from '../config/config.ts';
import { AppError } from '../errors.ts';
import type { RedisClient } from '../redis/client.ts';
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

/** Clients whose count this process remembers; one forgotten for lack of room starts again at 0. */
const LOCAL_CLIENTS_MAX = 100_000;
/** After a Redis failure, count locally this long before asking Redis again. */
const REDIS_BYPASS_MS = 1000;

export interface Count {
  /** The count with this request, whether or not it was let in (more than the limit: refused). */
  current: number;
  /** ms until the window ends. */
  ttl: number;
}

/** Fixed-window counts in this process. */
export class LocalCounter {
  readonly #windows: LRUCache<string, { count: number; endsAt: number }>;

  constructor(maxClients: number) {
    this.#windows = new LRUCache({ max: maxClients });
  }

  /** Adds `weight` to `key`'s window unless that would pass `max`. */
  add(key: string, weight: number, max: number, windowMs: number, now: number = Date.now()): Count {
    let window = this.#windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.#windows.set(key, window);
    }
    const ttl = window.endsAt - now;
    if (window.count + weight > max) return { current: window.count + weight, ttl };
    window.count += weight;
    return { current: window.count, ttl };
  }
}

// The same rule in Redis, atomically: one key per client, so it runs on a Redis Cluster too.
// ARGV: weight, max, window in ms. Returns {count with this request, ms left in the window}.
const ADD_SCRIPT = `
local weight, max, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  local count = tonumber(redis.call('GET', KEYS[1])) or 0
  if count + weight > max then return {count + weight, ttl} end
  return {redis.call('INCRBY', KEYS[1], weight), ttl}
end
if weight <= max then redis.call('SET', KEYS[1], weight, 'PX', window) end
return {weight, window}
`;

const COMMAND = 'shortenerCreateLimit';
type WithScript = { [COMMAND](key: string, weight: number, max: number, windowMs: number): Promise<[number, number]> };

/**
 * A counter of clients: in Redis under `<prefix><namespace>` when the tier is on (`redis`), else in
 * this process; `what` it counts, for the log lines.
 */
export function clientCounter(redis: RedisClient | null, prefix: string, log: Logger, namespace: string, what: string): Counter {
  const local = new LocalCounter(LOCAL_CLIENTS_MAX);
  return redis === null ? local : new SharedCounter(redis, prefix, local, log, namespace, what);
}

/** Counts in Redis; in `local` while Redis fails (and for REDIS_BYPASS_MS after each failure). */
export class SharedCounter {
  readonly #client: RedisClient & WithScript;
  readonly #prefix: string;
  readonly #what: string;
  readonly #local: LocalCounter;
  readonly #log: Logger;
  #bypassUntil = 0;
  #failing = false;

  /** Keys are `<prefix><namespace><client>`; `what` the counts are, for the log lines. */
  constructor(client: RedisClient, prefix: string, local: LocalCounter, log: Logger, namespace = 'creates:', what = 'create rate limits') {
    if (!(COMMAND in client)) client.defineCommand(COMMAND, { numberOfKeys: 1, lua: ADD_SCRIPT });
    this.#client = client as RedisClient & WithScript;
    this.#prefix = `${prefix}${namespace}`;
    this.#what = what;
    this.#local = local;
    this.#log = log;
  }

  async add(key: string, weight: number, max: number, windowMs: number): Promise<Count> {
    // Without an offline queue a command to a disconnected client fails at once; this skips even that.
    if (Date.now() < this.#bypassUntil || this.#client.status !== 'ready') return this.#fallBack(key, weight, max, windowMs, undefined);
    try {
      const [current, ttl] = await this.#client[COMMAND](this.#prefix + key, weight, max, windowMs);
      if (this.#failing) {
        this.#failing = false;
        this.#log.info(`Redis answers again: ${this.#what} are shared by every instance again`);
      }
      return { current, ttl };
    } catch (err) {
      this.#bypassUntil = Date.now() + REDIS_BYPASS_MS;
      return this.#fallBack(key, weight, max, windowMs, err);
    }
  }

  #fallBack(key: string, weight: number, max: number, windowMs: number, err: unknown): Count {
    if (!this.#failing) {
      this.#failing = true;
      this.#log.warn({ err }, `Redis is unavailable: ${this.#what} are counted by each instance on its own`);
    }
    return this.#local.add(key, weight, max, windowMs);
  }
}

export interface Counter {
  add(key: string, weight: number, max: number, windowMs: number): Count | Promise<Count>;
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

/**
 * Registers the limiter (nothing when RATE_LIMIT_ENABLED is false) and returns the route `config`
 * that puts a route under it; undefined when off. Register before the routes that use it.
 */
export async function registerCreateLimits(
  app: FastifyInstance,
  { config, redis, log }: CreateLimitsDeps,
): Promise<{ rateLimit: RateLimitOptions } | undefined> {
  if (!config.rateLimitEnabled) return undefined;
  const counter = clientCounter(redis, config.redisKeyPrefix, log, 'creates:', 'create rate limits');
  const perKey = config.rateLimitCreatesPerKey;
  const perIp = config.rateLimitCreatesPerIp;
  const windowSeconds = Math.round(config.rateLimitWindowMs / 1000);

  await app.register(rateLimit, {
    global: false,
    // After the API-key hook (onRequest) and after validation: a bulk's size is known, and a
    // malformed body is a 400 that costs no count.
    hook: 'preHandler',
    store: storeOf(counter),
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
