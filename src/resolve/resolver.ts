// The tiered read path below the LRU: the misses of one event-loop turn go to Redis in one round
// trip, what Redis does not know to Postgres (a replica first) as one batch behind the breaker, and
// each code is looked up once however many requests wait for it. While Postgres cannot answer, a
// code resolved recently gets its last known answer rather than a 503. The rules, and what they
// promise: docs/architecture.md#last-known-answers, docs/architecture.md#read-replicas.

import type { CacheEntry, LinkCache } from '../cache/link-cache.ts';
import type { LinkKey } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { Replicated } from '../db/replicas.ts';
import type { Known } from '../redis/entries.ts';
import { KeyBatcher } from './batcher.ts';
import { LastKnown } from './last-known.ts';
import { ReplicaFreshness } from './replica-freshness.ts';

/** A tier below the LRU: fetches many codes in one round trip; absent codes are simply missing. */
type LinkSource = (codes: LinkKey[]) => Promise<Map<LinkKey, Link>>;

/** The Redis tier as the resolver uses it (redis/link-store.ts). */
interface SharedCache {
  /** What the cache knows of `codes`, in one round trip; never rejects (a failure knows nothing). */
  fetch(codes: LinkKey[]): Promise<Map<LinkKey, Known>>;
  /** Stores what Postgres answered for `code`, unless the cache has learnt something since. */
  backFill(code: LinkKey, link: Known): void;
}

/** Postgres read replicas as the resolver uses them (db/replicas.ts). Instants are performance.now(). */
interface ReplicaReads {
  /** Some standby that may stand in for the primary answers now. */
  readonly standing: boolean;
  /** The latest instant up to which a replica within the lag bound has every change (-Infinity: none is within it). */
  readonly newestFresh: number;
  /** From a replica within the lag bound, in one round trip; rejects on failure. */
  fetchFresh(codes: LinkKey[]): Promise<Map<LinkKey, Replicated>>;
  /** From the freshest standby that may stand in; rejects on failure. */
  fetchStanding(codes: LinkKey[]): Promise<Map<LinkKey, Replicated>>;
}

/** Lookups below the LRU, counted for the metrics (metrics/metrics.ts). */
export interface ResolverStats {
  /** Redis knew the code (a link, or that there is none). */
  redisHits: number;
  /** Redis did not know it, or failed. */
  redisMisses: number;
  /** On the primary. */
  postgresFound: number;
  postgresAbsent: number;
  postgresFailed: number;
  /** Found on a replica; not there, or older than a change known here (read again on the primary); the replica failed. */
  replicaFound: number;
  replicaMissed: number;
  replicaFailed: number;
  /** Answered by a standby because the primary failed. */
  replicaStoodIn: number;
  /** Told of each batch a fetcher sends, with its size. */
  redisBatch(size: number): void;
  postgresBatch(size: number): void;
  replicaBatch(size: number): void;
}

export interface ResolverDeps {
  cache: LinkCache;
  /** Postgres (the primary); rejects with a 503 AppError on failure. */
  source: LinkSource;
  /** Read replicas, or absent or null: none. */
  replicas?: ReplicaReads | null;
  maxBatch: number;
  /** Redis, or null when the tier is off. */
  shared: SharedCache | null;
  sharedMaxBatch: number;
  /** How long a last known answer may stand in for Postgres (at most 10 minutes). */
  lastKnownTtlMs: number;
  /** Whether invalidations reach this instance now (absent: always; false while Redis is deaf). */
  hearing?: () => boolean;
  /** Where lookups are counted; absent or null: nowhere (METRICS_ENABLED=false). */
  stats?: ResolverStats | null;
}

interface Lookup {
  promise: Promise<CacheEntry> | undefined;
  /** Invalidated while in flight: answer with the result, do not cache it. */
  stale: boolean;
  /** The LRU's generation when the lookup began. */
  readonly generation: number;
}

