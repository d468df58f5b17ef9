// The tiered read path below the LRU. The misses of one event-loop turn go to Redis in one round
// trip; what Redis does not know goes on, as one batch, to Postgres (WHERE code = ANY($1)) behind
// the breaker; what Postgres answers is written back to Redis and fills the LRU. A code is looked
// up once however many requests wait for it (single-flight across both tiers). An invalidation of
// the code, or a reset of the LRU, while it is looked up keeps the answer out of the LRU (it may
// predate the change), and requests that come after the invalidation start a lookup of their own.
//
// When Postgres cannot answer, a code this instance resolved recently is answered with what it
// found then (its last known answer, kept apart from the LRU, for CACHE_TTL_SECONDS and at most
// LAST_KNOWN_TTL_MAX_MS, never past the link's expiry), not a 503: the LRU may have been cleared
// meanwhile because Redis went away (an instance that hears no invalidations drops its LRU), and
// with both stores down a link that redirected a moment ago must keep redirecting
// (test/faults/fault-matrix-process.test.ts). An invalidation heard drops the code's last known answer; a
// missed one, or hearing the channel again after a silence, drops them all (resolve/plugin.ts).
//
// With read replicas (db/replicas.ts), Postgres means a replica first. Its answer is taken only if
// it has caught up past every change of the code this instance made or heard of (and past any
// moment invalidations may have been missed); what it does not have, or may have in an older
// state, is read on the primary. So lag never makes a link that exists a 404, and never brings back
// a state older than one this instance knows to be gone. When the primary fails, a standby caught
// up within 10 minutes stands in, under the same rule.

import { LRUCache } from 'lru-cache';
import { ABSENT, type CacheEntry, type LinkCache } from '../cache/link-cache.ts';
import type { LinkKey } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { Replicated } from '../db/replicas.ts';
import type { Known } from '../redis/entries.ts';
import { KeyBatcher } from './batcher.ts';

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

/** Codes whose last known answer is kept for a Postgres outage, and the bytes they may hold. */
const LAST_KNOWN_MAX = 100_000;
const LAST_KNOWN_MAX_BYTES = 32 * 1024 * 1024;
const LAST_KNOWN_TTL_MAX_MS = 10 * 60_000;
/** What an entry costs besides its strings (lru-cache's index slots and the map entry), roughly. */
const ENTRY_OVERHEAD_BYTES = 100;
/** Codes whose last change is remembered (for replicas); beyond that, the oldest become a floor for all. */
const CHANGED_MAX = 100_000;
/** As long as a standby may stand in (db/replicas.ts STAND_IN_MAX_MS), and more than any lag bound. */
const CHANGED_TTL_MS = 10 * 60_000;

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

export interface Resolver {
  /** The cache entry for a code the LRU did not have. Rejects with a 503 AppError on failure. */
  resolve(code: LinkKey): Promise<CacheEntry>;
  /** Whether a lookup of `code` is under way (a request for it now costs no I/O of its own). */
  inFlight(code: string): boolean;
  /** Drops `code` from the LRU, and keeps the lookup in flight for it, if any, from filling it. */
  invalidate(code: string): void;
  /**
   * Invalidations may have been missed: forgets every last known answer, and takes no replica's
   * answer until it has caught up past this moment.
   */
  missedInvalidations(): void;
}

interface Lookup {
  promise: Promise<CacheEntry> | undefined;
  /** Invalidated while in flight: answer with the result, do not cache it. */
  stale: boolean;
  /** The LRU's generation when the lookup began. */
  readonly generation: number;
}

