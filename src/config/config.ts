// Configuration: environment variables -> a frozen, typed object, validated once at start-up.
// SETTINGS declares each variable once; its check, Config's type, the error messages and the README's
// table (npm run config:table) all come from there. Helpers live in src/config/schema.ts.

import { Type } from 'typebox';
import {
  commaList,
  countOrAuto,
  decodeSettings,
  domainFile,
  domainList,
  hoursAsMs,
  isAbsoluteRedirect,
  isHostName,
  isRedirectTarget,
  isTrustProxy,
  natMap,
  optional,
  origin,
  secondsAsMs,
  urlOf,
} from './schema.ts';
import type { Decoded, Env, Settings } from './schema.ts';
import { isReadableFile } from './schema.ts';
import { CODE_LENGTH_MAX, CODE_LENGTH_MIN } from '../core/codes.ts';
import { ANALYTICS_PARTS, isAnalyticsPart, type AnalyticsPart } from '../core/dimensions.ts';
import { requestHostName } from '../core/domains.ts';
import { parseSchedule } from '../core/webhooks.ts';

export const DEV_CODE_SECRET = 'dev-only-secret-change-me-in-production';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
const CLICK_STREAMS = ['off', 'redis'] as const;

const isPostgresUrl = urlOf(['postgres:', 'postgresql:']);
const isRedisUrl = urlOf(['redis:', 'rediss:']);