export class Resolver {
  readonly #cache: LinkCache;
  readonly #shared: SharedCache | null;
  readonly #replicas: ReplicaReads | null;
  readonly #hearing: () => boolean;
  readonly #stats: ResolverStats | null;
  readonly #postgres: KeyBatcher<LinkKey, Link>;
  readonly #redis: KeyBatcher<LinkKey, Known> | null;
  readonly #freshReads: KeyBatcher<LinkKey, Replicated> | null;
  readonly #standbyReads: KeyBatcher<LinkKey, Replicated> | null;
  /** Null without replicas: nothing to judge. */
  readonly #freshness: ReplicaFreshness | null;
  readonly #lastKnown: LastKnown;
  readonly #inFlight = new Map<string, Lookup>();

  constructor({
    cache,
    source,
    replicas = null,
    maxBatch,
    shared,
    sharedMaxBatch,
    lastKnownTtlMs,
    hearing = () => true,
    stats = null,
  }: ResolverDeps) {
    this.#cache = cache;
    this.#shared = shared;
    this.#replicas = replicas;
    this.#hearing = hearing;
    this.#stats = stats;
    this.#postgres = new KeyBatcher<LinkKey, Link>(source, maxBatch, stats === null ? undefined : (size) => stats.postgresBatch(size));
    this.#redis =
      shared === null
        ? null
        : new KeyBatcher<LinkKey, Known>(
            (codes) => shared.fetch(codes),
            sharedMaxBatch,
            stats === null ? undefined : (size) => stats.redisBatch(size),
          );
    const replicaSent = stats === null ? undefined : (size: number) => stats.replicaBatch(size);
    this.#freshReads = replicas === null ? null : new KeyBatcher((codes) => replicas.fetchFresh(codes), maxBatch, replicaSent);
    this.#standbyReads = replicas === null ? null : new KeyBatcher((codes) => replicas.fetchStanding(codes), maxBatch, replicaSent);
    this.#freshness = replicas === null ? null : new ReplicaFreshness();
    this.#lastKnown = new LastKnown(lastKnownTtlMs);
  }

