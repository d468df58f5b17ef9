// The shape of one run of the load suite: what `load/results/<timestamp>.json` holds and what
// the report is drawn from.

export interface Latency {
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** One measurement: one server variant under one traffic shape for a bounded time. */
export interface RunResult {
  /** The scenario it belongs to: ceiling, baseline, hot, hot-slow, go, cluster, redis, postgres, not-found, create, mixed, latency, metrics, memory, storage. */
  readonly scenario: string;
  /** Which server answered: 'service', 'baseline (node:http + Map)', 'one SELECT per request', ... */
  readonly variant: string;
  /** Short unique label for tables and charts, e.g. 'create 400 · one INSERT per request'. */
  readonly label: string;
  /** What sent the traffic: autocannon in the suite's process, or wrk (load/wrk.ts). Absent on runs that sent none. */
  readonly generator?: 'autocannon' | 'wrk';
  /**
   * Set when the load generator, not the server, was the limit (its CPU near a full core, or a
   * rate near the ceiling run's): the figure is a lower bound. Says why.
   */
  readonly generatorLimited?: string;
  /** Set when the figure is informational only, and why (e.g. the server shares a core with the load generator). */
  readonly informational?: string;
  readonly connections: number;
  /** Fixed offered rate (req/s) for the latency scenario; null when the generator sent as fast as it could. */
  readonly offeredRate: number | null;
  readonly seconds: number;
  readonly requests: number;
  /** Mean requests per second over the run. */
  readonly rps: number;
  /** Milliseconds. */
  readonly latency: Latency;
  /** HTTP status -> responses; with wrk, '2xx/3xx' and 'not 2xx/3xx' -> responses. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Connection errors and timeouts seen by the load generator. */
  readonly errors: number;
  /** Share of one core used during the run (1 = one full core), by the load generator and by the server process. */
  readonly cpu: { readonly client: number; readonly server: number | null };
  /** Only for the memory scenario. */
  readonly memory?: {
    readonly links: number;
    readonly rssMb: number;
    /** Resident memory of the probe with the service's modules loaded, before the first link: the floor of an instance. */
    readonly rssBeforeMb: number;
    readonly heapUsedMb: number;
    readonly bytesPerLink: number;
  };
  /** Only for the storage scenario. */
  readonly storage?: StorageFigures;
  /** Set when the run did not happen; says why (e.g. "the Redis tier does not exist yet"). */
  readonly skipped?: string;
}

/** What a link costs where the service keeps it besides its LRU, written by the service itself. */
export interface StorageFigures {
  readonly postgres: PostgresStorage;
  /** null without a Redis (REDIS_URL unset). */
  readonly redis: RedisStorage | null;
}

/** Sizes after VACUUM ANALYZE, in bytes; those of `links` before any click. */
export interface PostgresStorage {
  /** Rows of `links`, and the mean length of their URLs. */
  readonly links: number;
  readonly urlBytes: number;
  /** pg_total_relation_size('links'): heap, TOAST, free-space and visibility maps, every index. */
  readonly totalBytes: number;
  /** pg_relation_size('links'): the heap alone. */
  readonly heapBytes: number;
  /** pg_indexes_size('links'): the primary key on `code` (the only index). */
  readonly indexBytes: number;
  readonly bytesPerLink: number;
  readonly heapBytesPerLink: number;
  readonly indexBytesPerLink: number;
  /** link_clicks_daily after one click on some links: one row per link and UTC day clicked; its total size (table and key) per row. */
  readonly clickRows: number;
  readonly clickBytesPerRow: number | null;
  /**
   * The heap of `links` per link after those clicks: their counts are UPDATEs, whose old row
   * versions VACUUM frees but does not give back.
   */
  readonly clickedHeapBytesPerLink: number;
}

export interface RedisStorage {
  /** The run's link keys, how many carry a TTL, and the mean length of their names and values. */
  readonly keys: number;
  readonly keysWithTtl: number;
  readonly keyBytes: number;
  readonly valueBytes: number;
  /** Mean `MEMORY USAGE key SAMPLES 0` on the suite's Redis: key, value, main dict entry; not the TTL's entry. */
  readonly memoryUsagePerKey: number;
  /**
   * The same values under the default key prefix on a private redis-server, as growth of its
   * used_memory per key (dict buckets included): without a TTL, what a TTL adds, and a negative
   * entry (an empty value, with its TTL). null when no private server could be started.
   */
  readonly private: {
    readonly keyPrefix: string;
    readonly bytesPerKey: number;
    readonly ttlBytesPerKey: number;
    readonly negativeBytesPerKey: number;
  } | null;
}

/** INFO: a figure shown beside the targets, judged against no goal. */
export type Verdict = 'PASS' | 'MISS' | 'N/A' | 'INFO';

export interface TargetResult {
  /** e.g. 'hot ≥ 0.90 × baseline' */
  readonly name: string;
  /** The measured value, e.g. '0.93×' or '1.4 ms' */
  readonly value: string;
  readonly verdict: Verdict;
  /** Why N/A, or what holds a MISS back. */
  readonly detail?: string;
}

export interface SuiteResult {
  readonly startedAt: string;
  readonly durationSeconds: number;
  readonly machine: {
    readonly cpu: string;
    readonly cores: number;
    readonly memoryGiB: number;
    readonly os: string;
    readonly node: string;
  };
  readonly settings: {
    /** 'embedded PGlite' or the Postgres server (no credentials). */
    readonly database: string;
    readonly redis: string;
    /** Set when the suite ran against an existing deployment (--url). */
    readonly url: string | null;
    readonly links: number;
    readonly zipfS: number;
    readonly secondsPerRun: number;
    readonly connections: number;
    /** Which load generator drove which runs, e.g. 'wrk debian/4.1.0-3+b2 for the redirect runs, autocannon for the others'. */
    readonly generator: string;
    /** Where the generator and the servers ran, e.g. 'generator on CPU 0, servers on CPU 1'. */
    readonly cpus: string;
    readonly command: string;
  };
  readonly runs: readonly RunResult[];
  readonly targets: readonly TargetResult[];
}
