// Tier 1: the in-process LRU. Per link key (core/domains.ts) it holds what the redirect will write:
// a plain link's target URL, the only part of the 302 head that differs between links (the rest is
// built once: edge/respond.ts), a link with options as its compiled rules (core/redirect-rules.ts),
// an expired or disabled code as a shared 410 entry (an expired link with its own expiredUrl has one
// of its own), a link before its start as a 404 entry of its own (its start, for its page) that
// leaves when the link starts. Bounded by entries and approximate bytes, each
// entry with a TTL; unknown codes have a smaller LRU of their own, so that a scanner cannot push
// hot links out. Why a URL string per link (measured): docs/performance.md#other-figures.

import { LRUCache } from 'lru-cache';
import { upTo } from './bounded.ts';
import type { Config } from '../config/config.ts';
import type { LinkKey } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import { compileRules, LinkRules, locationsWritable, type RuleDefaults } from '../core/redirect-rules.ts';

/** The target of a link that redirects: its URL, as stored. */
export type RedirectTarget = string & { readonly __brand: 'RedirectTarget' };

/** A code that does not redirect, and the answer it gets instead. */
export interface NoRedirect {
  readonly answer: 'LINK_NOT_FOUND' | 'LINK_EXPIRED' | 'LINK_DISABLED' | 'LINK_NOT_YET_ACTIVE' | 'LINK_BLOCKED';
  /** An expired link's own fallback (its options' expiredUrl), sent before the domain's; only such links have their own entry. */
  readonly fallback?: RedirectTarget;
  /** A link before its start: when it starts, for the page that says so (core/visitor-page.ts notYetPage). */
  readonly opensAt?: Date;
}

/** A string: redirect there. LinkRules: evaluate them. Another object: answer with its error. */
export type CacheEntry = RedirectTarget | LinkRules | NoRedirect;

export const ABSENT: NoRedirect = Object.freeze({ answer: 'LINK_NOT_FOUND' });
const EXPIRED: NoRedirect = Object.freeze({ answer: 'LINK_EXPIRED' });
const DISABLED: NoRedirect = Object.freeze({ answer: 'LINK_DISABLED' });
const BLOCKED: NoRedirect = Object.freeze({ answer: 'LINK_BLOCKED' });

export function isRedirect(entry: CacheEntry): entry is RedirectTarget {
  return typeof entry === 'string';
}

/** The error an entry answers; undefined for a link that redirects. */
export function refusalOf(entry: CacheEntry): NoRedirect['answer'] | undefined {
  return typeof entry === 'string' || entry instanceof LinkRules ? undefined : entry.answer;
}

/** Rough bytes per entry besides the code and the URL: LRU bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 120;

export type CacheOptions = Pick<
  Config,
  'cacheMaxEntries' | 'cacheMaxBytes' | 'cacheTtlMs' | 'negativeMaxEntries' | 'negativeTtlMs' | 'redirectStatus' | 'forwardQuery'
>;

/** A link with rules weighs about this much more than its URL: the compiled rules and their closures. */
const RULES_OVERHEAD_BYTES = 600;

export interface LinkCache {
  /** Any string may be asked for: only keys of codes that passed the shape check are ever stored. */
  get(key: string): CacheEntry | undefined;
  /**
   * Caches what a lookup found, or did not find, and returns the entry to answer with; `now`
   * decides expiry. "Not found" never replaces a link already cached: that link was created
   * while the lookup ran.
   */
  fill(key: LinkKey, link: Link | undefined, now: number): CacheEntry;
  /** Drops what is cached for `key`, a link or a negative entry (it changed on another instance). */
  invalidate(key: string): void;
  /** Drops everything, and from now on keeps entries at most `maxTtlMs` (by default: as configured). */
  reset(maxTtlMs?: number): void;
  /** Changes at each reset: a lookup begun before one must not fill the cache after it. */
  readonly generation: number;
  /** The answer for what a lookup found, without caching it (by the deployment's rule defaults). */
  entryOf(link: Link | undefined, now: number): CacheEntry;
}

