// The last known answer of each code this instance resolved recently, kept apart from the LRU: when
// Postgres cannot answer, it is what a redirect that worked a moment ago keeps answering (for
// CACHE_TTL_SECONDS, at most LAST_KNOWN_TTL_MAX_MS, never past the link's expiry or start), not a 503. The
// LRU may have been cleared meanwhile because Redis went away (an instance that hears no
// invalidations drops its LRU); with both stores down a link must keep redirecting
// (test/faults/fault-matrix-process.test.ts). Bounded in count and in bytes.

import { LRUCache } from 'lru-cache';
import { ABSENT, answerEnds, type CacheEntry } from '../cache/link-cache.ts';
import type { Link } from '../core/link.ts';

/** Codes whose last known answer is kept for a Postgres outage, and the bytes they may hold. */
const LAST_KNOWN_MAX = 100_000;
const LAST_KNOWN_MAX_BYTES = 32 * 1024 * 1024;
export const LAST_KNOWN_TTL_MAX_MS = 10 * 60_000;
/** What an entry costs besides its strings (lru-cache's index slots and the map entry), roughly. */
const ENTRY_OVERHEAD_BYTES = 100;

export class LastKnown {
  readonly #ttlMs: number;
  /**
   * Mostly the same strings the LRU holds. Each with when it stops being the answer (its link's
   * expiry or start, link-cache.ts answerEnds: ms since the epoch; Infinity: never), checked by the wall clock when read: the TTL runs on the monotonic clock, and a
   * wall clock set forward (a virtual machine's, resynchronised) would otherwise let an answer
   * outlive its link's expiry.
   */
  readonly #answers: LRUCache<string, { entry: CacheEntry; expiresAt: number }>;

  /** `ttlMs`: how long an answer may stand in for Postgres (at most LAST_KNOWN_TTL_MAX_MS). */
  constructor(ttlMs: number) {
    this.#ttlMs = Math.min(ttlMs, LAST_KNOWN_TTL_MAX_MS);
    this.#answers = new LRUCache({
      max: LAST_KNOWN_MAX,
      maxSize: LAST_KNOWN_MAX_BYTES,
      sizeCalculation: ({ entry }, code) => code.length + (typeof entry === 'string' ? entry.length : 0) + ENTRY_OVERHEAD_BYTES,
      ttl: this.#ttlMs,
    });
  }

  /** The last known answer for `code`, unless its link has expired since. */
  get(code: string, now: number = Date.now()): CacheEntry | undefined {
    const known = this.#answers.get(code);
    return known !== undefined && now < known.expiresAt ? known.entry : undefined;
  }

  /** Keeps what a lookup found, no longer than the link lives; forgets a code found absent. */
  remember(code: string, entry: CacheEntry, link: Link | undefined, now: number): void {
    if (entry === ABSENT || link === undefined) {
      this.#answers.delete(code);
      return;
    }
    const ends = Math.min(link.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY, answerEnds(link, entry));
    const ttl = Math.min(this.#ttlMs, ends - now);
    if (ttl > 0) this.#answers.set(code, { entry, expiresAt: ends }, { ttl });
    else this.#answers.delete(code);
  }

  forget(code: string): void {
    this.#answers.delete(code);
  }

  clear(): void {
    this.#answers.clear();
  }
}
