// The Prometheus metrics of one app: a prom-client registry of its own (tests build several apps
// in one process), with Node's process metrics. Each part registers its own series where it
// builds what they count (the edge its redirects, the read path its lookups, the write path its
// batches...), as it registers its onClose. What happens per request is counted in plain numbers
// and typed arrays and read when /metrics is scraped; prom-client is called per batch, per flush
// or per breaker transition, never per redirect. METRICS_ENABLED=false builds none of this.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { FixedHistogram } from './fixed-histogram.ts';

/** Seconds: a hit is answered in tens of microseconds, a lookup in about a millisecond, a sick Postgres in seconds. */
export const LATENCY_BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
export const BATCH_BOUNDS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000];

export interface Value {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** Answers of one route counted by their own part (the edge's redirects): by status, and their latency. */
export interface RequestSource {
  readonly route: string;
  readonly statuses: () => Iterable<readonly [status: string | number, count: number]>;
  readonly latency: FixedHistogram;
}

/** Requests that Fastify routed: counts by status and a latency histogram, per route. */
class RouteCounts {
  readonly #routes = new Map<string, { statuses: Map<number, number>; latency: FixedHistogram }>();

  observe(route: string, status: number, seconds: number): void {
    let entry = this.#routes.get(route);
    if (entry === undefined) {
      entry = { statuses: new Map(), latency: new FixedHistogram(LATENCY_BOUNDS) };
      this.#routes.set(route, entry);
    }
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    entry.latency.observe(seconds);
  }

  sources(): RequestSource[] {
    return [...this.#routes].map(([route, { statuses, latency }]) => ({ route, statuses: () => statuses, latency }));
  }
}

export class Metrics {
  readonly registry = new Registry();
  readonly #routes = new RouteCounts();
  /** The parts' own request counts, before Fastify's routes in the series. */
  readonly #sources: RequestSource[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.scraped(
      'shortener_http_requests_total',
      'Requests answered, by route and status; redirects (GET and HEAD /:code) from either entrance.',
      'counter',
      () =>
        this.#allSources().flatMap(({ route, statuses }) =>
          [...statuses()].map(([status, value]) => ({ labels: { route, status }, value })),
        ),
    );
    this.scraped(
      'shortener_http_request_duration_seconds',
      'Time from a request reaching its handler to its answer, by route.',
      'histogram',
      () =>
        this.#allSources().flatMap(({ route, latency }) => histogramValues('shortener_http_request_duration_seconds', { route }, latency)),
    );
  }

  /** A request Fastify answered (not a redirect: those count themselves, a RequestSource). */
  route(route: string, status: number, seconds: number): void {
    this.#routes.observe(route, status, seconds);
  }

  /** Adds a part's own counts of a route to the request series. */
  requests(source: RequestSource): void {
    this.#sources.push(source);
  }

  histogram(name: string, help: string, buckets: readonly number[], labelNames: readonly string[] = []): Histogram {
    return new Histogram({ name, help, buckets: [...buckets], labelNames: [...labelNames], registers: [this.registry] });
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }

  /** A gauge read from its part at each scrape; labelled series are set afresh, so one not set again goes away. */
  gauge(
    name: string,
    help: string,
    read: (set: (value: number, labels?: Record<string, string>) => void) => void,
    labelNames: string[] = [],
  ): Gauge {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        if (labelNames.length > 0) this.reset();
        read((value, labels) => (labels === undefined ? this.set(value) : this.set(labels, value)));
      },
    });
  }

  /**
   * A metric whose values are read from plain numbers when the registry is scraped. It has the
   * shape the registry reads (name, help, type, aggregator, get, reset); prom-client's own types
   * would count or observe through their label hashing on every event.
   */
  scraped(name: string, help: string, type: 'counter' | 'histogram', read: () => Value[]): void {
    const metric = {
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: read() }),
      reset() {},
    };
    this.registry.registerMetric(metric as unknown as Metric);
  }

  #allSources(): RequestSource[] {
    return [...this.#sources, ...this.#routes.sources()];
  }
}

export function histogramValues(name: string, labels: Record<string, string>, histogram: FixedHistogram): Value[] {
  const values: Value[] = histogram.cumulative().map(([le, count]) => ({
    metricName: `${name}_bucket`,
    labels: { ...labels, le: le === Infinity ? '+Inf' : le },
    value: count,
  }));
  values.push({ metricName: `${name}_sum`, labels, value: histogram.sum }, { metricName: `${name}_count`, labels, value: histogram.count });
  return values;
}