export function createResolver({
  cache,
  source,
  replicas = null,
  maxBatch,
  shared,
  sharedMaxBatch,
  lastKnownTtlMs,
  hearing = () => true,
  stats = null,
}: ResolverDeps): Resolver {
  const postgres = new KeyBatcher<LinkKey, Link>(source, maxBatch, stats === null ? undefined : (size) => stats.postgresBatch(size));
  const replicaSent = stats === null ? undefined : (size: number) => stats.replicaBatch(size);
  const freshReads =
    replicas === null ? null : new KeyBatcher<LinkKey, Replicated>((codes) => replicas.fetchFresh(codes), maxBatch, replicaSent);
  const standbyReads =
    replicas === null ? null : new KeyBatcher<LinkKey, Replicated>((codes) => replicas.fetchStanding(codes), maxBatch, replicaSent);
  /** A replica's answer counts only if it caught up after this: invalidations may have been missed before. */
  let floor = -Infinity;
  /** When each code last changed, as this instance made or heard it; a code forgotten for room raises the floor. */
  const changed =
    replicas === null
      ? null
      : new LRUCache<string, number>({
          max: CHANGED_MAX,
          ttl: CHANGED_TTL_MS,
          dispose: (at, _code, reason) => {
            if (reason === 'evict') floor = Math.max(floor, at);
          },
        });
  /**
   * The instant a replica must have caught up past for its answer of `code` to count. A peek: being
   * read must not keep a code's change from being the one evicted when room is needed.
   */
  const needed = (code: string): number => Math.max(floor, changed?.peek(code) ?? -Infinity);
  const redis =
    shared === null
      ? null
      : new KeyBatcher<LinkKey, Known>(
          (codes) => shared.fetch(codes),
          sharedMaxBatch,
          stats === null ? undefined : (size) => stats.redisBatch(size),
        );
  const inFlight = new Map<string, Lookup>();
  // Mostly the same strings the LRU holds; bounded in bytes too, for the URLs it outlives the LRU with.
  // Each with its link's expiry (ms since the epoch; Infinity: none), checked by the wall clock when
  // read: the TTL runs on the monotonic clock, and a wall clock set forward (a virtual machine's,
  // resynchronised) would otherwise let an answer outlive its link's expiry.
  const lastKnown = new LRUCache<string, { entry: CacheEntry; expiresAt: number }>({
    max: LAST_KNOWN_MAX,
    maxSize: LAST_KNOWN_MAX_BYTES,
    sizeCalculation: ({ entry }, code) => code.length + (typeof entry === 'string' ? entry.length : 0) + ENTRY_OVERHEAD_BYTES,
    ttl: Math.min(lastKnownTtlMs, LAST_KNOWN_TTL_MAX_MS),
  });

  const lookUp = async (code: LinkKey, lookup: Lookup): Promise<CacheEntry> => {
    try {
      let link = redis === null ? undefined : await redis.load(code);
      if (stats !== null && redis !== null) {
        if (link === undefined) stats.redisMisses++;
        else stats.redisHits++;
      }
      if (link === undefined) {
        // Without replicas, no await is added to the miss path.
        const replicated = freshReads === null ? undefined : await fromReplica(code);
        if (replicated !== undefined) {
          link = replicated;
          // Into Redis, for every instance, only while this one hears of changes: otherwise its
          // replica's answer may predate one it missed, and Redis may have lost the newer state.
          if (!lookup.stale && hearing()) shared?.backFill(code, link);
        } else {
          try {
            link = (await postgres.load(code)) ?? null;
            if (stats !== null) {
              if (link === null) stats.postgresAbsent++;
              else stats.postgresFound++;
            }
          } catch (err) {
            if (stats !== null) stats.postgresFailed++;
            const known = lastKnown.get(code);
            if (known !== undefined && Date.now() < known.expiresAt) return known.entry;
            // Not in the LRU or Redis: the next lookup asks the primary again. Kept as the last
            // known answer, so that while the primary fails the standby is not asked again.
            const stoodIn = await standIn(code, err);
            const now = Date.now();
            const entry = cache.entryOf(stoodIn, now);
            if (!lookup.stale) remember(code, entry, stoodIn, now);
            return entry;
          }
          if (!lookup.stale) shared?.backFill(code, link);
        }
      }
      const now = Date.now();
      const found = link ?? undefined;
      if (lookup.stale || lookup.generation !== cache.generation) return cache.entryOf(found, now);
      const entry = cache.fill(code, found, now);
      remember(code, entry, found, now);
      return entry;
    } finally {
      if (inFlight.get(code) === lookup) inFlight.delete(code);
    }
  };

  /** The link as a replica within the lag bound has it; undefined: read the primary. */
  const fromReplica = async (code: LinkKey): Promise<Link | undefined> => {
    // No replica within the lag bound, or none caught up past the code's last change: the primary at once.
    if (freshReads === null || replicas === null || replicas.newestFresh <= needed(code)) return undefined;
    try {
      const replicated = await freshReads.load(code);
      // Not there: it may be newer than the replica's replay. There, but older than a change known here: likewise.
      const link = replicated !== undefined && replicated.caughtUpTo > needed(code) ? replicated.link : undefined;
      if (stats !== null) {
        if (link === undefined) stats.replicaMissed++;
        else stats.replicaFound++;
      }
      return link;
    } catch {
      if (stats !== null) stats.replicaFailed++;
      return undefined;
    }
  };

  /** The primary failed (`err`): a standby's link, if it has caught up past every change known here, or `err` again. */
  const standIn = async (code: LinkKey, err: unknown): Promise<Link> => {
    const replicated = standbyReads === null || !replicas?.standing ? undefined : await standbyReads.load(code).catch(() => undefined);
    // Not found on a standby proves nothing: the link may be newer than its replay.
    if (replicated === undefined || replicated.caughtUpTo <= needed(code)) throw err;
    if (stats !== null) stats.replicaStoodIn++;
    return replicated.link;
  };

  /** Keeps what a lookup found, no longer than the link lives; forgets a code found absent. */
  const remember = (code: string, entry: CacheEntry, link: Link | undefined, now: number): void => {
    if (entry === ABSENT || link === undefined) {
      lastKnown.delete(code);
      return;
    }
    const maxTtl = Math.min(lastKnownTtlMs, LAST_KNOWN_TTL_MAX_MS);
    const ttl = link.expiresAt === null ? maxTtl : Math.min(maxTtl, link.expiresAt.getTime() - now);
    if (ttl > 0) lastKnown.set(code, { entry, expiresAt: link.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY }, { ttl });
    else lastKnown.delete(code);
  };

  return {
    inFlight: (code) => inFlight.has(code),
    resolve(code) {
      const running = inFlight.get(code);
      if (running?.promise !== undefined) return running.promise;
      const lookup: Lookup = { promise: undefined, stale: false, generation: cache.generation };
      inFlight.set(code, lookup);
      lookup.promise = lookUp(code, lookup);
      return lookup.promise;
    },
    missedInvalidations() {
      lastKnown.clear();
      floor = performance.now();
    },
    invalidate(code) {
      cache.invalidate(code);
      lastKnown.delete(code);
      changed?.set(code, performance.now());
      const lookup = inFlight.get(code);
      if (lookup === undefined) return;
      lookup.stale = true;
      inFlight.delete(code);
    },
  };
}
