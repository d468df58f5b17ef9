// The Prometheus metrics of one app: a prom-client registry of its own (tests build several apps
// in one process), with Node's process metrics. What happens per redirect is counted in plain
// typed arrays and read when /metrics is scraped; prom-client is called per batch, per flush or
// per breaker transition, never per redirect. METRICS_ENABLED=false builds none of this.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { Visits } from '../analytics/visits.ts';
import type { ClickStream } from '../analytics/click-stream.ts';
import type { DbBreaker } from '../db/breaker.ts';
import type { ReplicaSet } from '../db/replicas.ts';
import type { ResolverStats } from '../resolve/resolver.ts';
import type { ClickFlusher } from '../analytics/click-flusher.ts';
import type { WriteQueue } from '../write/write-queue.ts';
import { FixedHistogram } from './fixed-histogram.ts';

/** Seconds: a hit is answered in tens of microseconds, a lookup in about a millisecond, a sick Postgres in seconds. */
const LATENCY_BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BATCH_BOUNDS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000];

/** The route label of redirects (HEAD included), from either entrance. */
const REDIRECT_ROUTE = 'GET /:code';
/** The statuses a redirect is counted under, in the order of RedirectCounts.answers. */
const REDIRECT_STATUSES = ['302', '404', '410', '429', '503', 'other'] as const;

/** What the redirect handler counts per request (edge/redirect-observer.ts). */
export class RedirectCounts {
  /** Answers by status, in the order of REDIRECT_STATUSES. */
  readonly answers = new Float64Array(REDIRECT_STATUSES.length);
  /** LRU hits [0] and misses [1] of redirects. */
  readonly lru = new Float64Array(2);
  /** Seconds from the request's arrival at the handler to its answer being written. */
  readonly latency = new FixedHistogram(LATENCY_BOUNDS);
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

  entries() {
    return this.#routes.entries();
  }
}

/** What the resolver counts, and the round trips it sent to each tier (each a batch of codes). */
class LookupCounts implements ResolverStats {
  redisHits = 0;
  redisMisses = 0;
  postgresFound = 0;
  postgresAbsent = 0;
  postgresFailed = 0;
  replicaFound = 0;
  replicaMissed = 0;
  replicaFailed = 0;
  replicaStoodIn = 0;
  /** The counts of the batch-size histograms, read without a scrape. */
  redisBatches = 0;
  postgresBatches = 0;
  replicaBatches = 0;
  readonly #redisBatches: Histogram;
  readonly #postgresBatches: Histogram;
  readonly #replicaBatches: Histogram;

  constructor(redisBatches: Histogram, postgresBatches: Histogram, replicaBatches: Histogram) {
    this.#redisBatches = redisBatches;
    this.#postgresBatches = postgresBatches;
    this.#replicaBatches = replicaBatches;
  }

  redisBatch(size: number): void {
    this.redisBatches++;
    this.#redisBatches.observe(size);
  }

  postgresBatch(size: number): void {
    this.postgresBatches++;
    this.#postgresBatches.observe(size);
  }

  replicaBatch(size: number): void {
    this.replicaBatches++;
    this.#replicaBatches.observe(size);
  }
}

/** The parts whose state is read at each scrape; they are built after the metrics. */
interface Watched {
  queue: Pick<WriteQueue, 'depth'>;
  breaker: Pick<DbBreaker, 'state'>;
  clicks: Pick<ClickFlusher, 'lagSeconds' | 'dropped' | 'waiting'>;
  /** Null: analytics off. */
  visits: Pick<Visits, 'dropped'> | null;
  /** Null: CLICK_STREAM=off. */
  clickStream: Pick<ClickStream, 'sent' | 'dropped'> | null;
  /** Null: no read replicas configured. */
  replicas: Pick<ReplicaSet, 'status'> | null;
}

export interface Metrics {
  readonly registry: Registry;
  readonly redirects: RedirectCounts;
  readonly lookups: LookupCounts;
  /** A request Fastify answered (not a redirect: those count themselves). */
  route: (route: string, status: number, seconds: number) => void;
  writeBatch: (size: number) => void;
  breakerTransition: (to: DbBreaker['state']) => void;
  clickFlush: (pairs: number) => void;
  /** A webhook delivery's try, by what came of it (webhooks/worker.ts). */
  webhookTried: (outcome: { readonly state: 'delivered' | 'pending' | 'dead'; readonly latencyMs: number }) => void;
  watch: (parts: Watched) => void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const redirects = new RedirectCounts();
  const routes = new RouteCounts();
  let watched: Watched | undefined;

