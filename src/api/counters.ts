// Fixed-window counts per client, shared by every instance through Redis when the tier is on (one
// key per client, ADD_SCRIPT), in this process otherwise, and in it for REDIS_BYPASS_MS after each
// Redis failure: what the limits on creates (links/create-limits.ts), on failed sign-ins
// (auth/session-routes.ts) and on link-password attempts (attempt-budget.ts) count with. A count
// taken may be given back (refund): an attempt reserved before it is judged, and then forgiven.

import { LRUCache } from 'lru-cache';
import { upTo } from '../cache/bounded.ts';
import type { Logger } from 'pino';
import type { RedisClient } from '../redis/client.ts';

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
    this.#windows = new LRUCache({ ...upTo(maxClients) });
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

  /** Takes `weight` back off `key`'s window, if it is still open. */
  refund(key: string, weight: number, now: number = Date.now()): void {
    const window = this.#windows.get(key);
    if (window !== undefined && window.endsAt > now) window.count = Math.max(0, window.count - weight);
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

// Gives `weight` back to a window still open (its TTL stays). ARGV: weight.
const REFUND_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then
  redis.call('DECRBY', KEYS[1], math.min(count, tonumber(ARGV[1])))
end
return 0
`;

const COMMAND = 'shortenerCreateLimit';
const REFUND = 'shortenerCountRefund';
type WithScript = {
  [COMMAND](key: string, weight: number, max: number, windowMs: number): Promise<[number, number]>;
  [REFUND](key: string, weight: number): Promise<number>;
};

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
    if (!(REFUND in client)) client.defineCommand(REFUND, { numberOfKeys: 1, lua: REFUND_SCRIPT });
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

  /** Gives back what add() took, where it was counted: in Redis, or here while Redis fails. */
  async refund(key: string, weight: number): Promise<void> {
    if (Date.now() < this.#bypassUntil || this.#client.status !== 'ready') return this.#local.refund(key, weight);
    try {
      await this.#client[REFUND](this.#prefix + key, weight);
    } catch {
      // A count not given back only makes the window stricter; the next add() finds out about Redis.
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
  refund(key: string, weight: number): void | Promise<void>;
}
