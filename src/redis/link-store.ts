// Tier 2: Redis as the cache every instance shares, never waited on for long and never the reason
// for an error: a failed or slow command is a miss, and the resolver goes on to Postgres. fetch
// reads a turn's misses in one round trip, backFill writes Postgres's answers back once per turn,
// propagate writes and publishes changes (kept and sent again while Redis cannot take them), and a
// breaker leaves a failing Redis alone a second at a time. How: docs/architecture.md#the-redis-tier,
// docs/architecture.md#what-redis-holds, docs/architecture.md#invalidation.

import CircuitBreaker from 'opossum';
import type { Logger } from 'pino';
import { keyOf, type LinkKey } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { RedisClient } from './client.ts';
import { decodeKnown, encodeKnown, invalidationChannel, redisLinkKey, SET_NEWER, type Known, type Outbox } from './entries.ts';

export interface RedisLinkStoreDeps {
  client: RedisClient;
  prefix: string;
  /** How long a link stays in Redis after it was written. */
  ttlMs: number;
  /** How long "no link has this code" stays in Redis. */
  negativeTtlMs: number;
  /** This instance's invalidation messages. */
  outbox: Outbox;
  log: Logger;
}

/** Codes whose invalidation could not be sent, kept for the next attempt; past this, the oldest are dropped. */
const MAX_UNSENT = 100_000;
/** Codes per command and per message when those are sent again, so each stays well within the command timeout. */
const RETRY_CHUNK = 1000;
const BYPASS_MS = 1000;

export class RedisLinkStore {
  readonly #deps: RedisLinkStoreDeps;
  readonly #client: RedisClient;
  readonly #cluster: boolean;
  readonly #breaker: CircuitBreaker<[() => Promise<unknown>]>;
  readonly #channel: string;
  #backFill: Map<LinkKey, Known> | null = null;
  /** Links whose change Redis has not taken yet, by key (the newest state of each). */
  readonly #unsent = new Map<string, Link>();
  #reportedDown = false;