  const batchSize = (name: string, help: string) => new Histogram({ name, help, buckets: BATCH_BOUNDS, registers });
  const lookups = new LookupCounts(
    batchSize('shortener_redis_batch_size', 'Codes per Redis round trip of the batch fetcher (one MGET, or one pipeline on a cluster).'),
    batchSize('shortener_postgres_batch_size', 'Codes per lookup on the Postgres primary of the batch fetcher (WHERE code = ANY($1)).'),
    batchSize('shortener_postgres_replica_batch_size', 'Codes per lookup on a Postgres read replica.'),
  );
  const writeBatches = batchSize('shortener_write_batch_size', 'Links per group-commit INSERT of the write queue.');
  const clickFlushes = batchSize('shortener_click_flush_size', '(code, day) pairs per click flush that succeeded.');
  const webhookTries = new Counter({
    name: 'shortener_webhook_tries_total',
    help: 'Webhook delivery tries, by outcome: delivered, retry (failed, tried again later), dead (failed its last try).',
    labelNames: ['outcome'],
    registers,
  });
  const webhookSeconds = new Histogram({
    name: 'shortener_webhook_try_seconds',
    help: 'How long a webhook delivery try took, to its answer or its failure.',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const transitions = new Counter({
    name: 'shortener_postgres_breaker_transitions_total',
    help: 'Transitions of the Postgres breaker, by the state it entered.',
    labelNames: ['to'],
    registers,
  });

  scraped(
    registry,
    'shortener_http_requests_total',
    'Requests answered, by route and status; redirects (GET and HEAD /:code) from either entrance.',
    'counter',
    () => {
      const values: Value[] = REDIRECT_STATUSES.map((status, i) => ({
        labels: { route: REDIRECT_ROUTE, status },
        value: redirects.answers[i] ?? 0,
      }));
      for (const [route, { statuses }] of routes.entries()) {
        for (const [status, value] of statuses) values.push({ labels: { route, status }, value });
      }
      return values;
    },
  );
  scraped(
    registry,
    'shortener_http_request_duration_seconds',
    'Time from a request reaching its handler to its answer, by route.',
    'histogram',
    () => {
      const values = histogramValues('shortener_http_request_duration_seconds', { route: REDIRECT_ROUTE }, redirects.latency);
      for (const [route, { latency }] of routes.entries())
        values.push(...histogramValues('shortener_http_request_duration_seconds', { route }, latency));
      return values;
    },
  );
  scraped(
    registry,
    'shortener_lru_lookups_total',
    'Redirects answered from the in-process LRU (hit) or needing a lookup (miss).',
    'counter',
    () => [
      { labels: { result: 'hit' }, value: redirects.lru[0] ?? 0 },
      { labels: { result: 'miss' }, value: redirects.lru[1] ?? 0 },
    ],
  );
  scraped(
    registry,
    'shortener_redis_lookups_total',
    'Codes looked up in Redis: known there (hit, a negative entry included) or not (miss, a failure included).',
    'counter',
    () => [
      { labels: { result: 'hit' }, value: lookups.redisHits },
      { labels: { result: 'miss' }, value: lookups.redisMisses },
    ],
  );
  scraped(
    registry,
    'shortener_postgres_lookups_total',
    'Codes looked up on the Postgres primary: found, absent, or failed (503 unless a last known answer or a standby stood in).',
    'counter',
    () => [
      { labels: { result: 'found' }, value: lookups.postgresFound },
      { labels: { result: 'absent' }, value: lookups.postgresAbsent },
      { labels: { result: 'failed' }, value: lookups.postgresFailed },
    ],
  );
  scraped(
    registry,
    'shortener_postgres_replica_lookups_total',
    'Codes looked up on a read replica: found, miss (not there, or only older than a change known here: ' +
      'read again on the primary), failed (the primary answered instead), stood_in (the primary failed and ' +
      'a standby answered).',
    'counter',
    () => [
      { labels: { result: 'found' }, value: lookups.replicaFound },
      { labels: { result: 'miss' }, value: lookups.replicaMissed },
      { labels: { result: 'failed' }, value: lookups.replicaFailed },
      { labels: { result: 'stood_in' }, value: lookups.replicaStoodIn },
    ],
  );
  scraped(
    registry,
    'shortener_clicks_dropped_total',
    'Clicks not counted: more than CLICK_MAX_CODES links waiting, or lost at shutdown.',
    'counter',
    () => [{ labels: {}, value: watched?.clicks.dropped ?? 0 }],
  );
  scraped(
    registry,
    'shortener_analytics_dropped_total',
    'Clicks counted but left out of the analytics: more than 65,536 in one event-loop turn, or more links between flushes than CLICK_MAX_CODES.',
    'counter',
    () => [{ labels: {}, value: watched?.visits?.dropped ?? 0 }],
  );
  scraped(
    registry,
    'shortener_click_stream_events_total',
    'Click stream events (CLICK_STREAM=redis): sent (Redis took them), dropped (Redis did not: down, slow, or too many waiting).',
    'counter',
    () => {
      const stream = watched?.clickStream ?? null;
      return stream === null
        ? []
        : [
            { labels: { result: 'sent' }, value: stream.sent },
            { labels: { result: 'dropped' }, value: stream.dropped },
          ];
    },
  );
  // Read at each scrape from the parts themselves.
  const gauge = (
    name: string,
    help: string,
    read: (set: (value: number, labels?: Record<string, string>) => void) => void,
    labelNames: string[] = [],
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      collect() {
        // Labelled series are set afresh at each scrape: one that is not set again (a replica whose lag is unknown) goes away.
        if (labelNames.length > 0) this.reset();
        read((value, labels) => (labels === undefined ? this.set(value) : this.set(labels, value)));
      },
    });
  gauge('shortener_write_queue_depth', 'Links waiting in the write queue.', (set) => set(watched?.queue.depth ?? 0));
  gauge(
    'shortener_postgres_breaker_state',
    'State of the Postgres breaker: 1 for the current state, 0 for the others.',
    (set) => {
      const state = watched?.breaker.state ?? 'closed';
      for (const s of ['closed', 'half-open', 'open'] as const) set(s === state ? 1 : 0, { state: s });
    },
    ['state'],
  );
  gauge(
    'shortener_postgres_replica_up',
    'Whether a read replica takes reads (1) or not (0): at its last probe it had replayed what the ' +
      'primary had at most DATABASE_REPLICA_MAX_LAG_MS before.',
    (set) => {
      for (const { name, state } of watched?.replicas?.status() ?? []) set(state === 'up' ? 1 : 0, { replica: name });
    },
    ['replica'],
  );
  gauge(
    'shortener_postgres_replica_lag_seconds',
    'How old the newest primary position each read replica has replayed is (absent while unknown).',
    (set) => {
      for (const { name, lagMs } of watched?.replicas?.status() ?? []) if (lagMs !== null) set(lagMs / 1000, { replica: name });
    },
    ['replica'],
  );
  gauge('shortener_click_flush_lag_seconds', 'Seconds since the click counts were last written to Postgres.', (set) =>
    set(watched?.clicks.lagSeconds(Date.now()) ?? 0),
  );
  gauge('shortener_clicks_waiting', '(code, day) pairs of click counts waiting for a write (after a failed flush, or during one).', (set) =>
    set(watched?.clicks.waiting ?? 0),
  );

  return {
    registry,
    redirects,
    lookups,
    route: (route, status, seconds) => routes.observe(route, status, seconds),
    writeBatch: (size) => writeBatches.observe(size),
    breakerTransition: (to) => transitions.inc({ to }),
    clickFlush: (pairs) => clickFlushes.observe(pairs),
    webhookTried: ({ state, latencyMs }) => {
      webhookTries.inc({ outcome: state === 'pending' ? 'retry' : state });
      webhookSeconds.observe(latencyMs / 1000);
    },
    watch: (parts) => {
      watched = parts;
    },
  };
}

interface Value {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * A metric whose values are read from plain numbers when the registry is scraped. It has the
 * shape the registry reads (name, help, type, aggregator, get, reset); prom-client's own types
 * would count or observe through their label hashing on every event.
 */
function scraped(registry: Registry, name: string, help: string, type: 'counter' | 'histogram', read: () => Value[]): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: read() }),
    reset() {},
  };
  registry.registerMetric(metric as unknown as Metric);
}

function histogramValues(name: string, labels: Record<string, string>, histogram: FixedHistogram): Value[] {
  const values: Value[] = histogram.cumulative().map(([le, count]) => ({
    metricName: `${name}_bucket`,
    labels: { ...labels, le: le === Infinity ? '+Inf' : le },
    value: count,
  }));
  values.push({ metricName: `${name}_sum`, labels, value: histogram.sum }, { metricName: `${name}_count`, labels, value: histogram.count });
  return values;
}
