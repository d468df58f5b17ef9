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
  /** The scenario it belongs to: ceiling, baseline, hot, redis, postgres, not-found, create, mixed, latency, memory. */
  readonly scenario: string;
  /** Which server answered: 'service', 'baseline (node:http + Map)', 'one SELECT per request', ... */
  readonly variant: string;
  /** Short unique label for tables and charts, e.g. 'create 400 · one INSERT per request'. */
  readonly label: string;
  readonly connections: number;
  /** Fixed offered rate (req/s) for the latency scenario; null when autocannon sent as fast as it could. */
  readonly offeredRate: number | null;
  readonly seconds: number;
  readonly requests: number;
  /** Mean requests per second over the run. */
  readonly rps: number;
  /** Milliseconds. */
  readonly latency: Latency;
  /** HTTP status -> responses. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Connection errors and timeouts seen by the load generator. */
  readonly errors: number;
  /** Share of one core used during the run (1 = one full core), by the load generator and by the server process. */
  readonly cpu: { readonly client: number; readonly server: number | null };
  /** Only for the memory scenario. */
  readonly memory?: { readonly links: number; readonly rssMb: number; readonly heapUsedMb: number; readonly bytesPerLink: number };
  /** Set when the run did not happen; says why (e.g. "the Redis tier does not exist yet"). */
  readonly skipped?: string;
}

export type Verdict = 'PASS' | 'MISS' | 'N/A';

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
    readonly command: string;
  };
  readonly runs: readonly RunResult[];
  readonly targets: readonly TargetResult[];
}
