// Postgres read replicas (DATABASE_REPLICA_URLS): standbys that take the resolver's reads off the
// primary. Each replica's lag is measured against the primary's WAL position on this process's
// clock, never by the standby's own view or another machine's clock, so that a replica is read
// only while it holds what the resolver needs, and the freshest standby may stand in for a primary
// that fails. How, and what it promises: docs/architecture.md#read-replicas.

import type pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { LinkKey } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import { findLinks } from './links.ts';
import { createPool } from './pool.ts';

/**
 * - `starting`: not probed yet;
 * - `up`: caught up within the lag bound at its last probe: takes reads;
 * - `lagging`: further behind than the bound (or unmeasured: the primary did not answer);
 * - `not-standby`: answers, but is not a standby of this primary (promoted, or another cluster's): never read;
 * - `down`: failed its last probe or read.
 */
export type ReplicaState = 'starting' | 'up' | 'lagging' | 'not-standby' | 'down';

export interface ReplicaStatus {
  /** host:port/database, without credentials. */
  readonly name: string;
  readonly state: ReplicaState;
  /** How old the newest primary position it had replayed at its last probe is now, in ms; null when unknown. */
  readonly lagMs: number | null;
}

/** What a replica answered for a code, and how fresh it is. */
export interface Replicated {
  readonly link: Link;
  /** Every change committed on the primary before this instant (performance.now()) is in `link`. */
  readonly caughtUpTo: number;
}

/** How old a standby's state may be to stand in for a primary that fails. */
const STAND_IN_MAX_MS = 10 * 60_000;
/** Transitions of one replica logged closer together than this are logged at debug level (a replica near the bound flaps). */
const LOG_QUIET_MS = 10_000;

const PRIMARY_POSITION = `SELECT current_setting('synchronous_commit') = 'off' AS async,
  pg_current_wal_insert_lsn()::text AS inserted, pg_current_wal_flush_lsn()::text AS flushed,
  substr(pg_walfile_name(pg_current_wal_flush_lsn()), 1, 8) AS timeline,
  (SELECT system_identifier::text FROM pg_control_system()) AS system`;
// The system identifier is set by initdb and copied by every base backup: a standby of another cluster has another.
const REPLICA_POSITION = `SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS lsn,
  (SELECT system_identifier::text FROM pg_control_system()) AS system`;
/** WAL page size, and the headers an insert position may point just past (short and long page headers). */
const WAL_PAGE = 8192n;
const PAGE_HEADERS = [24n, 40n];

interface Sample {
  /** performance.now() before the primary was asked. */
  readonly at: number;
  readonly lsn: bigint;
}

class Replica {
  readonly name: string;
  /** Reads. */
  readonly pool: pg.Pool;
  /** Probes: one connection of their own. */
  readonly probes: pg.Pool;
  state: ReplicaState = 'starting';
  caughtUpTo = -Infinity;
  probing = false;
  lastLogged = -Infinity;

  constructor(name: string, pool: pg.Pool, probes: pg.Pool) {
    this.name = name;
    this.pool = pool;
    this.probes = probes;
  }

  /** Whether it may be read at `now` by a reader who accepts data `maxAgeMs` old. */
  readable(now: number, maxAgeMs: number): boolean {
    return (this.state === 'up' || this.state === 'lagging') && now - this.caughtUpTo <= maxAgeMs;
  }
}

export type ReplicaOptions = Pick<
  Config,
  | 'databaseUrl'
  | 'databaseReplicaUrls'
  | 'databaseReplicaMaxLagMs'
  | 'databaseReplicaTimeoutMs'
  | 'dbPoolMax'
  | 'dbConnectTimeoutMs'
  | 'dbStatementTimeoutMs'
  | 'breakerTimeoutMs'
>;

export class ReplicaSet {
  readonly #replicas: readonly Replica[];
  /** One connection to the primary, for its positions. */
  readonly #primary: pg.Pool;
  readonly #maxLagMs: number;
  readonly #intervalMs: number;
  readonly #log: Logger;
  /** The primary's WAL positions, oldest first, kept STAND_IN_MAX_MS. */
  readonly #samples: Sample[] = [];
  #timer: NodeJS.Timeout | null = null;
  #sampling = false;
  /** The primary's timeline at the last sample (a failover changes it). */
  #timeline: string | undefined;
  /** The primary's system identifier, once read. */
  #system: string | undefined;
  /** The last sample failed: the replicas' lag is not being measured. */
  #unmeasured = false;
  #closed = false;
  #turn = 0;

