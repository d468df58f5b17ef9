// What follows a committed change of links (created, changed, deleted, moved to another domain):
// Redis and every other instance are told, then this instance's LRU drops the old state, all
// before the change is acknowledged. It is the read path's side of a write: every tier that may
// hold a link learns that it changed.

import type { LinkCache } from '../cache/link-cache.ts';
import { keyOf } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { RedisLinkStore } from '../redis/link-store.ts';
import type { Resolver } from './resolver.ts';

export class Propagation {
  readonly #cache: LinkCache;
  readonly #resolver: Pick<Resolver, 'invalidate'>;
  readonly #store: RedisLinkStore | null;

  /** `store`: the Redis tier's, null when it is off. */
  constructor(cache: LinkCache, resolver: Pick<Resolver, 'invalidate'>, store: RedisLinkStore | null) {
    this.#cache = cache;
    this.#resolver = resolver;
    this.#store = store;
  }

  /** Tells Redis, every instance and this LRU of `links` as they are now committed. */
  async announce(links: readonly Link[]): Promise<void> {
    const written = (await this.#store?.propagate(links)) ?? false;
    const now = Date.now();
    for (const link of links) {
      const key = keyOf(link);
      // After Redis has the new state: a lookup that began before reads the old one, and must not
      // fill the LRU with it.
      this.#resolver.invalidate(key);
      // A changed link is read again, from Redis, which keeps the newest of changes made at once
      // on several instances. A new one is cached at once (no other state of it can race it), and
      // so is any change Redis did not take: reading Redis would give the old state.
      if (link.version === 0 || !written) this.#cache.fill(key, link, now);
    }
  }
}
