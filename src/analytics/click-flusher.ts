// Writes the click counts to Postgres, and the analytics' rollups beside them. The counts are taken
// out of the counter every CLICK_FLUSH_INTERVAL_MS, at each UTC midnight and when the counter is
// full, and written in one statement; a failed write's counts wait for the next, within
// CLICK_MAX_CODES. The rollups are written every ANALYTICS_FLUSH_INTERVAL_MS, chunk by chunk, paced
// by ANALYTICS_WRITE_SHARE, and never hold the counts back. What a crash loses:
// docs/architecture.md#click-counts, docs/api.md#click-analytics.

import type { Logger } from 'pino';
import { msToNextUtcDay, utcDay } from '../core/day-range.ts';
import type { Orphans, RollupBatch, RollupRows } from './rollups.ts';
import type { ClickCount, DailyCounts } from './click-store.ts';
import { ClickCounter } from './click-counter.ts';

/** Click analytics (analytics/visits.ts): taken out at each write, put back if it fails. */
export interface RollupSource {
  take(): Promise<RollupBatch>;
  putBack(batch: RollupBatch): void;
}

export interface ClickFlusherDeps {
  /** Writes the counts in one statement (addClicks through the breaker); rejects on failure. */
  write(counts: DailyCounts): Promise<unknown>;
  /** Writes a chunk of rollup rows, in a transaction of its own (analytics/rollup-store.ts addRollupChunk); rejects on failure. */
  writeRollupChunk?(rows: RollupRows): Promise<unknown>;
  /** Writes the visits to unknown codes (analytics/rollup-store.ts addOrphanVisits); rejects on failure. */
  writeOrphans?(orphans: Orphans): Promise<unknown>;
  /** Writes the workspaces' rows of the chunks not yet in them, and marks those (analytics/rollup-store.ts addWorkspaceRollups); rejects on failure. */
  writeWorkspaces?(chunks: readonly RollupRows[]): Promise<unknown>;
  /** null: analytics off. */
  analytics?: RollupSource | null;
  /** How often the timer's writes take the analytics along (ANALYTICS_FLUSH_INTERVAL_MS); flush() always does. */
  analyticsIntervalMs?: number;
  /** The most of its time a paced rollup write keeps Postgres busy (ANALYTICS_WRITE_SHARE), in (0, 1]; 1: no pauses. */
  rollupShare?: number;
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
  /** The rollups' write under way, beside the counts'. */
  #rollupWriting: Promise<void> | null = null;
  /** The write under way is to end now: no more pauses. */
  #hurried = false;
  /** Ends the pause under way, if any. */
  #wake: (() => void) | null = null;
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
    const writing = this.#write(analytics || Date.now() >= this.#analyticsDue, analytics);
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

  /** Writes the counts taken; then, if `withAnalytics`, takes the rollups and writes them, paced unless `now` (and then waited for). */
  async #write(withAnalytics: boolean, now: boolean): Promise<void> {
    const batch = this.#waiting;
    const pairs = this.#waitingPairs;
    this.#waiting = new Map();
    this.#waitingPairs = 0;
    try {
      if (pairs > 0) await this.#deps.write(batch);
      this.#lastWritten = Date.now();
      if (pairs > 0) this.#deps.flushed?.(pairs);
      if (this.#failing) this.#deps.log.info({ links: pairs }, 'click counts written again');
      this.#failing = false;
    } catch (err) {
      // Written after the counts taken meanwhile: those are newer, and stay if room runs out.
      for (const [day, byCode] of batch) this.#add(day, byCode);
      if (!this.#failing) this.#deps.log.warn({ err, links: pairs }, 'click counts could not be written: kept for the next flush');
      this.#failing = true;
      // The rollups stay where they are: Postgres took no counts, it would take no rollups.
      return;
    } finally {
      if (this.#unreported > 0) {
        this.#deps.log.warn(
          { clicks: this.#unreported, maxCodes: this.#deps.maxCodes },
          'clicks dropped: more links clicked between flushes, or waiting for Postgres, than CLICK_MAX_CODES',
        );
        this.#unreported = 0;
      }
    }
    const analytics = this.#deps.analytics;
    if (!withAnalytics || analytics === undefined || analytics === null) return;
    if (now) {
      // The write under way ends without pauses, then what was counted since is written at once.
      this.#hurried = true;
      this.#wake?.();
      while (this.#rollupWriting !== null) await this.#rollupWriting;
    } else if (this.#rollupWriting !== null) return;
    const rollups = await analytics.take();
    const writing = this.#writeRollups(rollups, now);
    this.#rollupWriting = writing;
    void writing.finally(() => {
      if (this.#rollupWriting === writing) this.#rollupWriting = null;
    });
    if (now) await writing;
  }

  /**
   * The orphan visits, the workspaces' rows, then the links' chunks, paced unless `now`. A failure
   * puts back what was not written, for the next time the rollups are due, a whole
   * ANALYTICS_FLUSH_INTERVAL_MS later (a rollup write is Postgres's heaviest: retried at each count
   * flush, one it could not take would be tried again every CLICK_FLUSH_INTERVAL_MS); the counts
   * and the breaker of lookups are left alone. Never rejects.
   */
  async #writeRollups(rollups: RollupBatch, now: boolean): Promise<void> {
    const started = Date.now();
    const intervalMs = this.#deps.analyticsIntervalMs ?? 0;
    const deadline = started + intervalMs / 2;
    this.#hurried = now;
    let written = 0;
    let orphansWritten = false;
    try {
      await this.#deps.writeOrphans?.(rollups.orphans);
      orphansWritten = true;
      const { chunks } = rollups;
      await this.#deps.writeWorkspaces?.(chunks);
      let busy = 0;
      for (const chunk of chunks) {
        const before = performance.now();
        await this.#deps.writeRollupChunk?.(chunk);
        const took = performance.now() - before;
        busy += took;
        written++;
        if (written < chunks.length)
          await this.#pause(took, (busy / written) * (chunks.length - written), chunks.length - written, deadline);
      }
      if (this.#rollupsFailing) this.#deps.log.info('analytics written again');
      this.#rollupsFailing = false;
      this.#analyticsDue = started + intervalMs;
    } catch (err) {
      this.#deps.analytics?.putBack(rollups.remainder(written, !orphansWritten));
      if (!this.#rollupsFailing) this.#deps.log.warn({ err }, 'analytics could not be written: kept for the next flush');
      this.#rollupsFailing = true;
      this.#analyticsDue = Date.now() + intervalMs;
    }
  }

  /**
   * After a chunk that took `took` ms: a pause of took × (1 − share) / share, shortened so that
   * the `left` chunks (`work` ms at the pace so far) still end by `deadline`; none once hurried.
   */
  async #pause(took: number, work: number, left: number, deadline: number): Promise<void> {
    const share = this.#deps.rollupShare ?? 1;
    const wanted = (took * (1 - share)) / share;
    const ms = Math.min(wanted, (deadline - Date.now() - work) / left);
    if (this.#hurried || !(ms >= 1)) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wake = null;
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
