// Writes the click counts to Postgres: every CLICK_FLUSH_INTERVAL_MS (and at each UTC midnight,
// so that a day's clicks stay on that day, or at once when the counter is full) it takes the
// counter's map out and writes everything waiting in one statement (db/clicks.ts addClicks,
// through the breaker). A failed write keeps its counts for the next one; what waits is bounded by
// CLICK_MAX_CODES (code, day) pairs, and clicks beyond it are dropped, counted and logged. close()
// writes once more; what Postgres cannot take then is lost, and logged.
//
//   redirect ─▶ counter (Map code → count) ──take──▶ waiting (day → code → count) ──write──▶ Postgres
//                                                        ▲                                 │
//                                                        └──────────── failed: kept ◀──────┘
//
// The analytics' rollups (analytics/visits.ts) are written after the counts, in a transaction of
// their own, every ANALYTICS_FLUSH_INTERVAL_MS: a rollup row costs Postgres about 25 µs of CPU to
// upsert, the link's and the workspace's (load/enrich-bench.ts), and the longer interval adds up
// more clicks per row. A failed write puts them back.
//
// What a crash loses: the clicks counted since the last take (at most one interval), and every
// count taken but not yet committed (a write under way, or kept by failed ones); of the analytics,
// at most one ANALYTICS_FLUSH_INTERVAL_MS.

import type { Logger } from 'pino';
import { msToNextUtcDay, utcDay } from '../core/day-range.ts';
import type { RollupBatch } from '../analytics/rollups.ts';
import type { ClickCount, DailyCounts } from '../db/clicks.ts';
import { ClickCounter } from './click-counter.ts';

/** Click analytics (analytics/visits.ts): taken out at each write, put back if it fails. */
export interface RollupSource {
  take(): Promise<RollupBatch>;
  putBack(batch: RollupBatch): void;
}

export interface ClickFlusherDeps {
  /** Writes the counts in one statement (addClicks through the breaker); rejects on failure. */
  write(counts: DailyCounts): Promise<unknown>;
  /** Writes the analytics' rollups, in a transaction of their own (db/analytics.ts addRollupBatch); rejects on failure. */
  writeRollups?(rollups: RollupBatch): Promise<unknown>;
  /** null: analytics off. */
  analytics?: RollupSource | null;
  /** How often the timer's writes take the analytics along (ANALYTICS_FLUSH_INTERVAL_MS); flush() always does. */
  analyticsIntervalMs?: number;
  intervalMs: number;
  /** Most distinct codes counted between takes, and most (code, day) pairs waiting. */
  maxCodes: number;
  log: Logger;
  /** Told of each write that succeeded, with its (code, day) pairs (metrics). */
  flushed?: ((pairs: number) => void) | undefined;
}

export class ClickFlusher {
  readonly counter: ClickCounter;
  readonly #deps: ClickFlusherDeps;
  #waiting = new Map<string, Map<string, ClickCount>>();
  #waitingPairs = 0;
  #writing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** The UTC day the counter's current interval began on: its clicks are that day's. */
  #day = utcDay(Date.now());
  #lastWritten = Date.now();
  /** When the timer's next write takes the analytics along. */
  #analyticsDue: number;
  #dropped = 0;
  #unreported = 0;
  #failing = false;
  #rollupsFailing = false;
  #early = false;
  #closed = false;

