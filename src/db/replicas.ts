// Postgres read replicas (DATABASE_REPLICA_URLS): streaming standbys that take the resolver's
// reads off the primary. A probe asks each one every second whether it is a standby, whether it
// streams from its primary, and how far its replay is behind what it received. A replica takes
// reads only while it streams and lags at most DATABASE_REPLICA_MAX_LAG_MS; one that fails a read
// takes none until a probe finds it well again.
//
// A replica answers only what it has: the resolver sends what it misses, and every code changed
// within the lag bound, to the primary (resolve/resolver.ts), so replication lag never turns a
// link that exists into a 404 or brings back an older state of one. When the primary fails, any
// standby that answers, however far behind, stands in for it (stale-if-error).

import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { ShortCode } from '../core/codes.ts';
import type { Link } from '../core/link.ts';
import { findLinks } from './links.ts';
import { createPool } from './pool.ts';

/**
 * - `starting`: not probed yet;
 * - `up`: streams, and lags at most the bound: takes reads;
 * - `lagging`: streams, but further behind than the bound;
 * - `detached`: a standby that does not stream from its primary now (its lag is unknown);
 * - `not-standby`: answers, but is not in recovery (a promoted or misconfigured server): never read;
 * - `down`: failed its last probe or read.
 */
export type ReplicaState = 'starting' | 'up' | 'lagging' | 'detached' | 'not-standby' | 'down';

export interface ReplicaStatus {
  /** host:port/database, without credentials. */
  readonly name: string;
  readonly state: ReplicaState;
  /** Replay lag at the last probe, in milliseconds; null when unknown. */
  readonly lagMs: number | null;
}

/** Probes each replica this often; a change is on every replica that takes reads at most this plus the lag bound after its commit. */
export const REPLICA_PROBE_MS = 1000;

// Lag as the standby sees it: 0 when it has replayed all it received, else the age of the last
// transaction it replayed (an upper bound). pg_stat_wal_receiver has a row, readable by any role,
// while a WAL receiver runs.
const PROBE = `SELECT pg_is_in_recovery() AS standby,
  EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AS streaming,
  CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
       ELSE (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::bigint
  END AS lag_ms`;

interface ProbeRow {
  standby: boolean;
  streaming: boolean;
  lag_ms: string | null;
}

class Replica {
  readonly name: string;
  readonly pool: pg.Pool;
  state: ReplicaState = 'starting';
  lagMs: number | null = null;
  probing = false;

  constructor(name: string, pool: pg.Pool) {
    this.name = name;
    this.pool = pool;
  }
}

export type ReplicaOptions = Pick<
  Config,
  'databaseReplicaUrls' | 'databaseReplicaMaxLagMs' | 'databaseReplicaTimeoutMs' | 'dbPoolMax' | 'dbConnectTimeoutMs'
>;

export class ReplicaSet {
  readonly #replicas: readonly Replica[];
  readonly #maxLagMs: number;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | null = null;
  /** Replicas in state `up`, in a fixed order, read in turn. */
  #fresh: Replica[] = [];
  /** Standbys that answer however far behind (`up`, `lagging`, `detached`), for when the primary fails. */
  #standing: Replica[] = [];
  #turn = 0;

