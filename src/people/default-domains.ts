// Which domain a create that names none goes on, per workspace (its default domain setting,
// docs/settings.md). Remembered for REFRESH_MS, as the host table remembers domains, and read again
// behind the creates that ask once it is older: only a workspace's first create on an instance waits
// for the database (a create that waited for a query more was answered after the server had begun to
// close, in test/process/process-lifecycle.test.ts). A change made on this instance holds at once
// (forget), one made on another from the first create after REFRESH_MS.

import { LRUCache } from 'lru-cache';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import { REFRESH_MS } from '../resolve/hosts.ts';
import { defaultDomainHost } from './workspace-settings.ts';

const REMEMBERED_MAX = 10_000;

export class DefaultDomains {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;
  readonly #hosts: LRUCache<number, { host: string | null }>;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
    this.#hosts = new LRUCache<number, { host: string | null }>({
      max: REMEMBERED_MAX,
      ttl: REFRESH_MS,
      // A stale answer is given at once while it is read again; a read that fails keeps it.
      allowStale: true,
      allowStaleOnFetchRejection: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: async (workspaceId) => ({ host: await this.#breaker.run(() => defaultDomainHost(this.#db, workspaceId)) }),
    });
  }

  /** The host of the workspace's default domain, or undefined for the deployment's. */
  async hostOf(workspaceId: number): Promise<string | undefined> {
    return (await this.#hosts.fetch(workspaceId))?.host ?? undefined;
  }

  /** After the workspace's setting changed on this instance. */
  forget(workspaceId: number): void {
    this.#hosts.delete(workspaceId);
  }
}
