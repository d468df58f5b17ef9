// The series of click counting and analytics, read from their parts at each scrape: clicks dropped,
// clicks left out of the analytics, the click stream's events, how long ago the counts were last
// written and how many wait; and the size of each flush.

import type { Metrics } from '../metrics/metrics.ts';
import { BATCH_BOUNDS } from '../metrics/metrics.ts';
import type { ClickFlusher } from './click-flusher.ts';
import type { ClickStream } from './click-stream.ts';
import type { Visits } from './visits.ts';

/** Observes the size of each click flush that succeeded; what the click flusher is told of each. */
export function clickFlushes(metrics: Metrics): (pairs: number) => void {
  const sizes = metrics.histogram('shortener_click_flush_size', '(code, day) pairs per click flush that succeeded.', BATCH_BOUNDS);
  return (pairs) => sizes.observe(pairs);
}

export function watchClicks(
  metrics: Metrics,
  clicks: Pick<ClickFlusher, 'lagSeconds' | 'dropped' | 'waiting'>,
  visits: Pick<Visits, 'dropped'> | null,
  stream: Pick<ClickStream, 'sent' | 'dropped'> | null,
): void {
  metrics.scraped(
    'shortener_clicks_dropped_total',
    'Clicks not counted: more than CLICK_MAX_CODES links waiting, or lost at shutdown.',
    'counter',
    () => [{ labels: {}, value: clicks.dropped }],
  );
  metrics.scraped(
    'shortener_analytics_dropped_total',
    'Clicks counted but left out of the analytics: more than 65,536 in one event-loop turn, or more links between flushes than CLICK_MAX_CODES.',
    'counter',
    () => [{ labels: {}, value: visits?.dropped ?? 0 }],
  );
  metrics.scraped(
    'shortener_click_stream_events_total',
    'Click stream events (CLICK_STREAM=redis): sent (Redis took them), dropped (Redis did not: down, slow, or too many waiting).',
    'counter',
    () =>
      stream === null
        ? []
        : [
            { labels: { result: 'sent' }, value: stream.sent },
            { labels: { result: 'dropped' }, value: stream.dropped },
          ],
  );
  metrics.gauge('shortener_click_flush_lag_seconds', 'Seconds since the click counts were last written to Postgres.', (set) =>
    set(clicks.lagSeconds(Date.now())),
  );
  metrics.gauge(
    'shortener_clicks_waiting',
    '(code, day) pairs of click counts waiting for a write (after a failed flush, or during one).',
    (set) => set(clicks.waiting),
  );
}
