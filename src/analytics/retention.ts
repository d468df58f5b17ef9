// Every hour (and at start): the analytics' monthly partitions made ahead and dropped past
// ANALYTICS_RETENTION_DAYS (analytics/rollup-store.ts maintainPartitions), and the visitor salts of today
// and tomorrow read ahead. Every instance does it; Postgres makes them take turns.

import type { Logger } from 'pino';
import { utcDay } from '../core/day-range.ts';
import type { Queryable } from '../db/pool.ts';
import type { VisitorSalts } from './salts.ts';
import { maintainPartitions } from './rollup-store.ts';

const HOUR_MS = 3_600_000;
/** Partitions made ahead: a month whose partition is missing cannot take clicks. */
const MONTHS_AHEAD = 2;

export class Upkeep {
  readonly #db: Queryable;
  readonly #salts: VisitorSalts | null;
  readonly #keepDays: number | null;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Queryable, salts: VisitorSalts | null, retentionDays: number, log: Logger) {
    this.#db = db;
    this.#salts = salts;
    this.#keepDays = retentionDays === 0 ? null : retentionDays;
    this.#log = log;
  }

  /** One round now, then hourly. */
  async start(): Promise<void> {
    await this.run();
    this.#timer = setInterval(() => void this.run(), HOUR_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Never rejects: a failure is logged, and the next hour tries again. */
  async run(now = Date.now()): Promise<number> {
    await this.#salts?.refresh(now);
    try {
      const dropped = await maintainPartitions(this.#db, utcDay(now), this.#keepDays, MONTHS_AHEAD);
      if (dropped > 0) this.#log.info({ dropped, retentionDays: this.#keepDays }, 'analytics partitions past their retention dropped');
      return dropped;
    } catch (err) {
      this.#log.warn({ err }, 'analytics partitions could not be kept up: trying again within the hour');
      return 0;
    }
  }
}
