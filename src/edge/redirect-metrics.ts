// What the redirect handler counts per request, in typed arrays (redirect-observer.ts), and the
// series that /metrics reads from them at each scrape: answers by status and their latency (in
// shortener_http_requests_total and shortener_http_request_duration_seconds, as the route
// GET /:code from either entrance), and LRU hits and misses.

import { FixedHistogram } from '../metrics/fixed-histogram.ts';
import { LATENCY_BOUNDS, type Metrics } from '../metrics/metrics.ts';

/** The route label of redirects (HEAD included), from either entrance. */
const REDIRECT_ROUTE = 'GET /:code';
/** The statuses a redirect is counted under, in the order of RedirectCounts.answers. */
const REDIRECT_STATUSES = ['302', '404', '410', '429', '503', 'other'] as const;

export class RedirectCounts {
  /** Answers by status, in the order of REDIRECT_STATUSES. */
  readonly answers = new Float64Array(REDIRECT_STATUSES.length);
  /** LRU hits [0] and misses [1] of redirects. */
  readonly lru = new Float64Array(2);
  /** Seconds from the request's arrival at the handler to its answer being written. */
  readonly latency = new FixedHistogram(LATENCY_BOUNDS);

  /** Registers the series read from these counts. */
  register(metrics: Metrics): void {
    const { answers, lru } = this;
    metrics.requests({
      route: REDIRECT_ROUTE,
      statuses: () => REDIRECT_STATUSES.map((status, i) => [status, answers[i] ?? 0] as const),
      latency: this.latency,
    });
    metrics.scraped(
      'shortener_lru_lookups_total',
      'Redirects answered from the in-process LRU (hit) or needing a lookup (miss).',
      'counter',
      () => [
        { labels: { result: 'hit' }, value: lru[0] ?? 0 },
        { labels: { result: 'miss' }, value: lru[1] ?? 0 },
      ],
    );
  }
}

/** The index of `status` in RedirectCounts.answers. */
export function redirectSlot(status: number): number {
  switch (status) {
    case 302:
      return 0;
    case 404:
      return 1;
    case 410:
      return 2;
    case 429:
      return 3;
    case 503:
      return 4;
    default:
      return 5;
  }
}