  constructor(deps: RedisLinkStoreDeps) {
    this.#deps = deps;
    this.#client = deps.client;
    this.#cluster = this.#client.isCluster;
    this.#channel = invalidationChannel(deps.prefix);
    this.#breaker = new CircuitBreaker((command: () => Promise<unknown>) => command(), {
      // ioredis times each command out itself (REDIS_COMMAND_TIMEOUT_MS).
      timeout: false,
      errorThresholdPercentage: 50,
      volumeThreshold: 5,
      resetTimeout: BYPASS_MS,
      rollingCountTimeout: 5000,
      rollingCountBuckets: 5,
    });
    const { log } = deps;
    // One line when Redis goes away and one when it is back, not one per failed command.
    this.#client.on('error', (err: Error) => {
      if (this.#reportedDown) return;
      this.#reportedDown = true;
      log.warn({ err: err.message }, 'Redis unavailable: serving from the LRU and Postgres until it is back');
    });
    this.#client.on('ready', () => {
      if (!this.#reportedDown) return;
      this.#reportedDown = false;
      log.info('Redis connected again: the Redis tier is back in use');
    });
    this.#breaker.on('open', () => {
      if (!this.#reportedDown) log.warn(`Redis failing or slow: leaving it alone, trying again every ${BYPASS_MS} ms`);
      this.#reportedDown = true;
    });
    this.#breaker.on('close', () => {
      if (this.#reportedDown) log.info('Redis answers again: the Redis tier is back in use');
      this.#reportedDown = false;
    });
  }

  /** ready: in use; down: not connected; bypassed: connected but failing, left alone for now. */
  get state(): 'ready' | 'down' | 'bypassed' {
    if (this.#client.status !== 'ready') return 'down';
    return this.#breaker.opened ? 'bypassed' : 'ready';
  }

  /** What Redis knows of the links `keys` name, in one round trip; one it does not know (or any failure) is left out. */
  async fetch(keys: LinkKey[]): Promise<Map<LinkKey, Known>> {
    const known = new Map<LinkKey, Known>();
    const prefix = this.#deps.prefix;
    const names = keys.map((key) => redisLinkKey(prefix, key));
    const values = await this.#run(() => this.#read(names));
    if (values === undefined) return known;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as LinkKey;
      const entry = decodeKnown(key, values[i] ?? null);
      if (entry !== undefined) known.set(key, entry);
    }
    return known;
  }

  #read(keys: string[]): Promise<(string | null)[]> {
    const [only] = keys;
    if (keys.length === 1 && only !== undefined) return this.#client.get(only).then((value) => [value]);
    return this.#cluster ? Promise.all(keys.map((key) => this.#client.get(key))) : this.#client.mget(keys);
  }

  /** Remembers what Postgres answered for the link `key` names; written back with the others of this turn. */
  backFill(key: LinkKey, link: Known): void {
    let batch = this.#backFill;
    if (batch === null) {
      batch = this.#backFill = new Map();
      setImmediate(flushBackFill, this);
    }
    batch.set(key, link);
  }

  /** Writes the pending back-fills: one pipeline (on a cluster, auto-pipelined per node). */
  flushBackFill(): void {
    const batch = this.#backFill;
    if (batch === null) return;
    this.#backFill = null;
    const { prefix, ttlMs, negativeTtlMs } = this.#deps;
    const writes: Command[] = [];
    for (const [key, link] of batch) {
      const name = redisLinkKey(prefix, key);
      writes.push(link === null ? ['set', name, '', 'PX', negativeTtlMs, 'NX'] : setNewer(name, link, ttlMs));
    }
    void this.#run(() => this.#send(writes));
  }

  /**
   * Writes created or changed links over any older state Redis holds for their codes, and tells
   * every instance to drop those codes from its LRU. Resolves with true once Redis confirmed both,
   * or false when it failed within the command timeout (the links are then sent again later);
   * never rejects.
   */
  async propagate(links: readonly Link[]): Promise<boolean> {
    if (links.length === 0) return true;
    const done = await this.#run(() => this.#write(links));
    if (done === undefined) this.#remember(links);
    return done !== undefined;
  }

  /**
   * Sends again what `propagate` could not; called every second by the subscription's heartbeat.
   * Resolves with the links Redis took (none when it failed again); never rejects.
   */
  async retryUnsent(): Promise<readonly Link[]> {
    if (this.#unsent.size === 0 || this.state !== 'ready') return [];
    const links = [...this.#unsent.values()].slice(0, RETRY_CHUNK);
    for (const link of links) this.#unsent.delete(keyOf(link));
    const done = await this.#run(() => this.#write(links));
    if (done === undefined) {
      this.#remember(links);
      return [];
    }
    this.#deps.log.info({ links: links.length, left: this.#unsent.size }, 'changes sent to Redis after it came back');
    return links;
  }

  get unsent(): number {
    return this.#unsent.size;
  }

  shutdown(): void {
    this.#breaker.shutdown();
  }

  #remember(links: readonly Link[]): void {
    for (const link of links) {
      const key = keyOf(link);
      const kept = this.#unsent.get(key);
      if (kept === undefined || kept.version < link.version) this.#unsent.set(key, link);
    }
    if (this.#unsent.size <= MAX_UNSENT) return;
    let excess = this.#unsent.size - MAX_UNSENT;
    this.#deps.log.error({ dropped: excess }, 'too many changes waiting for Redis: the oldest are dropped');
    for (const key of this.#unsent.keys()) {
      if (excess-- === 0) break;
      this.#unsent.delete(key);
    }
  }

  /**
   * Sends `commands` as one round trip: one pipeline, run in order; on a cluster one command each,
   * which auto-pipelining sends as one pipeline per node. Rejects if any failed.
   */
  #send(commands: Command[]): Promise<unknown[]> {
    if (this.#cluster) return Promise.all(commands.map(([name, ...args]) => this.#client.call(name, ...args)));
    return pipelineDone(this.#client.pipeline(commands).exec());
  }

  /**
   * Writes the links' entries, then publishes their codes: no instance may hear of a change before
   * it can read it. One pipeline keeps that order; on a cluster the channel usually lives on
   * another node than the keys, so the writes are awaited first.
   */
  async #write(links: readonly Link[]): Promise<unknown> {
    const { prefix, ttlMs, outbox } = this.#deps;
    const writes = links.map((link) => setNewer(redisLinkKey(prefix, keyOf(link)), link, ttlMs));
    // Numbered as it is sent: a heartbeat must not name it long before.
    const publish = (): Command => ['publish', this.#channel, outbox.message(links.map(keyOf))];
    if (!this.#cluster) return this.#send([...writes, publish()]);
    await this.#send(writes);
    return this.#send([publish()]);
  }

  /** The command's result, or undefined when Redis is down, bypassed, slow or failing. */
  async #run<T>(command: () => Promise<T>): Promise<T | undefined> {
    if (this.#client.status !== 'ready') return undefined;
    try {
      return (await this.#breaker.fire(command)) as T;
    } catch {
      return undefined;
    }
  }
}

/** A Redis command and its arguments. */
type Command = [name: 'set' | 'eval' | 'publish', ...args: (string | number)[]];

/** Writes `link` at `key` unless Redis holds the same or a newer version (see SET_NEWER). */
function setNewer(key: string, link: Link, ttlMs: number): Command {
  return ['eval', SET_NEWER, 1, key, encodeKnown(link), link.version, ttlMs];
}

function flushBackFill(store: RedisLinkStore): void {
  store.flushBackFill();
}

/** A pipeline's replies, rejecting if Redis refused any of its commands. */
async function pipelineDone(exec: Promise<[error: Error | null, result: unknown][] | null>): Promise<unknown[]> {
  const replies = await exec;
  if (replies === null) throw new Error('pipeline was not run');
  return replies.map(([error, result]) => {
    if (error !== null) throw error;
    return result;
  });
}
