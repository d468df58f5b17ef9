// Whether a read replica's answer for a code may be taken: only if the replica has caught up past
// every change of the code this instance made or heard of, and past any moment invalidations may
// have been missed. So lag never brings back a state older than one this instance knows to be gone.
// Instants are performance.now().

import { LRUCache } from 'lru-cache';

/** Codes whose last change is remembered; beyond that, the oldest become a floor for all. */
const CHANGED_MAX = 100_000;
/** As long as a standby may stand in (db/replicas.ts STAND_IN_MAX_MS), and more than any lag bound. */
const CHANGED_TTL_MS = 10 * 60_000;

export class ReplicaFreshness {
  /** A replica's answer counts only if it caught up after this: invalidations may have been missed before. */
  #floor = -Infinity;
  /** When each code last changed, as this instance made or heard it; a code forgotten for room raises the floor. */
  readonly #changed = new LRUCache<string, number>({
    max: CHANGED_MAX,
    ttl: CHANGED_TTL_MS,
    dispose: (at, _code, reason) => {
      if (reason === 'evict') this.#floor = Math.max(this.#floor, at);
    },
  });

  /**
   * The instant a replica must have caught up past for its answer of `code` to count. A peek: being
   * read must not keep a code's change from being the one evicted when room is needed.
   */
  needed(code: string): number {
    return Math.max(this.#floor, this.#changed.peek(code) ?? -Infinity);
  }

  /** `code` changed now (made here, or heard of). */
  changed(code: string): void {
    this.#changed.set(code, performance.now());
  }

  /** Invalidations may have been missed until now: no replica's answer counts until it has caught up past this moment. */
  missed(): void {
    this.#floor = performance.now();
  }
}