  constructor(options: ReplicaOptions, log: Logger) {
    if (options.databaseUrl === undefined) throw new Error('read replicas need DATABASE_URL');
    this.#maxLagMs = options.databaseReplicaMaxLagMs;
    // A few probes per lag bound, so that a replica that keeps up is never out of it between two.
    this.#intervalMs = Math.min(1000, Math.max(25, Math.round(this.#maxLagMs / 4)));
    this.#log = log;
    this.#primary = createPool(options.databaseUrl, { ...options, dbPoolMax: 1 }, log);
    const timeoutMs = options.databaseReplicaTimeoutMs;
    // A sick replica must cost a read little: the primary answers instead.
    const replicaPool = (url: string, max: number, replicaLog: Logger) =>
      createPool(
        url,
        {
          dbPoolMax: max,
          dbConnectTimeoutMs: Math.min(options.dbConnectTimeoutMs, timeoutMs),
          dbStatementTimeoutMs: timeoutMs,
          breakerTimeoutMs: timeoutMs,
        },
        replicaLog,
      );
    this.#replicas = options.databaseReplicaUrls.map((url) => {
      const name = replicaName(url);
      const replicaLog = log.child({ replica: name });
      return new Replica(name, replicaPool(url, options.dbPoolMax, replicaLog), replicaPool(url, 1, replicaLog));
    });
  }

  /** Probes now, then every quarter of the lag bound (at least every second, at most every 25 ms). */
  start(): void {
    if (this.#timer !== null || this.#replicas.length === 0) return;
    void this.#probeAll();
    this.#timer = setInterval(() => void this.#probeAll(), this.#intervalMs);
    this.#timer.unref();
  }

  /** Some standby caught up within STAND_IN_MAX_MS answers now. */
  get standing(): boolean {
    const now = performance.now();
    return this.#replicas.some((replica) => replica.readable(now, STAND_IN_MAX_MS));
  }

  /** The latest caughtUpTo of the replicas within the lag bound (-Infinity: none). */
  get newestFresh(): number {
    const now = performance.now();
    let newest = -Infinity;
    for (const replica of this.#replicas) if (replica.readable(now, this.#maxLagMs)) newest = Math.max(newest, replica.caughtUpTo);
    return newest;
  }

  /** What a replica within the lag bound has of `codes`, the replicas in turn; rejects when none can be read or it fails. */
  readonly fetchFresh = (codes: LinkKey[]): Promise<Map<LinkKey, Replicated>> => {
    const now = performance.now();
    const candidates = this.#replicas.filter((replica) => replica.readable(now, this.#maxLagMs));
    return this.#read(candidates[this.#turn++ % Math.max(1, candidates.length)], codes);
  };

  /** The same from the freshest standby caught up within STAND_IN_MAX_MS: for when the primary cannot answer. */
  readonly fetchStanding = (codes: LinkKey[]): Promise<Map<LinkKey, Replicated>> => {
    const now = performance.now();
    let best: Replica | undefined;
    for (const replica of this.#replicas) {
      if (replica.readable(now, STAND_IN_MAX_MS) && (best === undefined || replica.caughtUpTo > best.caughtUpTo)) best = replica;
    }
    return this.#read(best, codes);
  };

  status(): ReplicaStatus[] {
    const now = performance.now();
    return this.#replicas.map(({ name, state, caughtUpTo }) => ({
      name,
      state,
      lagMs: state === 'up' || state === 'lagging' ? lagOf(now, caughtUpTo) : null,
    }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await Promise.all([this.#primary.end(), ...this.#replicas.flatMap((replica) => [replica.pool.end(), replica.probes.end()])]);
  }

  async #read(replica: Replica | undefined, codes: LinkKey[]): Promise<Map<LinkKey, Replicated>> {
    if (replica === undefined) throw new Error('no replica can be read');
    // Taken before the query: the snapshot the query reads is at least this fresh.
    const caughtUpTo = replica.caughtUpTo;
    try {
      const links = await findLinks(replica.pool, codes);
      const answered = new Map<LinkKey, Replicated>();
      for (const [code, link] of links) answered.set(code, { link, caughtUpTo });
      return answered;
    } catch (err) {
      this.#set(replica, 'down', (err as Error).message);
      throw err;
    }
  }

  /** One round: the primary's position, then every replica's (never rejects). A probe that waits for its timeout delays no other. */
  async #probeAll(): Promise<void> {
    if (!this.#sampling) {
      this.#sampling = true;
      await this.#samplePrimary().finally(() => {
        this.#sampling = false;
      });
    }
    if (this.#closed) return;
    for (const replica of this.#replicas) void this.#probe(replica);
  }

  async #samplePrimary(): Promise<void> {
    if (this.#closed) return;
    const at = performance.now();
    try {
      const { rows } = await this.#primary.query<{ async: boolean; inserted: string; flushed: string; timeline: string; system: string }>(
        PRIMARY_POSITION,
      );
      const row = rows[0];
      if (row === undefined) throw new Error('no row');
      // An asynchronous commit is acknowledged before its WAL is flushed, but never before it is inserted.
      const lsn = row.async ? pastHeader(parseLsn(row.inserted)) : parseLsn(row.flushed);
      const last = this.#samples.at(-1);
      if ((this.#timeline !== undefined && row.timeline !== this.#timeline) || (last !== undefined && lsn < last.lsn)) {
        // A failover: positions on the old timeline say nothing of what the new primary has.
        this.#log.warn(
          { from: this.#timeline, to: row.timeline },
          'the Postgres primary is on another timeline: replica lag is measured again from now',
        );
        this.#samples.length = 0;
        for (const replica of this.#replicas) replica.caughtUpTo = -Infinity;
      }
      this.#timeline = row.timeline;
      this.#system = row.system;
      this.#samples.push({ at, lsn });
      this.#unmeasured = false;
    } catch {
      // Unmeasured this round: the replicas' caughtUpTo stays where it was, and ages.
      this.#unmeasured = true;
    }
    const oldest = at - STAND_IN_MAX_MS;
    let drop = 0;
    // Keep the newest sample older than the window too: a replica may still have reached it.
    while (drop < this.#samples.length - 1 && (this.#samples[drop + 1]?.at ?? Infinity) < oldest) drop++;
    if (drop > 0) this.#samples.splice(0, drop);
  }

  async #probe(replica: Replica): Promise<void> {
    if (replica.probing || this.#closed) return;
    replica.probing = true;
    try {
      const { rows } = await replica.probes.query<{ standby: boolean; lsn: string | null; system: string }>(REPLICA_POSITION);
      const row = rows[0];
      if (row === undefined) throw new Error('the probe returned no row');
      if (!row.standby || row.lsn === null || (this.#system !== undefined && row.system !== this.#system)) {
        replica.caughtUpTo = -Infinity;
        this.#set(replica, 'not-standby');
        return;
      }
      replica.caughtUpTo = this.#reached(parseLsn(row.lsn));
      this.#set(replica, performance.now() - replica.caughtUpTo <= this.#maxLagMs ? 'up' : 'lagging');
    } catch (err) {
      if (!this.#closed) this.#set(replica, 'down', (err as Error).message);
    } finally {
      replica.probing = false;
    }
  }

  /** The latest instant at which the primary's position was at most `replayed` (-Infinity: none kept). */
  #reached(replayed: bigint): number {
    for (let i = this.#samples.length - 1; i >= 0; i--) {
      const sample = this.#samples[i];
      if (sample !== undefined && sample.lsn <= replayed) return sample.at;
    }
    return -Infinity;
  }

  #set(replica: Replica, state: ReplicaState, error?: string): void {
    if (replica.state === state) return;
    const from = replica.state;
    replica.state = state;
    const now = performance.now();
    // A replica that flaps logs once per LOG_QUIET_MS at its level; /readyz and the metrics show every state.
    const quiet = now - replica.lastLogged < LOG_QUIET_MS;
    if (!quiet) replica.lastLogged = now;
    const fields = { replica: replica.name, from, to: state, lagMs: lagOf(now, replica.caughtUpTo), maxLagMs: this.#maxLagMs, error };
    const why = state === 'lagging' && this.#unmeasured ? "the primary's position cannot be read, so its lag is unknown" : undefined;
    if (state === 'up') this.#log[quiet ? 'debug' : 'info'](fields, 'Postgres replica takes reads');
    else this.#log[quiet ? 'debug' : 'warn'](fields, `Postgres replica takes no fresh reads: ${why ?? DESCRIBE[state]}`);
  }
}

const DESCRIBE: Record<Exclude<ReplicaState, 'up'>, string> = {
  starting: 'not probed yet',
  lagging: 'it has not replayed what the primary had DATABASE_REPLICA_MAX_LAG_MS ago',
  'not-standby': 'it is not a standby of this primary (promoted, not a replica, or a replica of another cluster)',
  down: 'it failed to answer',
};

function lagOf(now: number, caughtUpTo: number): number | null {
  return Number.isFinite(caughtUpTo) ? Math.round(now - caughtUpTo) : null;
}

/** An insert position just past a page header, moved back before it: a record that ends at the page's end ends there. */
function pastHeader(lsn: bigint): bigint {
  const offset = lsn % WAL_PAGE;
  return PAGE_HEADERS.includes(offset) ? lsn - offset : lsn;
}

/** A pg_lsn as text ("16/B374D848") as a number that compares like it. */
function parseLsn(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** host:port/database of a postgres:// URL: what logs and /readyz show, never its credentials. */
function replicaName(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port === '' ? '5432' : u.port}${u.pathname}`;
}
