// A link's target health as the API reads and changes it (health/routes.ts): its state and last
// probes, and opting it out of probes with its audit entry, in one transaction. Every method runs
// through the breaker, as the other stores do.

import type pg from 'pg';
import { recordAudit, type Actor } from '../audit/audit.ts';
import { HISTORY_MAX } from '../core/target-health.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { inTransaction, type Queryable } from '../db/pool.ts';

/** A link's health as stored; undefined if no probe has enrolled it yet. */
export interface StoredHealth {
  readonly probes: boolean;
  readonly lastStatus: string | null;
  readonly lastChecked: Date | null;
  readonly failures: number;
  readonly broken: boolean;
  readonly brokenSince: Date | null;
  readonly nextProbeAt: Date;
}

export interface StoredProbe {
  readonly at: Date;
  readonly status: string;
  readonly ok: boolean;
  readonly latencyMs: number;
}

export async function readHealth(db: Queryable, domainId: number, code: string): Promise<StoredHealth | undefined> {
  const { rows } = await db.query<{
    probes: boolean;
    last_status: string | null;
    last_checked: Date | null;
    failures: number;
    broken: boolean;
    broken_since: Date | null;
    next_probe_at: Date;
  }>(
    `SELECT probes, last_status, last_checked, failures, broken, broken_since, next_probe_at FROM link_health
     WHERE domain_id = $1 AND code = $2`,
    [domainId, code],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    probes: row.probes,
    lastStatus: row.last_status,
    lastChecked: row.last_checked,
    failures: row.failures,
    broken: row.broken,
    brokenSince: row.broken_since,
    nextProbeAt: row.next_probe_at,
  };
}

/** The link's last probes, newest first. */
export async function readHistory(db: Queryable, domainId: number, code: string): Promise<StoredProbe[]> {
  const { rows } = await db.query<{ at: Date; status: string; ok: boolean; latency_ms: number }>(
    `SELECT at, status, ok, latency_ms FROM link_health_probes WHERE domain_id = $1 AND code = $2 ORDER BY at DESC LIMIT ${HISTORY_MAX}`,
    [domainId, code],
  );
  return rows.map((row) => ({ at: row.at, status: row.status, ok: row.ok, latencyMs: row.latency_ms }));
}

/**
 * Opts a link in or out of probes. A link opted out keeps its last state but is no longer broken
 * (its broken flag would never be cleared by a probe); opting in makes it due now.
 */
export async function setProbes(db: Queryable, domainId: number, code: string, probes: boolean): Promise<void> {
  await db.query(
    `INSERT INTO link_health AS h (domain_id, code, probes) VALUES ($1, $2, $3)
     ON CONFLICT (domain_id, code) DO UPDATE SET probes = EXCLUDED.probes,
       broken = h.broken AND EXCLUDED.probes, broken_since = CASE WHEN EXCLUDED.probes THEN h.broken_since END,
       failures = CASE WHEN EXCLUDED.probes THEN h.failures ELSE 0 END,
       next_probe_at = CASE WHEN EXCLUDED.probes AND NOT h.probes THEN now() ELSE h.next_probe_at END`,
    [domainId, code, probes],
  );
}

/** Which link, for the audit entry: its workspace and its name there (`code`, or `host/code` on a branded domain). */
export interface HealthTarget {
  readonly domainId: number;
  readonly code: string;
  readonly workspaceId: number;
  readonly targetId: string;
}

export class LinkHealthStore {
  readonly #db: Queryable;
  readonly #pool: pg.Pool;
  readonly #breaker: DbBreaker;

  constructor(db: Queryable, pool: pg.Pool, breaker: DbBreaker) {
    this.#db = db;
    this.#pool = pool;
    this.#breaker = breaker;
  }

  /** The link's state (undefined before it is enrolled) and its last probes, newest first. */
  read(domainId: number, code: string): Promise<[StoredHealth | undefined, StoredProbe[]]> {
    return this.#breaker.run(() => Promise.all([readHealth(this.#db, domainId, code), readHistory(this.#db, domainId, code)]));
  }

  /** Opts the link in or out, with its audit entry (link.health-probes), in one transaction. */
  setProbes(link: HealthTarget, probes: boolean, actor: Actor): Promise<void> {
    return this.#breaker.run(() =>
      inTransaction(this.#pool, async (client) => {
        await setProbes(client, link.domainId, link.code, probes);
        await recordAudit(client, actor, {
          workspaceId: link.workspaceId,
          action: 'link.health-probes',
          targetType: 'link',
          targetId: link.targetId,
          after: { probes },
        });
      }),
    );
  }
}
