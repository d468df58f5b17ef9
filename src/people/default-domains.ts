// Which domain a create that names none goes on, per workspace (its default domain setting,
// docs/settings.md). Remembered for REFRESH_MS, as the host table remembers domains: a change made
// on this instance holds at once (forget), one made on another within REFRESH_MS.

import { LRUCache } from 'lru-cache';
import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import { REFRESH_MS } from '../resolve/hosts.ts';
import { defaultDomainHost } from './workspace-settings.ts';

const REMEMBERED_MAX = 10_000;

export class DefaultDomains {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;
  readonly #hosts = new LRUCache<number, { host: string | null }>({ max: REMEMBERED_MAX, ttl: REFRESH_MS });

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  /** The host of the workspace's default domain, or undefined for the deployment's. */
  async hostOf(workspaceId: number): Promise<string | undefined> {
    let known = this.#hosts.get(workspaceId);
    if (known === undefined) {
      known = { host: await this.#breaker.run(() => defaultDomainHost(this.#db, workspaceId)) };
      this.#hosts.set(workspaceId, known);
    }
    return known.host ?? undefined;
  }

  /** After the workspace's setting changed on this instance. */
  forget(workspaceId: number): void {
    this.#hosts.delete(workspaceId);
  }
}
