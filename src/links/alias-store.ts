// Whether a code is in use on a domain: any row, deleted links' too (their codes are never handed
// out again), as the links table's unique (domain_id, code) will judge the create.

import type { DbBreaker } from '../db/breaker.ts';
import type { Queryable } from '../db/pool.ts';
import type { LinkRef } from '../core/link.ts';

export async function codeInUse(db: Queryable, { domainId, code }: LinkRef): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM links WHERE domain_id = $1 AND code = $2', [domainId, code]);
  return rows.length > 0;
}

export class AliasStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  inUse(ref: LinkRef): Promise<boolean> {
    return this.#breaker.run(() => codeInUse(this.#db, ref));
  }
}