  /** The cache entry for a code the LRU did not have. Rejects with a 503 AppError on failure. */
  resolve(code: LinkKey): Promise<CacheEntry> {
    const running = this.#inFlight.get(code);
    if (running?.promise !== undefined) return running.promise;
    const lookup: Lookup = { promise: undefined, stale: false, generation: this.#cache.generation };
    this.#inFlight.set(code, lookup);
    lookup.promise = this.#lookUp(code, lookup);
    return lookup.promise;
  }

  /** Whether a lookup of `code` is under way (a request for it now costs no I/O of its own). */
  inFlight(code: string): boolean {
    return this.#inFlight.has(code);
  }

  /** Drops `code` from the LRU, and keeps the lookup in flight for it, if any, from filling it. */
  invalidate(code: string): void {
    this.#cache.invalidate(code);
    this.#lastKnown.forget(code);
    this.#freshness?.changed(code);
    const lookup = this.#inFlight.get(code);
    if (lookup === undefined) return;
    lookup.stale = true;
    this.#inFlight.delete(code);
  }

  /**
   * Invalidations may have been missed: forgets every last known answer, and takes no replica's
   * answer until it has caught up past this moment.
   */
  missedInvalidations(): void {
    this.#lastKnown.clear();
    this.#freshness?.missed();
  }

  async #lookUp(code: LinkKey, lookup: Lookup): Promise<CacheEntry> {
    try {
      // Without Redis, or without replicas, no await is added to the miss path.
      let link = this.#redis === null ? undefined : await this.#fromRedis(this.#redis, code);
      if (link === undefined) {
        const replicated = this.#freshReads === null ? undefined : await this.#fromReplica(code);
        if (replicated !== undefined) {
          link = replicated;
          // Into Redis, for every instance, only while this one hears of changes: otherwise its
          // replica's answer may predate one it missed, and Redis may have lost the newer state.
          if (!lookup.stale && this.#hearing()) this.#shared?.backFill(code, link);
        } else {
          const primary = await this.#fromPrimary(code, lookup);
          if (!primary.found) return primary.entry;
          link = primary.link;
          if (!lookup.stale) this.#shared?.backFill(code, link);
        }
      }
      const now = Date.now();
      const found = link ?? undefined;
      if (lookup.stale || lookup.generation !== this.#cache.generation) return this.#cache.entryOf(found, now);
      const entry = this.#cache.fill(code, found, now);
      this.#lastKnown.remember(code, entry, found, now);
      return entry;
    } finally {
      if (this.#inFlight.get(code) === lookup) this.#inFlight.delete(code);
    }
  }

  /** What Redis knows of `code` (a link, or null: none); undefined when it does not know. */
  async #fromRedis(redis: KeyBatcher<LinkKey, Known>, code: LinkKey): Promise<Known | undefined> {
    const known = await redis.load(code);
    const stats = this.#stats;
    if (stats !== null) {
      if (known === undefined) stats.redisMisses++;
      else stats.redisHits++;
    }
    return known;
  }

  /**
   * The primary's answer (`found`, a link or null), or, when it fails, the entry to answer with: the
   * last known one, or a standby's (kept as the last known answer, so that while the primary fails
   * the standby is not asked again); rejects when neither stands in.
   */
  async #fromPrimary(code: LinkKey, lookup: Lookup): Promise<{ found: true; link: Link | null } | { found: false; entry: CacheEntry }> {
    const stats = this.#stats;
    try {
      const link = (await this.#postgres.load(code)) ?? null;
      if (stats !== null) {
        if (link === null) stats.postgresAbsent++;
        else stats.postgresFound++;
      }
      return { found: true, link };
    } catch (err) {
      if (stats !== null) stats.postgresFailed++;
      const known = this.#lastKnown.get(code);
      if (known !== undefined) return { found: false, entry: known };
      // Not in the LRU or Redis: the next lookup asks the primary again.
      const stoodIn = await this.#standIn(code, err);
      const now = Date.now();
      const entry = this.#cache.entryOf(stoodIn, now);
      if (!lookup.stale) this.#lastKnown.remember(code, entry, stoodIn, now);
      return { found: false, entry };
    }
  }

  /** The link as a replica within the lag bound has it; undefined: read the primary. */
  async #fromReplica(code: LinkKey): Promise<Link | undefined> {
    const freshness = this.#freshness as ReplicaFreshness;
    // No replica within the lag bound, or none caught up past the code's last change: the primary at once.
    if (this.#freshReads === null || this.#replicas === null || this.#replicas.newestFresh <= freshness.needed(code)) return undefined;
    const stats = this.#stats;
    try {
      const replicated = await this.#freshReads.load(code);
      // Not there: it may be newer than the replica's replay. There, but older than a change known here: likewise.
      const link = replicated !== undefined && replicated.caughtUpTo > freshness.needed(code) ? replicated.link : undefined;
      if (stats !== null) {
        if (link === undefined) stats.replicaMissed++;
        else stats.replicaFound++;
      }
      return link;
    } catch {
      if (stats !== null) stats.replicaFailed++;
      return undefined;
    }
  }

  /** The primary failed (`err`): a standby's link, if it has caught up past every change known here, or `err` again. */
  async #standIn(code: LinkKey, err: unknown): Promise<Link> {
    const replicated =
      this.#standbyReads === null || !this.#replicas?.standing ? undefined : await this.#standbyReads.load(code).catch(() => undefined);
    // Not found on a standby proves nothing: the link may be newer than its replay.
    if (replicated === undefined || replicated.caughtUpTo <= (this.#freshness as ReplicaFreshness).needed(code)) throw err;
    if (this.#stats !== null) this.#stats.replicaStoodIn++;
    return replicated.link;
  }
}
