// What follows a committed change of links (created, or updated): Redis and every other instance
// are told, then this instance's LRU drops the old state, all before the change is acknowledged.

import type { LinkCache } from '../cache/link-cache.ts';
import { keyOf } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { deleteLink, updateLink, type LinkChange, type LinkRef } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { RedisLinkStore } from '../redis/link-store.ts';
import type { Resolver } from '../resolve/resolver.ts';

export type Propagate = (links: readonly Link[]) => Promise<void>;

export function createPropagate(cache: LinkCache, resolver: Resolver, store: RedisLinkStore | null): Propagate {
  return async (links) => {
    const written = (await store?.propagate(links)) ?? false;
    const now = Date.now();
    for (const link of links) {
      const key = keyOf(link);
      // After Redis has the new state: a lookup that began before reads the old one, and must not
      // fill the LRU with it.
      resolver.invalidate(key);
      // A changed link is read again, from Redis, which keeps the newest of changes made at once
      // on several instances. A new one is cached at once (no other state of it can race it), and
      // so is any change Redis did not take: reading Redis would give the old state.
      if (link.version === 0 || !written) cache.fill(key, link, now);
    }
  };
}

export interface LinkChanges {
  /** Applies `change` to the link `ref` names and returns it; 404 AppError if there is none. */
  change(ref: LinkRef, change: LinkChange): Promise<Link>;
  /**
   * Deletes the link `ref` names (a versioned tombstone, so no older copy can come back); 404
   * AppError if there is none. `announced` false: no `link.deleted` event (nobody was given it).
   */
  remove(ref: LinkRef, announced?: boolean): Promise<Link>;
  /** Tells Redis and every instance of links changed by other means (a domain's links moved). */
  announce(links: readonly Link[]): Promise<void>;
}

export function createLinkChanges(db: Queryable, breaker: DbBreaker, propagate: Propagate): LinkChanges {
  return {
    async change(ref, change) {
      const link = await breaker.run(() => updateLink(db, ref, change));
      if (link === undefined) throw new AppError('LINK_NOT_FOUND');
      await propagate([link]);
      return link;
    },
    announce: propagate,
    async remove(ref, announced = true) {
      const link = await breaker.run(() => deleteLink(db, ref, announced));
      if (link === undefined) throw new AppError('LINK_NOT_FOUND');
      await propagate([link]);
      return link;
    },
  };
}
