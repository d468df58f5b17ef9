// Clicks counted in memory, per code, on the redirect path: one Map lookup and one increment per
// 302 (click analytics keeps the link's slot in its log on the count it finds); the click flusher (click-flusher.ts) takes the whole map out every CLICK_FLUSH_INTERVAL_MS.
// Whether a User-Agent is a bot is decided once per distinct string, by a Map lookup instead of
// isbot's regex. What a click costs (`node load/click-counter-bench.ts`):
// docs/performance.md#what-metrics-and-click-counts-cost-the-hot-path.

import { isbot } from 'isbot';
import { Memo } from '../core/memo.ts';
import type { ClickCounts, SlotHolder } from '../edge/ports.ts';
import type { ClickCount } from './click-store.ts';

/**
 * A link's clicks since the last take, with room for click analytics to keep the link's slot in
 * its log, so that a click costs one Map lookup for both.
 */
export interface CountedLink extends ClickCount, SlotHolder {}

/** Distinct User-Agent strings whose verdict is remembered. */
const VERDICTS_MAX = 10_000;

export class ClickCounter implements ClickCounts {
  readonly #maxCodes: number;
  readonly #full: () => void;
  #counts = new Map<string, CountedLink>();
  readonly #verdicts = new Memo(isbot, VERDICTS_MAX);
  #dropped = 0;

  /**
   * At most `maxCodes` distinct codes between two takes; the click that finds the map full is
   * dropped (and counted), and `full` is called so that the map is taken out early.
   */
  constructor(maxCodes: number, full: () => void) {
    this.#maxCodes = maxCodes;
    this.#full = full;
  }

  /** One 302 for `code`, asked for with this User-Agent; the link's count, undefined if the click was dropped. */
  count(code: string, userAgent: string | undefined): CountedLink | undefined {
    let count = this.#counts.get(code);
    if (count === undefined) {
      if (this.#counts.size >= this.#maxCodes) {
        this.#dropped++;
        this.#full();
        return undefined;
      }
      count = { clicks: 0, bots: 0, slot: 0, slots: null };
      this.#counts.set(code, count);
    }
    if (userAgent !== undefined && this.#isBot(userAgent)) count.bots++;
    else count.clicks++;
    return count;
  }

  /** The counts since the last take; counting starts again from zero. */
  take(): Map<string, CountedLink> {
    const counts = this.#counts;
    this.#counts = new Map();
    return counts;
  }

  /** Clicks dropped because the map was full, since the last call. */
  takeDropped(): number {
    const dropped = this.#dropped;
    this.#dropped = 0;
    return dropped;
  }

  #isBot(userAgent: string): boolean {
    return this.#verdicts.get(userAgent);
  }
}
