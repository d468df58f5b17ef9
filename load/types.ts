// The shape of one run of the load suite: what `load/results/<timestamp>.json` holds and what
// the report is drawn from.

import type { Machine } from './machine.ts';

export interface Latency {
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  /** Runs whose every latency was kept (autocannon's); wrk prints no p95. */
  readonly p95?: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** One measurement: one server variant under one traffic shape for a bounded time. */
export interface RunResult {
  /** The name of the scenario it belongs to (load/scenarios/index.ts lists them). */
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
  /** Only for the startup scenario. */
  readonly startup?: StartupFigures;
  /** Only for the starts scenario. */
  readonly starts?: StartsFigures;
  /** Only for the list scenario's run over all its shapes (label 'list'). */
  readonly list?: ListFigures;
  /** Only for the list scenario's shapes: the request paths cycled through, and the plan of each. */
  readonly listShape?: { readonly paths: readonly string[]; readonly plans: readonly ListPlan[] };
  /** Set when the run did not happen; says why (e.g. "the Redis tier does not exist yet"). */
  readonly skipped?: string;
}

/** What a link costs where the service keeps it besides its LRU, written by the service itself. */
/** Milliseconds from a service process's spawn until its /readyz answered 200. */
export interface StartupFigures {
  /** What scripts/prepare.ts, run by `npm ci`, took before each first start. */
  readonly prepareMs: readonly number[];
  /** First starts, each on fresh data with what its own prepare made. */
  readonly firstMs: readonly number[];
  /** Each start after it, on the data and the cache it left. */
  readonly restartsMs: readonly number[];
}

/** The hot path of one server in each of its fresh starts. */
export interface StartsFigures {
  /** Requests per second of server CPU, a figure per start, in the order of the starts. */
  readonly perCpuSecond: readonly number[];
}

export interface StorageFigures {
  readonly postgres: PostgresStorage;
  /** null without a Redis (REDIS_URL unset). */
  readonly redis: RedisStorage | null;
  /** What click analytics adds, after one click per link and after a busy day's clicks on the same links. */
  readonly analytics: readonly AnalyticsStorage[];
}

/** A table partitioned by month, over all its partitions: rows, bytes (pg_total_relation_size of each), and those of its indexes. */
export interface PartitionedSize {
  readonly rows: number;
  readonly bytes: number;
  readonly indexBytes: number;
}

/** What a click table grew by, in all and per clicked link. */
export interface GrownTable extends PartitionedSize {
  readonly rowsPerLink: number;
  readonly bytesPerLink: number;
  readonly indexBytesPerLink: number;
}

/**
 * What the click tables grew by when `links` links were each clicked `clicksPerLink` times on one
 * UTC day, by visitors as browsers send them (load/visitors.ts), after VACUUM ANALYZE: per clicked
 * link and day.
 */
export interface AnalyticsStorage {
  readonly links: number;
  readonly clicksPerLink: number;
  /** The clicks the links' own rows of click_rollups count when the tables were sized: `links` × `clicksPerLink` unless some were not written. */
  readonly clicks: number;
  /** Per link, day, dimension and value (a row per dimension at least, and the link's own). */
  readonly clickRollups: GrownTable;
  /** Per workspace, day, dimension and value: shared by every link of the workspace. */
  readonly workspaceRollups: GrownTable;
  /** The daily counts, which were there before analytics: one row per link and day. */
  readonly clicksDaily: GrownTable;
  /** click_rollups and workspace_rollups per clicked link and day: what analytics adds. */
  readonly analyticsBytesPerLink: number;
  /** The same with link_clicks_daily. */
  readonly allBytesPerLink: number;
}

/**
 * Sizes after VACUUM ANALYZE, in bytes; those of `links` and `link_totals` before any click. The
 * `links` fields are the table `links` alone; since migrations/0005 each link also has a row in
 * `link_totals` (its click totals), counted apart in `totals`.
 */
export interface PostgresStorage {
  /** Rows of `links`, and the mean length of their URLs. */
  readonly links: number;
  readonly urlBytes: number;
  /** pg_total_relation_size('links'): heap, TOAST, free-space and visibility maps, every index. */
  readonly totalBytes: number;
  /** pg_relation_size('links'): the heap alone. */
  readonly heapBytes: number;
  /** pg_indexes_size('links'): the primary key on `code` and the link list's indexes (migrations/0006). */
  readonly indexBytes: number;
  readonly bytesPerLink: number;
  readonly heapBytesPerLink: number;
  readonly indexBytesPerLink: number;
  /** Each index of `links`, by name: bytes per link. */
  readonly indexBytesPerLinkByName: Readonly<Record<string, number>>;
  /** `link_totals` (a row per link, written by a trigger with the link) before any click; per link of `links`. */
  readonly totals: TableSize;
  /** `links` and `link_totals` together, per link: what a link costs in Postgres before its first click. */
  readonly allBytesPerLink: number;
  /** link_clicks_daily after one click on some links: one row per link and UTC day clicked; its total size (table and key) per row. */
  readonly clickRows: number;
  readonly clickBytesPerRow: number | null;
  /**
   * The heap of `links` per link after those clicks. Before migrations/0005 the counts were
   * UPDATEs of `links`, whose old row versions VACUUM frees but does not give back; now they go to
   * `link_totals` (`clickedTotals`), and this stays at `heapBytesPerLink`.
   */
  readonly clickedHeapBytesPerLink: number;
  /**
   * `link_totals` per link after those clicks: each count is an UPDATE of a narrow row that changes
   * an indexed column (link_totals_by_clicks), so it writes a new row version and new index entries.
   */
  readonly clickedTotals: TableSize;
}

/** A table's size after VACUUM ANALYZE, in bytes, per link of `links`. */
export interface TableSize {
  readonly rows: number;
  /** pg_total_relation_size. */
  readonly totalBytes: number;
  readonly bytesPerLink: number;
  /** pg_relation_size: the heap alone. */
  readonly heapBytesPerLink: number;
  /** pg_indexes_size. */
  readonly indexBytesPerLink: number;
}

/** The list scenario's figures besides latency: the data it measured on, how it was made, the export. */
export interface ListFigures {
  /** Links in the workspace listed (--list-links). */
  readonly links: number;
  /** Requests measured per shape, over how many connections. */
  readonly requestsPerShape: number;
  readonly connections: number;
  /** The shape with the highest p99 and that p99 (ms). */
  readonly worst: { readonly label: string; readonly p99: number };
  readonly seeding: ListSeeding;
  /** GET /links/export.csv over the whole workspace, once; null if it failed (see `exportProblem`). */
  readonly export: ListExport | null;
  readonly exportProblem?: string;
}

export interface ListSeeding {
  /** The INSERT … SELECT of the links (without the list's indexes; the primary key and the triggers on). */
  readonly linksSeconds: number;
  readonly linksPerSecond: number;
  /** The migration's copy of the click totals into link_totals (one row per link). */
  readonly totalsSeconds: number;
  /** Each CREATE INDEX of the link list (migrations/0006), built after the load, in the migration's order. */
  readonly indexes: readonly IndexBuild[];
  readonly indexSeconds: number;
  readonly vacuumSeconds: number;
  /** pg_total_relation_size of links and of link_totals once built. */
  readonly linksBytes: number;
  readonly totalsBytes: number;
  /** The server's version and the settings that index builds and queries depend on. */
  readonly postgres: Readonly<Record<string, string>>;
}

export interface IndexBuild {
  readonly name: string;
  readonly table: string;
  readonly seconds: number;
  readonly bytes: number;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statement the service runs for a request, on a warm cache. */
export interface ListPlan {
  readonly path: string;
  /** The indexes it read, and 'Seq Scan on <table>' for each table it read whole. */
  readonly indexes: readonly string[];
  readonly executionMs: number;
  /** Rows its filter selects (from its cursor on): the statement counted instead of ordered and cut; null for GET /tags. */
  readonly matches: number | null;
  readonly text: string;
}

export interface ListExport {
  /** Until the response's head, and until the first byte of its body. */
  readonly headMs: number;
  readonly firstByteMs: number;
  readonly seconds: number;
  readonly rows: number;
  readonly bytes: number;
  readonly rowsPerSecond: number;
  /** CPU seconds of the service over the export, per 1000 rows. */
  readonly serverCpuMsPer1000Rows: number | null;
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
  readonly machine: Machine;
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
