// What follows a committed change of links (created, or updated): this instance's LRU takes the
// new state, and Redis and every other instance are told before the change is acknowledged.

import type { LinkCache } from '../cache/link-cache.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Link } from '../core/link.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { updateLink, type LinkChange } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { RedisLinkStore } from '../redis/link-store.ts';
import type { Resolver } from '../resolve/resolver.ts';

export type Propagate = (links: readonly Link[]) => Promise<void>;

export function createPropagate(cache: LinkCache, resolver: Resolver, store: RedisLinkStore | null): Propagate {
  return async (links) => {
    const now = Date.now();
    for (const link of links) {
      // A lookup of the old state that is still in flight must not fill the LRU after this.
      resolver.invalidate(link.code);
      cache.fill(link.code, link, now);
    }
    await store?.propagate(links);
  };
}

export interface LinkChanges {
  /** Applies `change` to the link with `code` and returns it; 404 AppError if there is none. */
  change(code: ShortCode, change: LinkChange): Promise<Link>;
}

export function createLinkChanges(db: Queryable, breaker: DbBreaker, propagate: Propagate): LinkChanges {
  return {
    async change(code, change) {
      const link = await breaker.run(() => updateLink(db, code, change));
      if (link === undefined) throw new AppError('LINK_NOT_FOUND');
      await propagate([link]);
      return link;
    },
  };
}
