// What the resolver counts of its lookups below the LRU (resolver.ts ResolverStats), and the round
// trips it sent to each tier (each a batch of codes): plain numbers, read by /metrics at each
// scrape, and the batch sizes as histograms.

import type { Histogram } from 'prom-client';
import { BATCH_BOUNDS, type Metrics } from '../metrics/metrics.ts';
import type { ResolverStats } from './resolver.ts';

export class LookupCounts implements ResolverStats {
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

  constructor(metrics: Metrics) {
    this.#redisBatches = metrics.histogram(
      'shortener_redis_batch_size',
      'Codes per Redis round trip of the batch fetcher (one MGET, or one pipeline on a cluster).',
      BATCH_BOUNDS,
    );
    this.#postgresBatches = metrics.histogram(
      'shortener_postgres_batch_size',
      'Codes per lookup on the Postgres primary of the batch fetcher (WHERE code = ANY($1)).',
      BATCH_BOUNDS,
    );
    this.#replicaBatches = metrics.histogram(
      'shortener_postgres_replica_batch_size',
      'Codes per lookup on a Postgres read replica.',
      BATCH_BOUNDS,
    );
    this.#register(metrics);
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

  #register(metrics: Metrics): void {
    metrics.scraped(
      'shortener_redis_lookups_total',
      'Codes looked up in Redis: known there (hit, a negative entry included) or not (miss, a failure included).',
      'counter',
      () => [
        { labels: { result: 'hit' }, value: this.redisHits },
        { labels: { result: 'miss' }, value: this.redisMisses },
      ],
    );
    metrics.scraped(
      'shortener_postgres_lookups_total',
      'Codes looked up on the Postgres primary: found, absent, or failed (503 unless a last known answer or a standby stood in).',
      'counter',
      () => [
        { labels: { result: 'found' }, value: this.postgresFound },
        { labels: { result: 'absent' }, value: this.postgresAbsent },
        { labels: { result: 'failed' }, value: this.postgresFailed },
      ],
    );
    metrics.scraped(
      'shortener_postgres_replica_lookups_total',
      'Codes looked up on a read replica: found, miss (not there, or only older than a change known here: ' +
        'read again on the primary), failed (the primary answered instead), stood_in (the primary failed and ' +
        'a standby answered).',
      'counter',
      () => [
        { labels: { result: 'found' }, value: this.replicaFound },
        { labels: { result: 'miss' }, value: this.replicaMissed },
        { labels: { result: 'failed' }, value: this.replicaFailed },
        { labels: { result: 'stood_in' }, value: this.replicaStoodIn },
      ],
    );
  }
}