  constructor(options: ReplicaOptions, log: Logger) {
    this.#maxLagMs = options.databaseReplicaMaxLagMs;
    this.#log = log;
    const timeoutMs = options.databaseReplicaTimeoutMs;
    this.#replicas = options.databaseReplicaUrls.map((url) => {
      // A sick replica must cost a read little: the primary answers instead.
      const pool = createPool(
        url,
        {
          dbPoolMax: options.dbPoolMax,
          dbConnectTimeoutMs: Math.min(options.dbConnectTimeoutMs, timeoutMs),
          dbStatementTimeoutMs: timeoutMs,
          breakerTimeoutMs: timeoutMs,
        },
        log,
      );
      return new Replica(replicaName(url), pool);
    });
  }

  /** A change committed longer ago than this is on every replica that takes reads. */
  get lagBoundMs(): number {
    return this.#maxLagMs + REPLICA_PROBE_MS;
  }

  /** Some replica streams within the lag bound now. */
  get fresh(): boolean {
    return this.#fresh.length > 0;
  }

  /** Some standby answers now, however far behind. */
  get standing(): boolean {
    return this.#standing.length > 0;
  }

  /** Probes every replica now, then every REPLICA_PROBE_MS. */
  start(): void {
    if (this.#timer !== null || this.#replicas.length === 0) return;
    this.#probeAll();
    this.#timer = setInterval(() => this.#probeAll(), REPLICA_PROBE_MS);
    this.#timer.unref();
  }

  /** The links of `codes` that a replica within the lag bound has; rejects when none can be read or it fails. */
  readonly fetchFresh = (codes: ShortCode[]): Promise<Map<ShortCode, Link>> =>
    this.#read(this.#fresh[this.#turn++ % Math.max(1, this.#fresh.length)], codes);

  /** The same from the freshest standby that answers, however far behind: for when the primary cannot answer. */
  readonly fetchStanding = (codes: ShortCode[]): Promise<Map<ShortCode, Link>> => this.#read(this.#standing[0], codes);

  status(): ReplicaStatus[] {
    return this.#replicas.map(({ name, state, lagMs }) => ({ name, state, lagMs }));
  }

  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.all(this.#replicas.map((replica) => replica.pool.end()));
  }

  async #read(replica: Replica | undefined, codes: ShortCode[]): Promise<Map<ShortCode, Link>> {
    if (replica === undefined) throw new Error('no replica can be read');
    try {
      return await findLinks(replica.pool, codes);
    } catch (err) {
      this.#set(replica, 'down', null, (err as Error).message);
      throw err;
    }
  }

  #probeAll(): void {
    for (const replica of this.#replicas) {
      if (replica.probing) continue; // the last probe still waits for its timeout
      void this.#probe(replica);
    }
  }

  /** Never rejects: a failed probe puts the replica down. */
  async #probe(replica: Replica): Promise<void> {
    replica.probing = true;
    try {
      const { rows } = await replica.pool.query<ProbeRow>(PROBE);
      const row = rows[0];
      if (row === undefined) throw new Error('the probe returned no row');
      const lagMs = row.lag_ms === null ? null : Number(row.lag_ms);
      if (!row.standby) this.#set(replica, 'not-standby', null);
      else if (!row.streaming) this.#set(replica, 'detached', lagMs);
      else if (lagMs === null || lagMs > this.#maxLagMs) this.#set(replica, 'lagging', lagMs);
      else this.#set(replica, 'up', lagMs);
    } catch (err) {
      this.#set(replica, 'down', null, (err as Error).message);
    } finally {
      replica.probing = false;
    }
  }

  #set(replica: Replica, state: ReplicaState, lagMs: number | null, error?: string): void {
    replica.lagMs = lagMs;
    if (replica.state === state) return;
    const from = replica.state;
    replica.state = state;
    this.#fresh = this.#replicas.filter((r) => r.state === 'up');
    // The freshest first: `up`, then `lagging`, then `detached`.
    this.#standing = (['up', 'lagging', 'detached'] as const).flatMap((s) => this.#replicas.filter((r) => r.state === s));
    const fields = { replica: replica.name, from, to: state, lagMs, maxLagMs: this.#maxLagMs, error };
    if (state === 'up') this.#log.info(fields, 'Postgres replica takes reads');
    else this.#log.warn(fields, `Postgres replica takes no reads: ${DESCRIBE[state]}`);
  }
}

const DESCRIBE: Record<Exclude<ReplicaState, 'up'>, string> = {
  starting: 'not probed yet',
  lagging: 'its replay lags more than DATABASE_REPLICA_MAX_LAG_MS',
  detached: 'it does not stream from its primary',
  'not-standby': 'it is not a standby (promoted, or not a replica)',
  down: 'it failed to answer',
};

/** host:port/database of a postgres:// URL: what logs and /readyz show, never its credentials. */
export function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port === '' ? '5432' : u.port}${u.pathname}`;
}
