// Tier 1: the in-process LRU. It holds, per code, what the redirect route will write: for a link,
// its whole prebuilt 302 head; for an expired or disabled code, a shared 410 entry. Bounded by
// entries and by approximate bytes; every entry has a TTL. Unknown codes live in a second, smaller
// LRU of their own, so that a scanner asking for millions of random codes cannot push hot links out.

import { LRUCache } from 'lru-cache';
import type { Config } from '../config.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Link } from '../core/link.ts';

/** Flat [name, value, name, value, ...]: what `ServerResponse.writeHead` takes without copying. */
export type RawHead = readonly string[];

export type CacheEntry =
  | { readonly kind: 'redirect'; readonly head: RawHead }
  | { readonly kind: 'absent' }
  | { readonly kind: 'gone'; readonly reason: 'LINK_EXPIRED' | 'LINK_DISABLED' };

export const ABSENT: CacheEntry = Object.freeze({ kind: 'absent' });
export const EXPIRED: CacheEntry = Object.freeze({ kind: 'gone', reason: 'LINK_EXPIRED' });
export const DISABLED: CacheEntry = Object.freeze({ kind: 'gone', reason: 'LINK_DISABLED' });

/** Rough bytes per entry besides the URL: key, head array, LRU bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

export type CacheOptions = Pick<
  Config,
  'cacheMaxEntries' | 'cacheMaxBytes' | 'cacheTtlMs' | 'negativeMaxEntries' | 'negativeTtlMs' | 'redirectCacheControl'
>;

export interface LinkCache {
  get(code: ShortCode): CacheEntry | undefined;
  /**
   * Caches what a lookup found, or did not find, and returns the entry to answer with; `now`
   * decides expiry. "Not found" never replaces a link already cached: that link was created
   * while the lookup ran.
   */
  fill(code: ShortCode, link: Link | undefined, now: number): CacheEntry;
}

export function createLinkCache(options: CacheOptions): LinkCache {
  const lru = new LRUCache<ShortCode, CacheEntry>({
    max: options.cacheMaxEntries,
    maxSize: options.cacheMaxBytes,
    sizeCalculation: (entry, code) =>
      ENTRY_OVERHEAD_BYTES + code.length + (entry.kind === 'redirect' ? (entry.head[1]?.length ?? 0) : 0),
    ttl: options.cacheTtlMs,
    updateAgeOnGet: false,
  });
  const unknown = new LRUCache<ShortCode, CacheEntry>({ max: options.negativeMaxEntries, ttl: options.negativeTtlMs });
  const cacheControl = options.redirectCacheControl;

  return {
    get: (code) => lru.get(code) ?? unknown.get(code),
    fill(code, link, now) {
      const entry = entryOf(link, now, cacheControl);
      if (entry === ABSENT) {
        const created = lru.get(code);
        if (created !== undefined) return created;
        unknown.set(code, entry);
        return entry;
      }
      unknown.delete(code);
      let ttl = options.cacheTtlMs;
      // A link that will expire leaves the cache when it does, and is then looked up again (410).
      if (entry.kind === 'redirect' && link !== undefined && link.expiresAt !== null) {
        ttl = Math.max(1, Math.min(ttl, link.expiresAt.getTime() - now));
      }
      lru.set(code, entry, { ttl });
      return entry;
    },
  };
}

function entryOf(link: Link | undefined, now: number, cacheControl: string): CacheEntry {
  if (link === undefined) return ABSENT;
  if (link.disabled) return DISABLED;
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now) return EXPIRED;
  return { kind: 'redirect', head: redirectHead(link.url, cacheControl) };
}

/** The complete head of a redirect: nothing else is written. */
export function redirectHead(url: string, cacheControl: string): RawHead {
  return ['location', url, 'cache-control', cacheControl, 'content-length', '0'];
}
