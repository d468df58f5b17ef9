// Configuration: environment variables -> a frozen, typed object, validated once at start-up.
// Each variable is declared once below; the README's configuration table mirrors this list.

import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { CODE_LENGTH_MAX, CODE_LENGTH_MIN } from './core/codes.ts';
import { normaliseDomain } from './core/target-policy.ts';
import { trustProxyRule } from './core/trust-proxy.ts';

export const DEV_CODE_SECRET = 'dev-only-secret-change-me-in-production';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Processes serving on the port; 1: this process alone, more: a node:cluster primary forks them. */
  readonly workers: number;
  /** undefined: run the embedded Postgres engine (PGlite) */
  readonly databaseUrl: string | undefined;
  readonly embeddedDataDir: string;
  /** Streaming standbys of DATABASE_URL that take the resolver's reads; empty: the primary takes them all. */
  readonly databaseReplicaUrls: readonly string[];
  /** A replica further behind than this takes no reads. */
  readonly databaseReplicaMaxLagMs: number;
  /** Most time a read or probe waits for a replica before the primary answers instead. */
  readonly databaseReplicaTimeoutMs: number;
  /** undefined (and no cluster nodes): the Redis tier is off */
  readonly redisUrl: string | undefined;
  /** Redis Cluster nodes to start from; empty: not a cluster */
  readonly redisClusterUrls: readonly string[];
  readonly redisKeyPrefix: string;
  readonly redisCommandTimeoutMs: number;
  readonly redisConnectTimeoutMs: number;
  readonly redisTtlMs: number;
  readonly redisBatchMax: number;
  readonly redisAutoPipelining: boolean;
  /** origin of the short links, without a trailing slash */
  readonly baseUrl: string;
  readonly logLevel: LogLevel;
  readonly cacheMaxEntries: number;
  readonly cacheMaxBytes: number;
  readonly cacheTtlMs: number;
  readonly negativeMaxEntries: number;
  readonly negativeTtlMs: number;
  readonly redirectCacheControl: string;
  /** Links may point at loopback, private and other non-public addresses and names. */
  readonly allowPrivateTargets: boolean;
  /** Links may point at other URL shorteners. */
  readonly allowShortenerTargets: boolean;
  /** Domains no link may point at (with their subdomains), normalised. */
  readonly blockedDomains: ReadonlySet<string>;
  /** 404s a client may get per minute before its misses are answered 429; 0: no limit. */
  readonly notFoundLimitPerMinute: number;
  readonly notFoundLimitClients: number;
  /** Limits on creates (off for load tests and trusted setups). */
  readonly rateLimitEnabled: boolean;
  /** Links a client address may create per window without an API key; 0: no limit. */
  readonly rateLimitCreatesPerIp: number;
  /** Links one API key may create per window; 0: no limit. */
  readonly rateLimitCreatesPerKey: number;
  readonly rateLimitWindowMs: number;
  /** "false", "true", or the addresses and ranges of trusted proxies (X-Forwarded-For). */
  readonly trustProxy: string;
  /** Creating links needs an API key (false: anyone may create; their links have no owner). */
  readonly createRequiresApiKey: boolean;
  readonly codeLength: number;
  readonly codeSecret: string;
  readonly readBatchMax: number;
  readonly writeBatchMax: number;
  readonly writeQueueMax: number;
  readonly writeTimeoutMs: number;
  readonly dbPoolMax: number;
  readonly dbConnectTimeoutMs: number;
  readonly dbStatementTimeoutMs: number;
  readonly breakerTimeoutMs: number;
  readonly breakerResetMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** most time to receive a request's headers, counted from its first byte (or from the connection) */
  readonly headersTimeoutMs: number;
  readonly slowRequestMs: number;
  readonly shutdownGraceMs: number;
  readonly readinessDrainMs: number;
  /** GET /metrics and the counting behind it. */
  readonly metricsEnabled: boolean;
  /** How often click counts are written to Postgres. */
  readonly clickFlushIntervalMs: number;
  /** Most distinct links counted between flushes, and most (link, day) counts waiting for Postgres. */
  readonly clickMaxCodes: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

class Expects {
  readonly what: string;
  constructor(what: string) {
    this.what = what;
  }
}

