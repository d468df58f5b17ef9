// What the redirect handler reports of each answer: a click for every link's redirect (to the click
// counts analytics plugs in), and, with metrics on, the answer's status, its latency and whether
// the LRU had the code. Per request this is a Map lookup for the click and a few typed-array
// increments; with metrics off the clock is not read.

import { redirectSlot, type RedirectCounts } from './redirect-metrics.ts';
import type { ClickCounts, SlotHolder } from './ports.ts';

/** What the handler reports; called on the hot path, so each call must cost next to nothing. */
export interface RedirectObserver {
  /** A timestamp for `answered` (performance.now(), or 0 when nothing measures time). */
  now(): number;
  /** Whether the LRU had the code of a redirect, or a lookup was needed. */
  cached(hit: boolean): void;
  /**
   * A request for the link `key` names (core/domains.ts) from `userAgent` was just answered with
   * `status`; it came in at `started`. An empty key: the answer was no link's (a domain's fallback,
   * a host not served, a path that is no code). `click`: the answer sent a visitor on (a link's
   * redirect, or its app page). Returns the link's holder of its analytics slot, where a click was
   * counted (undefined: none).
   */
  answered(userAgent: string | undefined, status: number, key: string, started: number, click: boolean): SlotHolder | undefined;
}

/** No metrics: clicks only, and the clock is never read. */
class ClicksOnly implements RedirectObserver {
  readonly #clicks: ClickCounts | null;

  constructor(clicks: ClickCounts | null) {
    this.#clicks = clicks;
  }

  now(): number {
    return 0;
  }

  cached(): void {}

  answered(userAgent: string | undefined, _status: number, key: string, _started: number, click: boolean): SlotHolder | undefined {
    return click && this.#clicks !== null ? this.#clicks.count(key, userAgent) : undefined;
  }
}

/** Clicks, and the redirect metrics in typed arrays (read when /metrics is scraped). */
class ClicksAndMetrics implements RedirectObserver {
  readonly #clicks: ClickCounts | null;
  readonly #answers: Float64Array;
  readonly #lru: Float64Array;
  readonly #counts: RedirectCounts;

  constructor(clicks: ClickCounts | null, counts: RedirectCounts) {
    this.#clicks = clicks;
    this.#counts = counts;
    this.#answers = counts.answers;
    this.#lru = counts.lru;
  }

  now(): number {
    return performance.now();
  }

  cached(hit: boolean): void {
    const i = hit ? 0 : 1;
    this.#lru[i] = (this.#lru[i] as number) + 1;
  }

  answered(userAgent: string | undefined, status: number, key: string, started: number, click: boolean): SlotHolder | undefined {
    const i = redirectSlot(status);
    this.#answers[i] = (this.#answers[i] as number) + 1;
    this.#counts.latency.observe((performance.now() - started) / 1000);
    return click && this.#clicks !== null ? this.#clicks.count(key, userAgent) : undefined;
  }
}

/** The observer of redirects: clicks go to `clicks` (null: not counted), metrics to `counts` (null: METRICS_ENABLED=false). */
export function redirectObserver(clicks: ClickCounts | null, counts: RedirectCounts | null): RedirectObserver {
  return counts === null ? new ClicksOnly(clicks) : new ClicksAndMetrics(clicks, counts);
}