export function createLinkCache(options: CacheOptions): LinkCache {
  // No `max`: given one, lru-cache allocates and fills its eight index arrays for all of it at
  // once (52 MB and 170 ms of a start at the default million); without, they grow with the
  // entries, and `admit` keeps the count within CACHE_MAX_ENTRIES (docs/performance.md#start-up).
  const lru = new LRUCache<string, CacheEntry>({
    maxSize: options.cacheMaxBytes,
    sizeCalculation: (entry, code) =>
      ENTRY_OVERHEAD_BYTES +
      code.length +
      (isRedirect(entry)
        ? entry.length
        : entry instanceof LinkRules
          ? RULES_OVERHEAD_BYTES + entry.url.length
          : (entry.fallback?.length ?? 0)),
    ttl: options.cacheTtlMs,
    updateAgeOnGet: false,
  });
  const unknown = new LRUCache<string, CacheEntry>({ ...upTo(options.negativeMaxEntries), ttl: options.negativeTtlMs });
  let maxTtl = Infinity;
  let generation = 0;
  const defaults: RuleDefaults = { redirectStatus: options.redirectStatus, forwardQuery: options.forwardQuery };
  /** Makes room for a new key at CACHE_MAX_ENTRIES: the least recently used entry leaves. */
  const admit = (code: string): void => {
    if (lru.size >= options.cacheMaxEntries && !lru.has(code)) lru.pop();
  };

  return {
    get: (code) => lru.get(code) ?? unknown.get(code),
    fill(code, link, now) {
      const entry = entryOf(link, now, defaults);
      if (entry === ABSENT) {
        const created = lru.get(code);
        if (created !== undefined) return created;
        unknown.set(code, entry, { ttl: Math.min(options.negativeTtlMs, maxTtl) });
        return entry;
      }
      unknown.delete(code);
      let ttl = Math.min(options.cacheTtlMs, maxTtl);
      // An answer that will change on its own (a link that expires, or starts) leaves the cache when
      // it does, and is looked up again: every instance flips then, without a message.
      const until = link === undefined ? Infinity : answerEnds(link, entry);
      if (until !== Infinity) ttl = Math.max(1, Math.min(ttl, until - now));
      admit(code);
      lru.set(code, entry, { ttl });
      return entry;
    },
    invalidate(code) {
      lru.delete(code);
      unknown.delete(code);
    },
    reset(maxTtlMs) {
      lru.clear();
      unknown.clear();
      maxTtl = maxTtlMs ?? Infinity;
      generation++;
    },
    get generation() {
      return generation;
    },
    entryOf: (link, now) => entryOf(link, now, defaults),
  };
}

/** Links answered as they were before options: 302, the query not forwarded. */
export const PLAIN_DEFAULTS: RuleDefaults = Object.freeze({ redirectStatus: 302, forwardQuery: false });

/**
 * The answer for what a lookup found, without caching it. A link whose Location would not be visible
 * ASCII is none (no link the API made is such): checked here, once per fill, never per request.
 */
export function entryOf(link: Link | undefined, now: number, defaults: RuleDefaults = PLAIN_DEFAULTS): CacheEntry {
  if (link === undefined || link.deleted || !locationsWritable(link.url, link.options)) return ABSENT;
  if (link.disabled) return DISABLED;
  if (link.safety === 'blocked') return BLOCKED;
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now) {
    // A flagged link's own fallback may be the URL its list named: no visitor is sent there without the warning.
    const fallback = link.safety === 'flagged' ? undefined : link.options?.expiredUrl;
    return fallback === undefined ? EXPIRED : { answer: 'LINK_EXPIRED', fallback: fallback as RedirectTarget };
  }
  if (link.startsAt !== null && link.startsAt.getTime() > now) return { answer: 'LINK_NOT_YET_ACTIVE', opensAt: link.startsAt };
  const warning = link.safety === 'flagged' ? (link.safetyList ?? '') : null;
  return compileRules(link.url, link.options, defaults, warning) ?? (link.url as RedirectTarget);
}

/**
 * When `entry`, the answer for `link`, stops being its answer (ms since the epoch; Infinity: not by
 * itself): a redirect at the link's expiry, a start awaited at its start.
 */
export function answerEnds(link: Pick<Link, 'expiresAt' | 'startsAt'>, entry: CacheEntry): number {
  const refusal = refusalOf(entry);
  if (refusal === 'LINK_NOT_YET_ACTIVE') return link.startsAt?.getTime() ?? Infinity;
  if (refusal === undefined) return link.expiresAt?.getTime() ?? Infinity;
  return Infinity;
}