/** Reads and checks every variable; throws one ConfigError listing every bad one. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  // A parser returns the value, or an Expects naming what the variable must hold.
  const read = <T>(name: string, fallback: T, parse: (raw: string) => T | Expects): T => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = parse(raw.trim());
    if (value instanceof Expects) {
      problems.push(`${name}=${JSON.stringify(raw)}: expected ${value.what}`);
      return fallback;
    }
    return value;
  };

  const port = read('PORT', 3000, int(0, 65535));
  const workers = read('WORKERS', 1, (raw) => {
    if (raw === 'auto') return availableParallelism();
    const n = int(1, 256)(raw);
    return n instanceof Expects ? new Expects('an integer from 1 to 256, or auto (one per CPU)') : n;
  });
  const databaseUrl = read<string | undefined>(
    'DATABASE_URL',
    undefined,
    text((v) => hasProtocol(v, ['postgres:', 'postgresql:']), 'a postgres:// URL'),
  );
  const databaseReplicaUrls = read<string[]>('DATABASE_REPLICA_URLS', [], (raw) => {
    const urls = raw.split(',').map((url) => url.trim());
    return urls.length <= 16 && urls.every((url) => hasProtocol(url, ['postgres:', 'postgresql:']))
      ? urls
      : new Expects('a comma-separated list of up to 16 postgres:// URLs');
  });
  if (databaseReplicaUrls.length > 0 && databaseUrl === undefined) {
    problems.push('DATABASE_REPLICA_URLS is set without DATABASE_URL: expected the primary as well (the embedded engine has no replicas)');
  }
  const redisUrl = read<string | undefined>(
    'REDIS_URL',
    undefined,
    text((v) => hasProtocol(v, ['redis:', 'rediss:']), 'a redis:// or rediss:// URL'),
  );
  const redisClusterUrls = read<string[]>('REDIS_CLUSTER_URLS', [], (raw) => {
    const urls = raw.split(',').map((url) => url.trim());
    return urls.every((url) => hasProtocol(url, ['redis:', 'rediss:']))
      ? urls
      : new Expects('a comma-separated list of redis:// or rediss:// URLs');
  });
  if (redisUrl !== undefined && redisClusterUrls.length > 0) {
    problems.push('REDIS_URL and REDIS_CLUSTER_URLS are both set: expected one of them (a single server, or a cluster)');
  }
  const baseUrl = read(
    'BASE_URL',
    `http://localhost:${port}`,
    text(isOrigin, 'an http(s) origin such as https://sho.rt (no path, query or credentials)'),
  ).replace(/\/+$/, '');
  const logLevel = read<LogLevel>('LOG_LEVEL', 'info', (raw) =>
    (LOG_LEVELS as readonly string[]).includes(raw) ? (raw as LogLevel) : new Expects(`one of ${LOG_LEVELS.join(', ')}`),
  );
  const codeSecret = read(
    'CODE_SECRET',
    DEV_CODE_SECRET,
    text((v) => v.length >= 16, 'at least 16 characters'),
  );
  const redirectCacheControl = read(
    'REDIRECT_CACHE_CONTROL',
    'private, max-age=90',
    text((v) => /^[\x20-\x7e]+$/.test(v), 'printable ASCII'),
  );

  const blockedDomains = new Set<string>();
  const addDomains = (name: string, entries: string[]) => {
    for (const entry of entries) {
      if (entry.trim() === '' || entry.trim().startsWith('#')) continue;
      const domain = normaliseDomain(entry);
      if (domain === undefined) problems.push(`${name}: ${JSON.stringify(entry.trim())} is not a domain name`);
      else blockedDomains.add(domain);
    }
  };
  addDomains('BLOCKED_DOMAINS', (env.BLOCKED_DOMAINS ?? '').split(','));
  const blockedFile = env.BLOCKED_DOMAINS_FILE?.trim();
  if (blockedFile !== undefined && blockedFile !== '') {
    try {
      addDomains(`BLOCKED_DOMAINS_FILE (${blockedFile})`, readFileSync(blockedFile, 'utf8').split(/\r?\n/));
    } catch (err) {
      problems.push(`BLOCKED_DOMAINS_FILE=${JSON.stringify(blockedFile)}: cannot be read (${(err as Error).message})`);
    }
  }
  const trustProxy = read('TRUST_PROXY', 'false', (raw) => {
    try {
      trustProxyRule(raw);
      return raw;
    } catch {
      return new Expects('false, true, or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal, uniquelocal');
    }
  });

  // Read first: the headers timeout's default depends on it.
  const requestTimeoutMs = read('REQUEST_TIMEOUT_MS', 10_000, int(100, 600_000));

  const seconds = 1000;
  const config: Config = {
    port,
    workers,
    host: read(
      'HOST',
      '127.0.0.1',
      text((v) => /^[\w.:-]+$/.test(v), 'a host name or IP address'),
    ),
    databaseUrl,
    embeddedDataDir: read(
      'EMBEDDED_DATA_DIR',
      './data/pglite',
      text(() => true, 'a folder path'),
    ),
    databaseReplicaUrls,
    databaseReplicaMaxLagMs: read('DATABASE_REPLICA_MAX_LAG_MS', 1000, int(100, 600_000)),
    databaseReplicaTimeoutMs: read('DATABASE_REPLICA_TIMEOUT_MS', 1000, int(10, 60_000)),
    redisUrl,
    redisClusterUrls,
    // Braces would make a hash tag of the prefix and put every key of a cluster in one slot.
    redisKeyPrefix: read(
      'REDIS_KEY_PREFIX',
      'shortener:',
      text((v) => /^[\x21-\x7a|~]{1,64}$/.test(v), 'up to 64 printable ASCII characters, no spaces or braces'),
    ),
    redisCommandTimeoutMs: read('REDIS_COMMAND_TIMEOUT_MS', 100, int(5, 10_000)),
    redisConnectTimeoutMs: read('REDIS_CONNECT_TIMEOUT_MS', 1000, int(100, 60_000)),
    redisTtlMs: read('REDIS_TTL_SECONDS', 3600, int(1, 30 * 24 * 3600)) * seconds,
    redisBatchMax: read('REDIS_BATCH_MAX', 500, int(1, 10_000)),
    redisAutoPipelining: read('REDIS_AUTO_PIPELINING', false, bool),
    baseUrl,
    logLevel,
    // lru-cache allocates its index arrays for `max` entries up front (~44 bytes each).
    cacheMaxEntries: read('CACHE_MAX_ENTRIES', 1_000_000, int(1, 20_000_000)),
    cacheMaxBytes: read('CACHE_MAX_BYTES', 512 * 1024 * 1024, int(1024, 64 * 1024 ** 3)),
    cacheTtlMs: read('CACHE_TTL_SECONDS', 600, int(1, 7 * 24 * 3600)) * seconds,
    negativeMaxEntries: read('NEGATIVE_MAX_ENTRIES', 100_000, int(1, 20_000_000)),
    negativeTtlMs: read('NEGATIVE_TTL_SECONDS', 10, int(1, 3600)) * seconds,
    redirectCacheControl,
    allowPrivateTargets: read('ALLOW_PRIVATE_TARGETS', false, bool),
    allowShortenerTargets: read('ALLOW_SHORTENER_TARGETS', false, bool),
    blockedDomains,
    notFoundLimitPerMinute: read('NOT_FOUND_LIMIT_PER_MINUTE', 120, int(0, 1_000_000)),
    notFoundLimitClients: read('NOT_FOUND_LIMIT_CLIENTS', 100_000, int(1, 10_000_000)),
    rateLimitEnabled: read('RATE_LIMIT_ENABLED', true, bool),
    rateLimitCreatesPerIp: read('RATE_LIMIT_CREATES_PER_IP', 60, int(0, 1_000_000)),
    rateLimitCreatesPerKey: read('RATE_LIMIT_CREATES_PER_KEY', 600, int(0, 10_000_000)),
    rateLimitWindowMs: read('RATE_LIMIT_WINDOW_SECONDS', 60, int(1, 24 * 3600)) * seconds,
    trustProxy,
    createRequiresApiKey: read('CREATE_REQUIRES_API_KEY', false, bool),
    codeLength: read('CODE_LENGTH', 7, int(CODE_LENGTH_MIN, CODE_LENGTH_MAX)),
    codeSecret,
    readBatchMax: read('READ_BATCH_MAX', 500, int(1, 10_000)),
    writeBatchMax: read('WRITE_BATCH_MAX', 500, int(1, 5_000)),
    writeQueueMax: read('WRITE_QUEUE_MAX', 10_000, int(1, 1_000_000)),
    writeTimeoutMs: read('WRITE_TIMEOUT_MS', 5000, int(100, 120_000)),
    dbPoolMax: read('DB_POOL_MAX', 10, int(1, 1000)),
    dbConnectTimeoutMs: read('DB_CONNECT_TIMEOUT_MS', 2000, int(100, 60_000)),
    dbStatementTimeoutMs: read('DB_STATEMENT_TIMEOUT_MS', 2000, int(10, 600_000)),
    breakerTimeoutMs: read('BREAKER_TIMEOUT_MS', 3000, int(10, 600_000)),
    breakerResetMs: read('BREAKER_RESET_MS', 5000, int(100, 600_000)),
    requestTimeoutMs,
    keepAliveTimeoutMs: read('KEEP_ALIVE_TIMEOUT_MS', 72_000, int(1000, 600_000)),
    // Never past the request timeout by default, as Node does (min(60 s, requestTimeout)).
    headersTimeoutMs: read('HEADERS_TIMEOUT_MS', Math.min(5000, requestTimeoutMs), int(100, 600_000)),
    slowRequestMs: read('SLOW_REQUEST_MS', 1000, int(1, 600_000)),
    shutdownGraceMs: read('SHUTDOWN_GRACE_MS', 10_000, int(100, 600_000)),
    readinessDrainMs: read('READINESS_DRAIN_MS', 0, int(0, 600_000)),
    metricsEnabled: read('METRICS_ENABLED', true, bool),
    clickFlushIntervalMs: read('CLICK_FLUSH_INTERVAL_MS', 5000, int(100, 3_600_000)),
    clickMaxCodes: read('CLICK_MAX_CODES', 20_000, int(1, 1_000_000)),
  };

  if (config.breakerTimeoutMs <= config.dbStatementTimeoutMs) {
    problems.push(
      `BREAKER_TIMEOUT_MS=${config.breakerTimeoutMs}: expected more than DB_STATEMENT_TIMEOUT_MS ` +
        `(${config.dbStatementTimeoutMs}) so that the server cancels a slow query before the breaker gives up on it`,
    );
  }
  if (config.headersTimeoutMs > config.requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS=${config.headersTimeoutMs}: expected at most REQUEST_TIMEOUT_MS (${config.requestTimeoutMs}): ` +
        'the headers are part of the request, and Node refuses a longer headers timeout',
    );
  }
  if (workers > 1 && databaseUrl === undefined) {
    problems.push(
      `WORKERS=${JSON.stringify(env.WORKERS)} (${workers} processes): expected DATABASE_URL as well: ` +
        'the embedded Postgres engine (PGlite) is a single session and cannot serve several processes',
    );
  }
  if (config.readinessDrainMs >= config.shutdownGraceMs) {
    problems.push(`READINESS_DRAIN_MS=${config.readinessDrainMs}: expected less than SHUTDOWN_GRACE_MS (${config.shutdownGraceMs})`);
  }
  if (problems.length > 0) {
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(config);
}

function int(min: number, max: number) {
  return (raw: string): number | Expects => {
    const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
    return Number.isSafeInteger(n) && n >= min && n <= max ? n : new Expects(`an integer from ${min} to ${max}`);
  };
}

function bool(raw: string): boolean | Expects {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  return new Expects('true or false');
}

function text(check: (raw: string) => boolean, what: string) {
  return (raw: string): string | Expects => (check(raw) ? raw : new Expects(what));
}

function parseUrl(raw: string): URL | undefined {
  return URL.canParse(raw) ? new URL(raw) : undefined;
}

function hasProtocol(raw: string, protocols: readonly string[]): boolean {
  const url = parseUrl(raw);
  return url !== undefined && protocols.includes(url.protocol);
}

function isOrigin(raw: string): boolean {
  const url = parseUrl(raw);
  return (
    url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    (url.pathname === '/' || url.pathname === '') &&
    url.search === '' &&
    url.hash === ''
  );
}