/** Every variable, in the README's order; a fallback reads only settings declared above it. */
export const SETTINGS = {
  port: {
    env: 'PORT',
    schema: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
    doc: 'HTTP port (`0`: any free port)',
  },
  host: {
    env: 'HOST',
    schema: Type.String({ pattern: '^[\\w.:-]+$', default: '127.0.0.1' }),
    expected: 'a host name or IP address',
    doc: 'interface to listen on; `0.0.0.0` in a container',
  },
  workers: {
    env: 'WORKERS',
    schema: countOrAuto({ minimum: 1, maximum: 256, default: 1 }),
    expected: 'an integer from 1 to 256, or auto (one per CPU)',
    doc:
      'serving processes on this machine (`node:cluster`, one shared port), from `1` to `256`, or `auto` (one per CPU); ' +
      'above 1 `DATABASE_URL` is required (the embedded engine is a single session). See [Cluster mode](#architecture)',
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    schema: optional(Type.Refine(Type.String(), isPostgresUrl)),
    expected: 'a postgres:// URL',
    doc: '`postgres://…`; unset runs the embedded engine',
  },
  embeddedDataDir: {
    env: 'EMBEDDED_DATA_DIR',
    schema: Type.String({ default: './data/pglite' }),
    expected: 'a folder path',
    doc: 'data folder of the embedded engine',
  },
  databaseReplicaUrls: {
    env: 'DATABASE_REPLICA_URLS',
    schema: commaList(isPostgresUrl, 16),
    expected: 'a comma-separated list of up to 16 postgres:// URLs',
    doc:
      'comma-separated `postgres://…` of up to 16 streaming standbys of `DATABASE_URL`, each URL one server (not a balancer), ' +
      "that take the redirects' reads; a miss there is read again on the primary. Needs `DATABASE_URL`. " +
      'See [Read replicas](#architecture)',
  },
  databaseReplicaMaxLagMs: {
    env: 'DATABASE_REPLICA_MAX_LAG_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 1000 }),
    doc:
      'a replica that has not replayed what the primary had this long ago takes no reads until it catches up (100 to 600000); ' +
      'probes run every quarter of it, between 25 ms and 1 s',
  },
  databaseReplicaTimeoutMs: {
    env: 'DATABASE_REPLICA_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 10, maximum: 60_000, default: 1000 }),
    doc:
      'the most a read or probe waits for a replica (connect and statement); ' +
      'then the primary answers and the replica takes no reads until a probe finds it well',
  },
  redisUrl: {
    env: 'REDIS_URL',
    schema: optional(Type.Refine(Type.String(), isRedisUrl)),
    expected: 'a redis:// or rediss:// URL',
    doc: '`redis://…` or `rediss://…` of one Redis server; unset (and no cluster): the Redis tier is off',
  },
  redisClusterUrls: {
    env: 'REDIS_CLUSTER_URLS',
    schema: commaList(isRedisUrl),
    expected: 'a comma-separated list of redis:// or rediss:// URLs',
    doc:
      'Redis Cluster instead: comma-separated `redis://host:port` of some of its nodes (the others are discovered); ' +
      'credentials and `rediss:` are taken from the first',
  },
  redisClusterNatMap: {
    env: 'REDIS_CLUSTER_NAT_MAP',
    schema: natMap(),
    expected: 'comma-separated announced=reachable pairs of host:port (10.0.0.5:6379=203.0.113.7:7001)',
    doc:
      'where to reach cluster nodes that announce an address this instance cannot reach (a cluster in Docker or ' +
      'Kubernetes seen from outside, a proxy in front of each node): comma-separated `announced=reachable` pairs of ' +
      '`host:port`; nodes not listed are reached where they say',
  },
  // Braces would make a hash tag of the prefix and put every key of a cluster in one slot.
  redisKeyPrefix: {
    env: 'REDIS_KEY_PREFIX',
    schema: Type.String({ pattern: '^[\\x21-\\x7a|~]{1,64}$', default: 'shortener:' }),
    expected: 'up to 64 printable ASCII characters, no spaces or braces',
    doc:
      'prefix of every key and of the invalidation channel; up to 64 printable characters, ' +
      'no spaces or braces (a `{…}` would put every key of a cluster in one slot)',
  },
  redisCommandTimeoutMs: {
    env: 'REDIS_COMMAND_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 5, maximum: 10_000, default: 100 }),
    doc: 'a Redis command not answered by then is a miss, and Postgres is asked; the most a hanging Redis adds to a miss',
  },
  redisConnectTimeoutMs: {
    env: 'REDIS_CONNECT_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 1000 }),
    doc: 'wait for a connection; reconnects go on in the background (50 ms doubling to 2 s, jittered)',
  },
  redisTtlMs: {
    env: 'REDIS_TTL_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 30 * 24 * 3600, default: 3600 })),
    doc: 'how long a link stays in Redis (unknown codes stay `NEGATIVE_TTL_SECONDS`)',
  },
  redisBatchMax: {
    env: 'REDIS_BATCH_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
    doc: 'most codes in one Redis round trip (`1`: one `GET` per request, for comparison)',
  },
  redisAutoPipelining: {
    env: 'REDIS_AUTO_PIPELINING',
    schema: Type.Boolean({ default: false }),
    doc:
      'ioredis `enableAutoPipelining` on a single server; ' +
      'only for comparing with the batch fetcher (a cluster always uses it, to send its per-node `GET`s together)',
  },
  baseUrl: {
    env: 'BASE_URL',
    schema: origin(),
    fallback: ({ port }: { readonly port: number }) => `http://localhost:${port}`,
    expected: 'an http(s) origin such as https://sho.rt (no path, query or credentials)',
    shownDefault: '`http://localhost:$PORT`',
    doc: 'origin of the short links (`https://sho.rt`); targets on its host are refused',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: Type.Enum(LOG_LEVELS, { default: 'info' }),
    doc: LOG_LEVELS.map((level) => `\`${level}\``).join(', '),
  },
  logFormat: {
    env: 'LOG_FORMAT',
    schema: Type.Enum(LOG_FORMATS, { default: 'auto' }),
    doc:
      '`json`: one JSON object a line, for a log shipper; `pretty`: coloured lines for people ' +
      '(pino-pretty); `auto`: pretty when standard output is a terminal, JSON otherwise',
  },
  // lru-cache allocates its index arrays for `max` entries up front (~44 bytes each).
  cacheMaxEntries: {
    env: 'CACHE_MAX_ENTRIES',
    schema: Type.Integer({ minimum: 1, maximum: 20_000_000, default: 1_000_000 }),
    doc: 'LRU size in links (at most 20 million; the LRU reserves ~44 bytes of index per entry up front)',
  },
  cacheMaxBytes: {
    env: 'CACHE_MAX_BYTES',
    schema: Type.Integer({ minimum: 1024, maximum: 64 * 1024 ** 3, default: 512 * 1024 * 1024 }),
    doc: 'LRU size in approximate bytes',
  },
  cacheTtlMs: {
    env: 'CACHE_TTL_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 7 * 24 * 3600, default: 600 })),
    doc: 'how long a link stays in the LRU',
  },
  negativeMaxEntries: {
    env: 'NEGATIVE_MAX_ENTRIES',
    schema: Type.Integer({ minimum: 1, maximum: 20_000_000, default: 100_000 }),
    doc: 'unknown codes remembered, in an LRU of their own so that scanners cannot push links out',
  },
  negativeTtlMs: {
    env: 'NEGATIVE_TTL_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 3600, default: 10 })),
    doc: 'how long an unknown code is remembered as unknown',
  },
  redirectCacheControl: {
    env: 'REDIRECT_CACHE_CONTROL',
    schema: Type.String({ pattern: '^[\\x20-\\x7e]+$', default: 'private, max-age=90' }),
    expected: 'printable ASCII',
    doc: '`cache-control` of every redirect',
  },
  redirectStatus: {
    env: 'REDIRECT_STATUS',
    schema: Type.Union([Type.Literal(302), Type.Literal(301), Type.Literal(307), Type.Literal(308)], { default: 302 }),
    expected: '301, 302, 307 or 308',
    doc:
      'the redirect status of links that do not choose one (`options.redirectStatus`); browsers keep a `301` or `308` and ' +
      'ask no more, so their later clicks are not counted and no rule sees them. Other than `302`, every link takes the ' +
      'ruled path (see [Link options](#link-options))',
  },
  forwardQuery: {
    env: 'FORWARD_QUERY',
    schema: Type.Boolean({ default: false }),
    doc:
      "`true`: a redirect merges the request's query into the target's for links that do not choose (`options.forwardQuery`); " +
      'every link then takes the ruled path (see [Link options](#link-options))',
  },
  allowPrivateTargets: {
    env: 'ALLOW_PRIVATE_TARGETS',
    schema: Type.Boolean({ default: false }),
    doc:
      '`true` lets links point at loopback, private, link-local, unique-local, carrier-grade NAT, ' +
      'multicast and reserved addresses (in any notation: `2130706433`, `0x7f.1`, `[::ffff:127.0.0.1]`) ' +
      'and at names that cannot be public (`localhost`, `*.local`, `*.internal`, `*.home.arpa`, single labels such as `router`); ' +
      'for an intranet shortener',
  },
  blockedDomains: {
    env: 'BLOCKED_DOMAINS',
    schema: domainList('BLOCKED_DOMAINS'),
    expected: 'a comma-separated list of domain names',
    doc:
      'comma-separated domains no link may point at, ' +
      'with all their subdomains (`evil.example, пример.рф`; IDN and `*.` prefixes accepted)',
  },
  blockedDomainsFile: {
    env: 'BLOCKED_DOMAINS_FILE',
    schema: domainFile('BLOCKED_DOMAINS_FILE'),
    expected: 'a file path',
    doc: 'a file of more such domains, one per line, `#` for comments; read at start-up',
  },
  allowShortenerTargets: {
    env: 'ALLOW_SHORTENER_TARGETS',
    schema: Type.Boolean({ default: false }),
    doc:
      '`true` lets links point at other URL shorteners (`bit.ly`, `tinyurl.com`, `t.co`, … in `src/core/shorteners.ts`), ' +
      'which are refused by default: a chain of redirects hides its real target from every check',
  },
  notFoundLimitPerMinute: {
    env: 'NOT_FOUND_LIMIT_PER_MINUTE',
    schema: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 120 }),
    doc:
      '`404`s a client (an IPv4 address, an IPv6 `/64`) may get per minute, refilled continuously; past it, ' +
      'codes not in the LRU answer `429 NOT_FOUND_RATE_LIMITED` before any lookup. Only `404`s count, ' +
      'so clicks on real links from one NAT cost nothing. Each instance counts on its own. Behind a load balancer set `TRUST_PROXY`, ' +
      'or every client shares one budget (a warning is logged once when requests carry `X-Forwarded-For` and no proxy is trusted). ' +
      '`0`: no limit',
  },
  notFoundLimitClients: {
    env: 'NOT_FOUND_LIMIT_CLIENTS',
    schema: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 100_000 }),
    doc: 'clients whose 404 budget is remembered (an LRU; measured 135 bytes of heap per IPv4 client, 213 per IPv6 /64)',
  },
  rateLimitEnabled: {
    env: 'RATE_LIMIT_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc:
      'limits on creates (see [Rate limits on creates](#rate-limits-on-creates)); `false` for load tests, ' +
      'or behind a gateway that limits already',
  },
  rateLimitCreatesPerIp: {
    env: 'RATE_LIMIT_CREATES_PER_IP',
    schema: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 60 }),
    doc:
      'links a client address (an IPv4 address, an IPv6 `/64`, per `TRUST_PROXY`) may create per window without an API key; `0`: ' +
      'no limit',
  },
  rateLimitCreatesPerKey: {
    env: 'RATE_LIMIT_CREATES_PER_KEY',
    schema: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 6000 }),
    doc:
      'links one API key may create per window, from any address (the default lets a key send a few full bulks: `POST /links/bulk` ' +
      'takes up to 1000); `0`: no limit (trusted internal callers)',
  },
  rateLimitWindowMs: {
    env: 'RATE_LIMIT_WINDOW_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 24 * 3600, default: 60 })),
    doc: 'length of the fixed window the two limits count in',
  },
  createRequiresApiKey: {
    env: 'CREATE_REQUIRES_API_KEY',
    schema: Type.Boolean({ default: false }),
    doc: '`true`: `POST /links` and `/links/bulk` need an API key (`401 API_KEY_REQUIRED` otherwise)',
  },
  dashboardEnabled: {
    env: 'DASHBOARD_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc: 'the web dashboard under `/app/` (see [Dashboard](#dashboard)); `false`: the API alone',
  },
  rootRedirect: {
    env: 'ROOT_REDIRECT',
    schema: Type.Refine(Type.String(), isRedirectTarget),
    fallback: ({ dashboardEnabled }: { readonly dashboardEnabled: boolean }) => (dashboardEnabled ? '/app/' : 'none'),
    expected: 'a path of this service (/app/), an http(s) URL, or none',
    shownDefault: '`/app/` (`none` without the dashboard)',
    doc:
      "where `GET /` redirects (`302`): the dashboard, or on a branded short domain the company's site " +
      '(`https://acme.example`); `none`: `404`',
  },
  defaultDomainHosts: {
    env: 'DEFAULT_DOMAIN_HOSTS',
    schema: Type.Decode(commaList(isHostName), (hosts) => hosts.map((host) => (host === '*' ? host : requestHostName(host)))),
    expected: 'a comma-separated list of host names, or *',
    doc:
      "other host names the default domain answers for besides `BASE_URL`'s and `localhost`, `127.0.0.1`, `[::1]` " +
      '(an old name, an internal one); `*`: every host that is no short domain (the behaviour of the release before domains). ' +
      'See [Short domains](#short-domains)',
  },
  unknownHostRedirect: {
    env: 'UNKNOWN_HOST_REDIRECT',
    schema: optional(Type.Refine(Type.String(), isAbsoluteRedirect)),
    expected: 'an http(s) URL',
    doc: 'where a request for a code on a host this deployment does not serve is redirected (`302`); unset: `404 HOST_NOT_SERVED`',
  },
  sessionTtlMs: {
    env: 'SESSION_TTL_HOURS',
    schema: hoursAsMs(Type.Integer({ minimum: 1, maximum: 720, default: 12 })),
    doc: 'how long a dashboard session lasts from signing in (1 to 720); then the API key is asked for again',
  },
  signInMaxFailures: {
    env: 'SIGN_IN_MAX_FAILURES',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 10 }),
    doc:
      'failed dashboard sign-ins a client address (per `TRUST_PROXY`; an IPv6 `/64`) may make per `SIGN_IN_WINDOW_SECONDS`; ' +
      'past it every sign-in from there is `429 SIGN_IN_RATE_LIMITED` until the window ends (counted in Redis when the tier is on)',
  },
  signInWindowMs: {
    env: 'SIGN_IN_WINDOW_SECONDS',
    schema: secondsAsMs(Type.Integer({ minimum: 1, maximum: 24 * 3600, default: 900 })),
    doc: 'length of the fixed window failed sign-ins are counted in',
  },
  trustProxy: {
    env: 'TRUST_PROXY',
    schema: Type.Refine(Type.String({ default: 'false' }), isTrustProxy),
    expected: 'false, true, or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal, uniquelocal',
    doc:
      "which proxies' `X-Forwarded-For` names the client: `true` (any: only behind a proxy that overwrites it), " +
      'or a comma-separated list of addresses, CIDR ranges and `loopback`, `linklocal`, `uniquelocal`. Without it, ' +
      "the client is the socket's peer",
  },
  codeLength: {
    env: 'CODE_LENGTH',
    schema: Type.Integer({ minimum: CODE_LENGTH_MIN, maximum: CODE_LENGTH_MAX, default: 7 }),
    doc:
      'length of generated codes, 5–8 (62^7 ≈ 3.5 × 10^12 codes). With 5 (62^5 ≈ 9 × 10^8) every unknown code is looked up: ' +
      'the space is too small to rule any out',
  },
  codeSecret: {
    env: 'CODE_SECRET',
    schema: Type.String({ minLength: 16, default: DEV_CODE_SECRET }),
    expected: 'at least 16 characters',
    shownDefault: 'a development default',
    doc:
      'key of the permutation that makes codes unguessable in order; at least 16 characters. ' +
      '**Set your own in production** (a warning is logged otherwise). Changing it later is safe: stored codes keep working, ' +
      'a new code that meets an old one takes the next id, ' +
      'and unknown codes are then always looked up in Postgres ' +
      '(the in-memory "impossible code" check needs the key that generated the database\'s codes)',
  },
  readBatchMax: {
    env: 'READ_BATCH_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
    doc: 'most codes in one Postgres lookup',
  },
  writeBatchMax: {
    env: 'WRITE_BATCH_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 5_000, default: 500 }),
    doc: 'most links in one group-commit `INSERT`',
  },
  writeQueueMax: {
    env: 'WRITE_QUEUE_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 10_000 }),
    doc: 'most links waiting to be written; beyond it `503 WRITE_QUEUE_FULL`',
  },
  writeTimeoutMs: {
    env: 'WRITE_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000 }),
    doc:
      'a link still queued after this is answered `503 DATABASE_TIMEOUT`; with the batch being written, ' +
      'a create waits at most about `WRITE_TIMEOUT_MS + BREAKER_TIMEOUT_MS`',
  },
  dbPoolMax: {
    env: 'DB_POOL_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    doc: 'Postgres connections',
  },
  dbListPoolMax: {
    env: 'DB_LIST_POOL_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
    doc:
      'Postgres connections of a pool of their own for the link list, its search, tags, CSV exports and stats, with a breaker of its own: ' +
      'a slow search waits for these, never for the `DB_POOL_MAX` of redirects and writes (the embedded engine shares its one)',
  },
  dbConnectTimeoutMs: {
    env: 'DB_CONNECT_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 2000 }),
    doc: 'wait for a connection',
  },
  dbStatementTimeoutMs: {
    env: 'DB_STATEMENT_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 10, maximum: 600_000, default: 2000 }),
    doc: 'Postgres cancels a statement after this (server side)',
  },
  breakerTimeoutMs: {
    env: 'BREAKER_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 10, maximum: 600_000, default: 3000 }),
    doc: 'the breaker gives up on a batch after this; must exceed the statement timeout',
  },
  breakerResetMs: {
    env: 'BREAKER_RESET_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 5000 }),
    doc: 'how long an open breaker fails fast before trying again',
  },
  requestTimeoutMs: {
    env: 'REQUEST_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    doc: 'most time to receive a whole request, headers and body, from its first byte; then `408` and the connection is closed',
  },
  // Never past the request timeout by default, as Node does (min(60 s, requestTimeout)).
  headersTimeoutMs: {
    env: 'HEADERS_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000 }),
    fallback: ({ requestTimeoutMs }: { readonly requestTimeoutMs: number }) => Math.min(5000, requestTimeoutMs),
    shownDefault: '`5000` (or `REQUEST_TIMEOUT_MS` if lower)',
    doc:
      "most time to receive a request's headers, from their first byte (on a new connection: from its opening); " +
      'then `408` and the connection is closed. Must not exceed `REQUEST_TIMEOUT_MS`',
  },
  keepAliveTimeoutMs: {
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 1000, maximum: 600_000, default: 72_000 }),
    doc:
      "idle keep-alive connections are closed this long (plus Node's 1 s buffer) " +
      'after their last response (above common load-balancer idle timeouts)',
  },
  fastPath: {
    env: 'FAST_PATH',
    schema: Type.Boolean({ default: true }),
    doc:
      'redirects (`GET`/`HEAD /:code`) are parsed and answered straight from the socket, anything else is handed to ' +
      'node:http; `false`: every request goes through node:http (the same answers, slower), see [Performance](#performance)',
  },
  slowRequestMs: {
    env: 'SLOW_REQUEST_MS',
    schema: Type.Integer({ minimum: 1, maximum: 600_000, default: 1000 }),
    doc: 'requests slower than this are logged at `warn` with their code',
  },
  shutdownGraceMs: {
    env: 'SHUTDOWN_GRACE_MS',
    schema: Type.Integer({ minimum: 100, maximum: 600_000, default: 10_000 }),
    doc: 'hard limit of a graceful shutdown',
  },
  readinessDrainMs: {
    env: 'READINESS_DRAIN_MS',
    schema: Type.Integer({ minimum: 0, maximum: 600_000, default: 0 }),
    doc:
      'after SIGTERM, ' +
      'how long `/readyz` fails before the server stops accepting (give your load balancer time to notice, e.g. `5000` on Kubernetes)',
  },
  metricsEnabled: {
    env: 'METRICS_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc:
      '`GET /metrics` (Prometheus) and the counting behind it; `false`: no route, ' +
      'nothing counted (click counts go on: they are data, not metrics)',
  },
  clickFlushIntervalMs: {
    env: 'CLICK_FLUSH_INTERVAL_MS',
    schema: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 5000 }),
    doc:
      "how often click counts are written to Postgres (and at each UTC midnight); a crash loses at most this long's clicks, " +
      'see [Click counts](#click-counts)',
  },
  clickMaxCodes: {
    env: 'CLICK_MAX_CODES',
    schema: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 20_000 }),
    doc:
      'most distinct links counted between two flushes, and most (link, day) counts waiting for Postgres; ' +
      'clicks beyond it are dropped, counted in `shortener_clicks_dropped_total` and logged',
  },
  analyticsEnabled: {
    env: 'ANALYTICS_ENABLED',
    schema: Type.Boolean({ default: true }),
    doc:
      'click analytics (referrers, countries, devices, browsers, systems, languages, QR scans, unique visitors, ' +
      'visits to unknown codes), see [Click analytics](#click-analytics); hot redirects with them run at 0.94–0.99× their rate ' +
      'without on one core (see [Performance](#performance)); `false`: only the click counts, and the redirect calls nothing more',
  },
  analyticsDimensions: {
    env: 'ANALYTICS_DIMENSIONS',
    schema: Type.Decode(
      commaList(isAnalyticsPart),
      (parts) => new Set<AnalyticsPart>(parts.length === 0 ? ANALYTICS_PARTS : (parts as AnalyticsPart[])),
    ),
    expected: `a comma-separated list of ${ANALYTICS_PARTS.join(', ')}`,
    shownDefault: 'all of them',
    doc: `what analytics keeps, a comma-separated list of \`${ANALYTICS_PARTS.join('`, `')}\` (\`city\` needs a city database in \`GEOIP_DATABASE\`)`,
  },
  analyticsFlushIntervalMs: {
    env: 'ANALYTICS_FLUSH_INTERVAL_MS',
    schema: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000 }),
    doc:
      "how often the analytics' rollups are taken and written to Postgres (after a count write, beside the counts, paced by " +
      "`ANALYTICS_WRITE_SHARE`); a crash loses at most this long's analytics and the part of a write under way not yet " +
      'committed (a graceful stop none), see [Click analytics](#click-analytics)',
  },
  analyticsWriteShare: {
    env: 'ANALYTICS_WRITE_SHARE',
    schema: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 1 }),
    expected: 'a number above 0 and at most 1',
    doc:
      "the most of its time a write of the analytics' rollups keeps Postgres busy (one connection): below `1`, after each " +
      'statement the next waits until that one took this share of the time, unless the write would then not end within half an ' +
      "`ANALYTICS_FLUSH_INTERVAL_MS`, so that a busy minute's rows are written over more time (`0.25`: four times as long); " +
      '`1`: one statement after the other, see [Click analytics](#click-analytics)',
  },
  analyticsValuesMax: {
    env: 'ANALYTICS_VALUES_MAX',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
    doc:
      'most values kept per link, day and dimension (four times as many per workspace), and unknown codes kept per domain and day; ' +
      'the rest is counted as `other`',
  },
  analyticsRetentionDays: {
    env: 'ANALYTICS_RETENTION_DAYS',
    schema: Type.Integer({ minimum: 0, maximum: 36_500, default: 400 }),
    doc: 'days the daily click counts and the analytics are kept; a month is dropped once all its days are older. `0`: kept for ever',
  },
  geoipDatabase: {
    env: 'GEOIP_DATABASE',
    schema: optional(Type.Refine(Type.String(), isReadableFile)),
    expected: 'the path of a readable MMDB file',
    shownDefault: 'the country database shipped with the package',
    doc: 'an MMDB file to read countries from instead (GeoLite2-Country or -City, DB-IP); with a city database, `city` is kept too',
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    schema: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
    doc: 'how long a webhook delivery may take, from connecting to the end of the answer; longer is a failed try (see [Webhooks](#webhooks))',
  },
  webhookRetrySchedule: {
    env: 'WEBHOOK_RETRY_SCHEDULE',
    schema: Type.Decode(
      Type.Refine(Type.String({ default: '5s,5m,30m,2h,5h,10h,10h' }), (raw) => parseSchedule(raw) !== undefined),
      (raw) => Object.freeze(parseSchedule(raw) ?? []),
    ),
    expected: 'a comma-separated list of delays such as 5s,5m,30m,2h (units ms, s, m, h)',
    doc:
      'the waits before each retry of a failed webhook delivery (each give or take 20 %); after the last retry fails the ' +
      "delivery is dead (kept in the log, resent by hand). The default, 27.6 hours over 8 tries, is Standard Webhooks'",
  },
  webhookMaxInFlight: {
    env: 'WEBHOOK_MAX_IN_FLIGHT',
    schema: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
    doc: 'deliveries under way at once to one endpoint, across all instances',
  },
  webhookPollMs: {
    env: 'WEBHOOK_POLL_MS',
    schema: Type.Integer({ minimum: 50, maximum: 60_000, default: 1000 }),
    doc: 'how often each instance looks for due webhook deliveries and links that have expired',
  },
  webhookAllowPrivate: {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    schema: Type.Boolean({ default: false }),
    doc:
      '`true` lets webhook endpoints be on loopback, private and other non-public addresses (an intranet receiver, tests). ' +
      'By default a webhook URL passes the rules of a link target, and a delivery connects only to public addresses its name resolves to',
  },
  webhookSecretOverlapMs: {
    env: 'WEBHOOK_SECRET_OVERLAP_HOURS',
    schema: hoursAsMs(Type.Integer({ minimum: 0, maximum: 720, default: 24 })),
    doc: "hours a webhook endpoint's secret still signs (beside the new one) after it is rotated",
  },
  webhookLogRetentionDays: {
    env: 'WEBHOOK_LOG_RETENTION_DAYS',
    schema: Type.Integer({ minimum: 1, maximum: 3650, default: 30 }),
    doc: 'days delivered and dead webhook deliveries stay in the delivery log',
  },
  clickStream: {
    env: 'CLICK_STREAM',
    schema: Type.Enum(CLICK_STREAMS, { default: 'off' }),
    doc:
      '`redis`: each click, enriched as analytics keeps it (no address), is also added to Redis Streams at each click flush, ' +
      "for a consumer group of the deployment's own; needs `REDIS_URL` or `REDIS_CLUSTER_URLS` and `ANALYTICS_ENABLED`. " +
      'See [Click stream](#click-stream)',
  },
  clickStreamMaxlen: {
    env: 'CLICK_STREAM_MAXLEN',
    schema: Type.Integer({ minimum: 100, maximum: 1_000_000_000, default: 1_000_000 }),
    doc:
      'about how many events each stream keeps (`XADD … MAXLEN ~`): older ones are trimmed, read or not; ' +
      'a consumer that falls further behind loses what was trimmed, and can count it',
  },
  clickStreamShards: {
    env: 'CLICK_STREAM_SHARDS',
    schema: Type.Integer({ minimum: 1, maximum: 1024, default: 1 }),
    doc:
      'streams the clicks are spread over (`<REDIS_KEY_PREFIX>clicks:0` …), a link always on the same one; ' +
      'on a cluster each is a key of its own slot, so more of them spread the work over the masters',
  },
} satisfies Settings;

