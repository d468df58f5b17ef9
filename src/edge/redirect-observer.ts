// What the redirect handler reports of each answer: a click for every link's redirect, and, with metrics on,
// the answer's status, its latency and whether the LRU had the code. Per request this is a Map
// lookup for the click and a few typed-array increments; with metrics off the clock is not read.

import { redirectSlot, type RedirectCounts } from '../metrics/metrics.ts';
import type { ClickCounter, CountedLink } from '../analytics/click-counter.ts';
import type { RedirectObserver } from './redirect.ts';

export function createRedirectObserver(clicks: ClickCounter, metrics: RedirectCounts | null): RedirectObserver {
  const click = (
    userAgent: string | undefined,
    _status: number,
    code: string,
    _started: number,
    clicked: boolean,
  ): CountedLink | undefined => (clicked ? clicks.count(code, userAgent) : undefined);
  if (metrics === null) {
    return { now: () => 0, cached: () => {}, answered: click };
  }
  const { answers, lru, latency } = metrics;
  return {
    now: () => performance.now(),
    cached(hit) {
      const i = hit ? 0 : 1;
      lru[i] = (lru[i] as number) + 1;
    },
    answered(userAgent, status, code, started, clicked) {
      const i = redirectSlot(status);
      answers[i] = (answers[i] as number) + 1;
      latency.observe((performance.now() - started) / 1000);
      return clicked ? clicks.count(code, userAgent) : undefined;
    },
  };
}
