// The tiered read path below the LRU. The misses of one event-loop turn go to Redis in one round
// trip; what Redis does not know goes on, as one batch, to Postgres (WHERE code = ANY($1)) behind
// the breaker; what Postgres answers is written back to Redis and fills the LRU. A code is looked
// up once however many requests wait for it (single-flight across both tiers). An invalidation of
// the code, or a reset of the LRU, while it is looked up keeps the answer out of the LRU (it may
// predate the change), and requests that come after the invalidation start a lookup of their own.

import { entryOf, type CacheEntry, type LinkCache } from '../cache/link-cache.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Link } from '../core/link.ts';
import type { Known } from '../redis/entries.ts';
import { KeyBatcher } from './batcher.ts';

/** A tier below the LRU: fetches many codes in one round trip; absent codes are simply missing. */
export type LinkSource = (codes: ShortCode[]) => Promise<Map<ShortCode, Link>>;

/** The Redis tier as the resolver uses it (redis/link-store.ts). */
export interface SharedCache {
  /** What the cache knows of `codes`, in one round trip; never rejects (a failure knows nothing). */
  fetch(codes: ShortCode[]): Promise<Map<ShortCode, Known>>;
  /** Stores what Postgres answered for `code`, unless the cache has learnt something since. */
  backFill(code: ShortCode, link: Known): void;
}

export interface ResolverDeps {
  cache: LinkCache;
  /** Postgres; rejects with a 503 AppError on failure. */
  source: LinkSource;
  maxBatch: number;
  /** Redis, or null when the tier is off. */
  shared: SharedCache | null;
  sharedMaxBatch: number;
}

export interface Resolver {
  /** The cache entry for a code the LRU did not have. Rejects with a 503 AppError on failure. */
  resolve(code: ShortCode): Promise<CacheEntry>;
  /** Drops `code` from the LRU, and keeps the lookup in flight for it, if any, from filling it. */
  invalidate(code: string): void;
}

interface Lookup {
  promise: Promise<CacheEntry> | undefined;
  /** Invalidated while in flight: answer with the result, do not cache it. */
  stale: boolean;
  /** The LRU's generation when the lookup began. */
  readonly generation: number;
}

export function createResolver({ cache, source, maxBatch, shared, sharedMaxBatch }: ResolverDeps): Resolver {
  const postgres = new KeyBatcher<ShortCode, Link>(source, maxBatch);
  const redis = shared === null ? null : new KeyBatcher<ShortCode, Known>((codes) => shared.fetch(codes), sharedMaxBatch);
  const inFlight = new Map<string, Lookup>();

  const lookUp = async (code: ShortCode, lookup: Lookup): Promise<CacheEntry> => {
    try {
      let link = redis === null ? undefined : await redis.load(code);
      if (link === undefined) {
        link = (await postgres.load(code)) ?? null;
        if (!lookup.stale) shared?.backFill(code, link);
      }
      const now = Date.now();
      const found = link ?? undefined;
      return lookup.stale || lookup.generation !== cache.generation ? entryOf(found, now) : cache.fill(code, found, now);
    } finally {
      if (inFlight.get(code) === lookup) inFlight.delete(code);
    }
  };

  return {
    resolve(code) {
      const running = inFlight.get(code);
      if (running?.promise !== undefined) return running.promise;
      const lookup: Lookup = { promise: undefined, stale: false, generation: cache.generation };
      inFlight.set(code, lookup);
      lookup.promise = lookUp(code, lookup);
      return lookup.promise;
    },
    invalidate(code) {
      cache.invalidate(code);
      const lookup = inFlight.get(code);
      if (lookup === undefined) return;
      lookup.stale = true;
      inFlight.delete(code);
    },
  };
}