  constructor(deps: ClickFlusherDeps) {
    this.#deps = deps;
    this.#analyticsDue = Date.now() + (deps.analyticsIntervalMs ?? 0);
    this.counter = new ClickCounter(deps.maxCodes, () => this.#flushEarly());
  }

  start(): void {
    if (this.#closed || this.#timer !== null) return;
    // Never past midnight UTC: an interval's clicks all belong to the day it began on.
    const delay = Math.min(this.#deps.intervalMs, msToNextUtcDay(Date.now()));
    this.#timer = setTimeout(onTimer, delay, this);
    this.#timer.unref();
  }

  /** Writes every click counted so far, and the analytics, after any write under way; never rejects. */
  async flush(analytics = true): Promise<void> {
    while (this.#writing !== null) await this.#writing;
    this.#take();
    // Set here, not in #write: a write with nothing to do completes before it returns.
    const writing = this.#write(analytics || Date.now() >= this.#analyticsDue);
    this.#writing = writing;
    try {
      await writing;
    } finally {
      this.#writing = null;
    }
  }

  /** Stops the timer and writes once more; what Postgres cannot take then is lost, and logged. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.flush();
    if (this.#waitingPairs > 0) {
      let clicks = 0;
      for (const byCode of this.#waiting.values()) for (const count of byCode.values()) clicks += count.clicks + count.bots;
      this.#dropped += clicks;
      this.#deps.log.error({ clicks, links: this.#waitingPairs }, 'click counts lost at shutdown: Postgres could not take them');
    }
  }

  /** Seconds since the last write that succeeded (or since start). */
  lagSeconds(now: number): number {
    return (now - this.#lastWritten) / 1000;
  }

  /** Clicks dropped so far: the counter or the waiting counts were full, or lost at shutdown. */
  get dropped(): number {
    return this.#dropped;
  }

  /** (code, day) pairs waiting for a write. */
  get waiting(): number {
    return this.#waitingPairs;
  }

  /** Timer: take the counts (their day ends here), and write unless a write is under way. */
  tick(): void {
    this.#timer = null;
    this.#early = false;
    if (this.#writing === null) void this.flush(false);
    else this.#take();
    this.start();
  }

  #flushEarly(): void {
    if (this.#early) return;
    this.#early = true;
    setImmediate(onEarly, this);
  }

  /** The counter filled up: take it out now, and write unless a write is under way. */
  early(): void {
    this.#early = false;
    if (this.#writing === null) void this.flush(false);
    else this.#take();
  }

  #take(): void {
    this.#add(this.#day, this.counter.take());
    this.#day = utcDay(Date.now());
    this.#lose(this.counter.takeDropped());
  }

  async #write(withAnalytics: boolean): Promise<void> {
    const batch = this.#waiting;
    const pairs = this.#waitingPairs;
    this.#waiting = new Map();
    this.#waitingPairs = 0;
    const rollups = withAnalytics ? ((await this.#deps.analytics?.take()) ?? null) : null;
    try {
      if (pairs > 0) await this.#deps.write(batch);
      this.#lastWritten = Date.now();
      if (rollups !== null) await this.#writeRollups(rollups);
      if (pairs > 0) this.#deps.flushed?.(pairs);
      if (this.#failing) this.#deps.log.info({ links: pairs }, 'click counts written again');
      this.#failing = false;
    } catch (err) {
      // Written after the counts taken meanwhile: those are newer, and stay if room runs out.
      for (const [day, byCode] of batch) this.#add(day, byCode);
      if (rollups !== null) this.#deps.analytics?.putBack(rollups);
      if (!this.#failing) this.#deps.log.warn({ err, links: pairs }, 'click counts could not be written: kept for the next flush');
      this.#failing = true;
    } finally {
      if (this.#unreported > 0) {
        this.#deps.log.warn(
          { clicks: this.#unreported, maxCodes: this.#deps.maxCodes },
          'clicks dropped: more links clicked between flushes, or waiting for Postgres, than CLICK_MAX_CODES',
        );
        this.#unreported = 0;
      }
    }
  }

  /**
   * After the counts: a failure keeps the rollups for the next time they are due, a whole
   * ANALYTICS_FLUSH_INTERVAL_MS later (a rollup write is Postgres's heaviest: retried at each
   * count flush, one it could not take would be tried again every CLICK_FLUSH_INTERVAL_MS), and
   * leaves the counts written (and the breaker of lookups untouched).
   */
  async #writeRollups(rollups: RollupBatch): Promise<void> {
    try {
      if (!rollups.empty) await this.#deps.writeRollups?.(rollups);
      if (this.#rollupsFailing) this.#deps.log.info('analytics written again');
      this.#rollupsFailing = false;
    } catch (err) {
      this.#deps.analytics?.putBack(rollups);
      if (!this.#rollupsFailing) this.#deps.log.warn({ err }, 'analytics could not be written: kept for the next flush');
      this.#rollupsFailing = true;
    }
    this.#analyticsDue = Date.now() + (this.#deps.analyticsIntervalMs ?? 0);
  }

  /** Adds counts to what waits, within maxCodes (code, day) pairs; the rest is dropped. */
  #add(day: string, counts: ReadonlyMap<string, ClickCount>): void {
    if (counts.size === 0) return;
    let byCode = this.#waiting.get(day);
    if (byCode === undefined) {
      byCode = new Map();
      this.#waiting.set(day, byCode);
    }
    let lost = 0;
    for (const [code, count] of counts) {
      const kept = byCode.get(code);
      if (kept !== undefined) {
        kept.clicks += count.clicks;
        kept.bots += count.bots;
      } else if (this.#waitingPairs < this.#deps.maxCodes) {
        byCode.set(code, { clicks: count.clicks, bots: count.bots });
        this.#waitingPairs++;
      } else {
        lost += count.clicks + count.bots;
      }
    }
    if (byCode.size === 0) this.#waiting.delete(day);
    this.#lose(lost);
  }

  #lose(clicks: number): void {
    this.#dropped += clicks;
    this.#unreported += clicks;
  }
}

function onTimer(flusher: ClickFlusher): void {
  flusher.tick();
}

function onEarly(flusher: ClickFlusher): void {
  flusher.early();
}
