// Domain verification in Postgres (migrations/0014): a domain's check written, the domains due for
// a periodic check claimed, and pending claims that expired removed. What a request asks goes
// through the breaker; the periodic rounds do not, as the host table's reads do not: a background
// statement that fails only waits for the next round, and must neither open the breaker of
// requests nor take its trial call. A claim stamps last_checked_at before the look-up (FOR UPDATE SKIP LOCKED), so that of several
// instances one checks each domain per DOMAIN_CHECK_INTERVAL_SECONDS. A check an admin asked for is
// audited (domain.verify) by the statement that writes it.

import type { DomainStatus } from '../core/domains.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { DOMAIN_COLUMNS, domainOf, type DomainRow } from '../db/domain-rows.ts';
import type { Queryable } from '../db/pool.ts';
import type { DomainRecord } from '../core/domains.ts';
import { auditCte, auditParams, type Actor } from '../audit/audit.ts';

export interface CheckResult {
  readonly status: DomainStatus;
  readonly failures: number;
  readonly verifiedAt: Date | null;
}

/** What the audit log records of a check of domain `x` (SQL). */
const STATUS_DOC = (x: string) => `jsonb_build_object('status', ${x}.verification_status, 'failures', ${x}.check_failures)`;

/** At most this many domains claimed per round. */
const CLAIM_MAX = 100;

export class VerificationStore {
  readonly #db: Queryable;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, breaker: DbBreaker) {
    this.#db = db;
    this.#breaker = breaker;
  }

  #run<T>(background: boolean, fn: () => Promise<T>): Promise<T> {
    return background ? fn() : this.#breaker.run(fn);
  }

  /** The workspace's domain `host`, or undefined. */
  find(workspaceId: number, host: string): Promise<DomainRecord | undefined> {
    return this.#breaker.run(async () => {
      const { rows } = await this.#db.query<DomainRow>(
        `SELECT ${DOMAIN_COLUMNS} FROM domains d WHERE d.workspace_id = $1 AND d.host = $2`,
        [workspaceId, host],
      );
      return rows[0] === undefined ? undefined : domainOf(rows[0]);
    });
  }

  /**
   * Writes a check's result (a stale one, its domain gone, writes nothing); the domain as it is now.
   * `actor`: who asked for the check (audited), null for a periodic round's.
   */
  record(id: number, result: CheckResult, background: boolean, actor: Actor | null = null): Promise<DomainRecord | undefined> {
    return this.#run(background, async () => {
      const { rows } = await this.#db.query<DomainRow>(
        `WITH old AS (
           SELECT id, verification_status, check_failures FROM domains WHERE id = $1 FOR UPDATE
         ), changed AS (
           UPDATE domains AS d SET verification_status = $2, check_failures = $3, verified_at = $4, last_checked_at = now()
           FROM old WHERE d.id = old.id RETURNING ${DOMAIN_COLUMNS}
         ), ${auditCte(5, {
           from: 'changed c JOIN old o USING (id)',
           workspaceId: 'c.workspace_id',
           targetId: 'c.host',
           before: STATUS_DOC('o'),
           after: STATUS_DOC('c'),
         })}
         SELECT * FROM changed`,
        [id, result.status, result.failures, result.verifiedAt, ...auditParams(actor, 'domain.verify', 'domain')],
      );
      return rows[0] === undefined ? undefined : domainOf(rows[0]);
    });
  }

  /** Claims the domains not checked for `intervalMs`, oldest check first, stamping them checked now. */
  claimDue(intervalMs: number): Promise<DomainRecord[]> {
    return this.#run(true, async () => {
      const { rows } = await this.#db.query<DomainRow>(
        `WITH due AS (
           SELECT id FROM domains
           WHERE id <> 0 AND (last_checked_at IS NULL OR last_checked_at < now() - make_interval(secs => $1 / 1000.0))
           ORDER BY last_checked_at NULLS FIRST LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         UPDATE domains AS d SET last_checked_at = now() FROM due WHERE d.id = due.id RETURNING ${DOMAIN_COLUMNS}`,
        [intervalMs, CLAIM_MAX],
      );
      return rows.map(domainOf);
    });
  }

  /** Removes the pending domains without links whose claim is older than `ttlMs`; their hosts. */
  expirePending(ttlMs: number): Promise<string[]> {
    return this.#run(true, async () => {
      const { rows } = await this.#db.query<{ host: string }>(`DELETE FROM domains d WHERE ${EXPIRED} RETURNING d.host`, [ttlMs]);
      return rows.map((row) => row.host);
    });
  }
}

/** A pending domain of `d` whose claim ($1 ms since it was added or last verified) is over, and that no link is on. */
export const EXPIRED =
  "d.id <> 0 AND d.verification_status = 'pending' " +
  'AND coalesce(d.verified_at, d.created_at) < now() - make_interval(secs => $1 / 1000.0) ' +
  'AND NOT EXISTS (SELECT 1 FROM links l WHERE l.domain_id = d.id)';