/** BLOCKED_DOMAINS_FILE's domains join blockedDomains: one set of domains no link may point at. */
export type Config = Omit<Decoded<typeof SETTINGS>, 'blockedDomainsFile'>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and checks every variable; throws one ConfigError listing every bad one. */
export function loadConfig(env: Env = process.env): Config {
  const { config: decoded, problems } = decodeSettings(SETTINGS, env);
  const { blockedDomainsFile, ...settings } = decoded;
  const config: Config = { ...settings, blockedDomains: new Set([...settings.blockedDomains, ...blockedDomainsFile]) };
  problems.push(...crossFieldProblems(config, env));
  if (problems.length > 0) {
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(config);
}

function crossFieldProblems(config: Config, env: Env): string[] {
  const problems: string[] = [];
  if (config.databaseReplicaUrls.length > 0 && config.databaseUrl === undefined) {
    problems.push('DATABASE_REPLICA_URLS is set without DATABASE_URL: expected the primary as well (the embedded engine has no replicas)');
  }
  if (config.redisUrl !== undefined && config.redisClusterUrls.length > 0) {
    problems.push('REDIS_URL and REDIS_CLUSTER_URLS are both set: expected one of them (a single server, or a cluster)');
  }
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
  if (config.workers > 1 && config.databaseUrl === undefined) {
    problems.push(
      `WORKERS=${JSON.stringify(env.WORKERS)} (${config.workers} processes): expected DATABASE_URL as well: ` +
        'the embedded Postgres engine (PGlite) is a single session and cannot serve several processes',
    );
  }
  if (config.clickStream === 'redis' && config.redisUrl === undefined && config.redisClusterUrls.length === 0) {
    problems.push('CLICK_STREAM=redis: expected REDIS_URL or REDIS_CLUSTER_URLS as well (the stream is kept in Redis)');
  }
  if (config.clickStream === 'redis' && !config.analyticsEnabled) {
    problems.push(
      'CLICK_STREAM=redis with ANALYTICS_ENABLED=false: expected analytics on (the stream carries the clicks as analytics enriches them)',
    );
  }
  if (config.readinessDrainMs >= config.shutdownGraceMs) {
    problems.push(`READINESS_DRAIN_MS=${config.readinessDrainMs}: expected less than SHUTDOWN_GRACE_MS (${config.shutdownGraceMs})`);
  }
  return problems;
}
