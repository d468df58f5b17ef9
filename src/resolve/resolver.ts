// The tiered read path below the LRU: the misses of one event-loop turn become one Postgres
// query (WHERE code = ANY($1)) behind the breaker; what it finds, and what it does not, fills
// the LRU once per code, whatever the number of requests that waited for it.

import type { LinkCache, CacheEntry } from '../cache/link-cache.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Link } from '../core/link.ts';
import { KeyBatcher } from './batcher.ts';

/** A tier below the LRU: fetches many codes in one round trip; absent codes are simply missing. */
export type LinkSource = (codes: ShortCode[]) => Promise<Map<ShortCode, Link>>;

export interface Resolver {
  /** The cache entry for a code the LRU did not have. Rejects with a 503 AppError on failure. */
  resolve(code: ShortCode): Promise<CacheEntry>;
}

export function createResolver(cache: LinkCache, source: LinkSource, maxBatch: number): Resolver {
  const batcher = new KeyBatcher<ShortCode, CacheEntry>(async (codes) => {
    const links = await source(codes);
    const now = Date.now();
    const entries = new Map<ShortCode, CacheEntry>();
    for (const code of codes) entries.set(code, cache.fill(code, links.get(code), now));
    return entries;
  }, maxBatch);

  return {
    async resolve(code) {
      const entry = await batcher.load(code);
      if (entry === undefined) throw new Error(`batch returned no entry for ${code}`);
      return entry;
    },
  };
}
