// Where the service runs: its port and processes, Postgres (and its replicas), Redis, its own address and its logs.
// Part of SETTINGS (config.ts), in the order of docs/configuration.md's table.

import { LOG_LEVELS, LOG_FORMATS, isPostgresUrl, isRedisUrl } from './values.ts';
import { Type } from 'typebox';
import { commaList, countOrAuto, natMap, optional, origin, secondsAsMs, type Settings } from './schema.ts';

export const RUNTIME_SETTINGS = {
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
    secret: true,
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
  embeddedTemplateDir: {
    env: 'EMBEDDED_TEMPLATE_DIR',
    schema: optional(Type.String({ minLength: 1 })),
    expected: 'a folder path',
    shownDefault: '`node_modules/.cache/shortener` of the checkout',
    doc:
      'where the embedded engine keeps a pristine database, made once per PGlite version (by `npm ci`, or by the first start ' +
      'that finds none); a new data folder starts as a copy of it instead of running initdb. See [Start-up](performance.md#start-up)',
  },
  databaseReplicaUrls: {
    env: 'DATABASE_REPLICA_URLS',
    secret: true,
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
    secret: true,
    schema: optional(Type.Refine(Type.String(), isRedisUrl)),
    expected: 'a redis:// or rediss:// URL',
    doc: '`redis://…` or `rediss://…` of one Redis server; unset (and no cluster): the Redis tier is off',
  },
  redisClusterUrls: {
    env: 'REDIS_CLUSTER_URLS',
    secret: true,
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
} satisfies Settings;
