import assert from 'node:assert/strict';
import { SHIPPED_DATABASE } from '../../src/analytics/geo.ts';
import { ANALYTICS_PARTS } from '../../src/core/dimensions.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  ConfigError,
  DEV_CODE_SECRET,
  isPublishedSecret,
  loadConfig,
  servingSecretProblem,
  SETTINGS,
  type Config,
} from '../../src/config/config.ts';
import { passkeysAvailable } from '../../src/config/webauthn-settings.ts';

test('an empty environment gives the documented defaults', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.databaseUrl, undefined);
  assert.equal(config.redisUrl, undefined);
  assert.equal(config.baseUrl, 'http://localhost:3000');
  assert.equal(config.codeLength, 7);
  assert.equal(config.codeSecret, DEV_CODE_SECRET);
  assert.ok(Object.isFrozen(config));
});

test('a malformed value stops start-up with a message naming the variable and what it expects', () => {
  const attempt = () =>
    loadConfig({ PORT: '80a', DATABASE_URL: 'mysql://x', CODE_LENGTH: '12', LOG_LEVEL: 'loud', BASE_URL: 'https://sho.rt/path' });
  assert.throws(attempt, (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /PORT="80a": expected an integer from 0 to 65535/);
    assert.match(err.message, /DATABASE_URL \(9 characters, not shown\): expected a postgres:\/\/ URL/);
    assert.match(err.message, /CODE_LENGTH="12": expected an integer from 5 to 8/);
    assert.match(err.message, /LOG_LEVEL="loud": expected one of fatal/);
    assert.match(err.message, /BASE_URL=.*expected an http\(s\) origin/);
    return true;
  });
});

test('timeouts must nest: the breaker waits longer than the server-side statement timeout', () => {
  assert.throws(
    () => loadConfig({ DB_STATEMENT_TIMEOUT_MS: '5000', BREAKER_TIMEOUT_MS: '3000' }),
    /BREAKER_TIMEOUT_MS=3000: expected more than DB_STATEMENT_TIMEOUT_MS/,
  );
});

test('BASE_URL loses a trailing slash', () => {
  assert.equal(loadConfig({ BASE_URL: 'https://sho.rt/' }).baseUrl, 'https://sho.rt');
});

test('Redis: a single server or a cluster, not both; prefix without braces; defaults', () => {
  const config = loadConfig({});
  assert.deepEqual(config.redisClusterUrls, []);
  assert.equal(config.redisKeyPrefix, 'shortener:');
  assert.equal(config.redisCommandTimeoutMs, 100);
  assert.equal(config.redisAutoPipelining, false);
  const cluster = loadConfig({ REDIS_CLUSTER_URLS: 'redis://10.0.0.1:7000, redis://10.0.0.2:7000' });
  assert.deepEqual(cluster.redisClusterUrls, ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000']);
  assert.throws(
    () => loadConfig({ REDIS_URL: 'redis://a', REDIS_CLUSTER_URLS: 'redis://b', REDIS_KEY_PREFIX: '{all}', REDIS_AUTO_PIPELINING: 'yes' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /REDIS_URL and REDIS_CLUSTER_URLS are both set/);
      assert.match(err.message, /REDIS_KEY_PREFIX="\{all\}": expected up to 64 printable ASCII characters, no spaces or braces/);
      assert.match(err.message, /REDIS_AUTO_PIPELINING="yes": expected true or false/);
      return true;
    },
  );
  assert.throws(() => loadConfig({ REDIS_CLUSTER_URLS: 'redis://a,http://b' }), /expected a comma-separated list of redis/);
  for (const bad of ['10.0.0.5:6379', '10.0.0.5=127.0.0.1:7001', '10.0.0.5:6379=127.0.0.1:7001=x', 'a b:1=c:2']) {
    assert.throws(
      () => loadConfig({ REDIS_CLUSTER_NAT_MAP: bad }),
      /REDIS_CLUSTER_NAT_MAP=.*expected comma-separated announced=reachable pairs/,
      bad,
    );
  }
});

test('read replicas: a list of postgres URLs beside DATABASE_URL, with a lag bound and a timeout; mistakes named', () => {
  const none = loadConfig({});
  assert.deepEqual(none.databaseReplicaUrls, []);
  assert.equal(none.databaseReplicaMaxLagMs, 1000);
  assert.equal(none.databaseReplicaTimeoutMs, 1000);
  const config = loadConfig({
    DATABASE_URL: 'postgres://app@primary/links',
    DATABASE_REPLICA_URLS: 'postgres://app@replica-1/links, postgresql://app@replica-2:6432/links',
    DATABASE_REPLICA_MAX_LAG_MS: '250',
    DATABASE_REPLICA_TIMEOUT_MS: '400',
  });
  assert.deepEqual(config.databaseReplicaUrls, ['postgres://app@replica-1/links', 'postgresql://app@replica-2:6432/links']);
  assert.equal(config.databaseReplicaMaxLagMs, 250);
  assert.equal(config.databaseReplicaTimeoutMs, 400);
  assert.throws(
    () => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://app@replica-1/links', DATABASE_REPLICA_MAX_LAG_MS: '5' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /DATABASE_REPLICA_URLS is set without DATABASE_URL/);
      assert.match(err.message, /DATABASE_REPLICA_MAX_LAG_MS="5": expected an integer from 100 to 600000/);
      return true;
    },
  );
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'postgres://p/db', DATABASE_REPLICA_URLS: 'postgres://r/db,redis://x' }),
    /DATABASE_REPLICA_URLS \(\d+ characters, not shown\): expected a comma-separated list of up to 16 postgres:\/\/ URLs/,
  );
});

test('abuse controls: blocked domains from the list and a file, normalised; bad entries and TRUST_PROXY named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shortener-config-'));
  try {
    const file = join(dir, 'blocked.txt');
    writeFileSync(file, '# phishing\nbad.example\n\n*.Worse.Example.\r\n');
    const config = loadConfig({
      BLOCKED_DOMAINS: 'evil.example, пример.рф',
      BLOCKED_DOMAINS_FILE: file,
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
    });
    assert.deepEqual([...config.blockedDomains].sort(), ['bad.example', 'evil.example', 'worse.example', 'xn--e1afmkfd.xn--p1ai']);
    assert.equal(config.trustProxy, 'loopback, 10.0.0.0/8');
    assert.equal(config.allowPrivateTargets, false);
    assert.equal(config.allowShortenerTargets, false);
    assert.equal(config.notFoundLimitPerMinute, 120);
    assert.throws(
      () =>
        loadConfig({
          BLOCKED_DOMAINS: 'ok.example, https://x.example/',
          BLOCKED_DOMAINS_FILE: join(dir, 'missing.txt'),
          TRUST_PROXY: 'my-lb',
        }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, /BLOCKED_DOMAINS: "https:\/\/x.example\/" is not a domain name/);
        assert.match(err.message, /BLOCKED_DOMAINS_FILE=".*missing.txt": cannot be read/);
        assert.match(err.message, /TRUST_PROXY="my-lb": expected false, true, or a comma-separated list/);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('metrics and click counts: defaults, and values refused', () => {
  const config = loadConfig({});
  assert.equal(config.metricsEnabled, true);
  assert.equal(config.clickFlushIntervalMs, 5000);
  assert.equal(config.clickMaxCodes, 20_000);
  assert.equal(loadConfig({ METRICS_ENABLED: 'false' }).metricsEnabled, false);
  assert.throws(
    () => loadConfig({ METRICS_ENABLED: 'maybe', CLICK_FLUSH_INTERVAL_MS: '50', CLICK_MAX_CODES: '0' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /METRICS_ENABLED="maybe": expected true or false/);
      assert.match(err.message, /CLICK_FLUSH_INTERVAL_MS="50": expected an integer from 100 to 3600000/);
      assert.match(err.message, /CLICK_MAX_CODES="0": expected an integer from 1 to 1000000/);
      return true;
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Every declared variable, one by one

const listDir = mkdtempSync(join(tmpdir(), 'shortener-config-cases-'));
after(() => rmSync(listDir, { recursive: true }));
const BLOCKED_FILE = join(listDir, 'blocked.txt');
writeFileSync(BLOCKED_FILE, '# phishing\nbad.example\n');

interface Case {
  /** Where the variable lands in Config. */
  readonly key: keyof Config;
  /** Config's value with the variable unset: the README's default. */
  readonly unset: unknown;
  /** A value the variable takes, and Config's value then. */
  readonly valid: readonly [string, unknown];
  /** Other variables the valid value needs. */
  readonly with?: Readonly<Record<string, string>>;
  /** A value it refuses; none: any value is taken. */
  readonly invalid?: string;
}

const MINUTE = 60_000;
const CASES: Readonly<Record<string, Case>> = {
  PORT: { key: 'port', unset: 3000, valid: ['8080', 8080], invalid: '65536' },
  HOST: { key: 'host', unset: '127.0.0.1', valid: ['0.0.0.0', '0.0.0.0'], invalid: 'a host' },
  WORKERS: { key: 'workers', unset: 1, valid: ['4', 4], with: { DATABASE_URL: 'postgres://p/db' }, invalid: '257' },
  DATABASE_URL: {
    key: 'databaseUrl',
    unset: undefined,
    valid: ['postgres://app@db/links', 'postgres://app@db/links'],
    invalid: 'mysql://x',
  },
  EMBEDDED_DATA_DIR: { key: 'embeddedDataDir', unset: './data/pglite', valid: ['/var/lib/shortener', '/var/lib/shortener'] },
  EMBEDDED_TEMPLATE_DIR: { key: 'embeddedTemplateDir', unset: undefined, valid: ['/var/cache/shortener', '/var/cache/shortener'] },
  DATABASE_REPLICA_URLS: {
    key: 'databaseReplicaUrls',
    unset: [],
    valid: ['postgres://r1/db, postgresql://r2/db', ['postgres://r1/db', 'postgresql://r2/db']],
    with: { DATABASE_URL: 'postgres://p/db' },
    invalid: 'postgres://r1/db,redis://x',
  },
  DATABASE_REPLICA_MAX_LAG_MS: { key: 'databaseReplicaMaxLagMs', unset: 1000, valid: ['250', 250], invalid: '99' },
  DATABASE_REPLICA_TIMEOUT_MS: { key: 'databaseReplicaTimeoutMs', unset: 1000, valid: ['400', 400], invalid: '60001' },
  REDIS_URL: { key: 'redisUrl', unset: undefined, valid: ['rediss://cache:6380', 'rediss://cache:6380'], invalid: 'http://cache' },
  REDIS_CLUSTER_URLS: {
    key: 'redisClusterUrls',
    unset: [],
    valid: ['redis://a:7000, redis://b:7000', ['redis://a:7000', 'redis://b:7000']],
    invalid: 'redis://a,http://b',
  },
  REDIS_CLUSTER_NAT_MAP: {
    key: 'redisClusterNatMap',
    unset: {},
    valid: [
      '10.0.0.5:6379=127.0.0.1:7001, [FD00:0::5]:6379=Node-B.example:7002',
      { '10.0.0.5:6379': { host: '127.0.0.1', port: 7001 }, 'fd00::5:6379': { host: 'node-b.example', port: 7002 } },
    ],
    invalid: '10.0.0.5:6379=127.0.0.1:70000',
  },
  REDIS_KEY_PREFIX: { key: 'redisKeyPrefix', unset: 'shortener:', valid: ['links:', 'links:'], invalid: '{all}' },
  REDIS_COMMAND_TIMEOUT_MS: { key: 'redisCommandTimeoutMs', unset: 100, valid: ['50', 50], invalid: '4' },
  REDIS_CONNECT_TIMEOUT_MS: { key: 'redisConnectTimeoutMs', unset: 1000, valid: ['2000', 2000], invalid: '60001' },
  REDIS_TTL_SECONDS: { key: 'redisTtlMs', unset: 60 * MINUTE, valid: ['60', MINUTE], invalid: '0' },
  REDIS_BATCH_MAX: { key: 'redisBatchMax', unset: 500, valid: ['1', 1], invalid: '10001' },
  REDIS_AUTO_PIPELINING: { key: 'redisAutoPipelining', unset: false, valid: ['true', true], invalid: 'yes' },
  BASE_URL: {
    key: 'baseUrl',
    unset: 'http://localhost:3000',
    valid: ['https://sho.rt/', 'https://sho.rt'],
    invalid: 'https://sho.rt/path',
  },
  LOG_LEVEL: { key: 'logLevel', unset: 'info', valid: ['debug', 'debug'], invalid: 'loud' },
  LOG_FORMAT: { key: 'logFormat', unset: 'auto', valid: ['pretty', 'pretty'], invalid: 'fancy' },
  CACHE_MAX_ENTRIES: { key: 'cacheMaxEntries', unset: 1_000_000, valid: ['1000', 1000], invalid: '20000001' },
  CACHE_MAX_BYTES: { key: 'cacheMaxBytes', unset: 512 * 1024 * 1024, valid: ['1048576', 1_048_576], invalid: '1023' },
  CACHE_TTL_SECONDS: { key: 'cacheTtlMs', unset: 10 * MINUTE, valid: ['30', 30_000], invalid: '604801' },
  NEGATIVE_MAX_ENTRIES: { key: 'negativeMaxEntries', unset: 100_000, valid: ['10', 10], invalid: '0' },
  NEGATIVE_TTL_SECONDS: { key: 'negativeTtlMs', unset: 10_000, valid: ['5', 5000], invalid: '3601' },
  REDIRECT_CACHE_CONTROL: {
    key: 'redirectCacheControl',
    unset: 'private, max-age=90',
    valid: ['no-store', 'no-store'],
    invalid: 'max-age=90, café',
  },
  ALLOW_PRIVATE_TARGETS: { key: 'allowPrivateTargets', unset: false, valid: ['1', true], invalid: 'on' },
  BLOCKED_DOMAINS: {
    key: 'blockedDomains',
    unset: new Set(),
    valid: ['Evil.Example, *.worse.example', new Set(['evil.example', 'worse.example'])],
    invalid: 'https://x.example/',
  },
  BLOCKED_DOMAINS_FILE: {
    key: 'blockedDomains',
    unset: new Set(),
    valid: [BLOCKED_FILE, new Set(['bad.example'])],
    invalid: join(listDir, 'none.txt'),
  },
  ALLOW_SHORTENER_TARGETS: { key: 'allowShortenerTargets', unset: false, valid: ['true', true], invalid: 'maybe' },
  BLOCKLISTS: {
    key: 'blocklists',
    unset: [],
    valid: [
      `local=domains:${BLOCKED_FILE},feed=auto:https://lists.example/feed.txt`,
      [
        { name: 'local', format: 'domains', source: BLOCKED_FILE, remote: false },
        { name: 'feed', format: 'auto', source: 'https://lists.example/feed.txt', remote: true },
      ],
    ],
    invalid: 'local=zip:/tmp/list.txt',
  },
  BLOCKLIST_ACTION: { key: 'blocklistAction', unset: 'block', valid: ['warn', 'warn'], invalid: 'delete' },
  BLOCKLIST_ALLOW_FILE: {
    key: 'blocklistAllowFile',
    unset: undefined,
    valid: [BLOCKED_FILE, BLOCKED_FILE],
    invalid: join(listDir, 'none.txt'),
  },
  BLOCKLIST_REFRESH_MINUTES: { key: 'blocklistRefreshMs', unset: 60 * MINUTE, valid: ['10', 10 * MINUTE], invalid: '4' },
  BLOCKLIST_MAX_BYTES: { key: 'blocklistMaxBytes', unset: 64 * 1024 * 1024, valid: ['2048', 2048], invalid: '10' },
  NOT_FOUND_LIMIT_PER_MINUTE: { key: 'notFoundLimitPerMinute', unset: 120, valid: ['0', 0], invalid: '-1' },
  NOT_FOUND_LIMIT_CLIENTS: { key: 'notFoundLimitClients', unset: 100_000, valid: ['10', 10], invalid: '0' },
  PASSWORD_HASHES_AT_ONCE: { key: 'passwordHashesAtOnce', unset: 2, valid: ['4', 4], invalid: '0' },
  PASSWORD_GUESSES_WAITING: { key: 'passwordGuessesWaiting', unset: 16, valid: ['0', 0], invalid: '-1' },
  RATE_LIMIT_ENABLED: { key: 'rateLimitEnabled', unset: true, valid: ['false', false], invalid: 'off' },
  RATE_LIMIT_CREATES_PER_IP: { key: 'rateLimitCreatesPerIp', unset: 60, valid: ['0', 0], invalid: '1000001' },
  RATE_LIMIT_CREATES_PER_KEY: { key: 'rateLimitCreatesPerKey', unset: 6000, valid: ['1000', 1000], invalid: '10000001' },
  RATE_LIMIT_WINDOW_SECONDS: { key: 'rateLimitWindowMs', unset: MINUTE, valid: ['10', 10_000], invalid: '86401' },
  CREATE_REQUIRES_API_KEY: { key: 'createRequiresApiKey', unset: true, valid: ['0', false], invalid: 'required' },
  API_HOSTS: {
    key: 'apiHosts',
    unset: [],
    valid: ['Api.Sho.rt:8443, internal-lb', ['api.sho.rt', 'internal-lb']],
    invalid: 'https://api.sho.rt',
  },
  DUB_API_HOSTS: { key: 'dubApiHosts', unset: [], valid: ['Dub.Sho.rt:8443, dub-internal', ['dub.sho.rt', 'dub-internal']], invalid: '*' },
  DASHBOARD_ENABLED: { key: 'dashboardEnabled', unset: true, valid: ['false', false], invalid: 'hidden' },
  ROOT_REDIRECT: {
    key: 'rootRedirect',
    unset: '/app/',
    valid: ['https://acme.example/', 'https://acme.example/'],
    invalid: '//evil.example',
  },
  DEFAULT_DOMAIN_HOSTS: {
    key: 'defaultDomainHosts',
    unset: [],
    valid: ['Old.Sho.rt:8443, internal-lb', ['old.sho.rt', 'internal-lb']],
    invalid: 'https://old.sho.rt',
  },
  UNKNOWN_HOST_REDIRECT: {
    key: 'unknownHostRedirect',
    unset: undefined,
    valid: ['https://www.example.org/', 'https://www.example.org/'],
    invalid: '/app/',
  },
  DOMAIN_VERIFICATION: { key: 'domainVerification', unset: true, valid: ['false', false], invalid: 'skip' },
  DOMAIN_DNS_RESOLVERS: {
    key: 'domainDnsResolvers',
    unset: [],
    valid: ['1.1.1.1, 127.0.0.1:5353, [2001:db8::1]:53', ['1.1.1.1', '127.0.0.1:5353', '[2001:db8::1]:53']],
    invalid: 'dns.example.com',
  },
  DOMAIN_TARGET_HOST: { key: 'domainTargetHost', unset: undefined, valid: ['Edge.Example.NET.', 'edge.example.net'], invalid: '10.0.0.1' },
  DOMAIN_TARGET_ADDRESSES: {
    key: 'domainTargetAddresses',
    unset: [],
    valid: ['203.0.113.7, 2001:db8::7', ['203.0.113.7', '2001:db8::7']],
    invalid: 'edge.example.net',
  },
  DOMAIN_CHECK_TLS_PORT: { key: 'domainCheckTlsPort', unset: 443, valid: ['8443', 8443], invalid: '0' },
  DOMAIN_CHECK_CA_FILE: {
    key: 'domainCheckCaFile',
    unset: undefined,
    valid: [BLOCKED_FILE, BLOCKED_FILE],
    invalid: join(listDir, 'none.pem'),
  },
  DOMAIN_CHECK_TIMEOUT_MS: { key: 'domainCheckTimeoutMs', unset: 3000, valid: ['500', 500], invalid: '50' },
  DOMAIN_CHECKS_PER_MINUTE: { key: 'domainChecksPerMinute', unset: 6, valid: ['10', 10], invalid: '0' },
  DOMAIN_CHECK_INTERVAL_SECONDS: { key: 'domainCheckIntervalMs', unset: 3_600_000, valid: ['60', 60_000], invalid: '0' },
  DOMAIN_CHECK_GRACE: { key: 'domainCheckGrace', unset: 24, valid: ['0', 0], invalid: '-1' },
  DOMAIN_PENDING_HOURS: { key: 'domainPendingTtlMs', unset: 7 * 24 * 3_600_000, valid: ['1', 3_600_000], invalid: '0' },
  SESSION_TTL_HOURS: { key: 'sessionTtlMs', unset: 12 * 3_600_000, valid: ['1', 3_600_000], invalid: '721' },
  SESSION_IDLE_MINUTES: { key: 'sessionIdleMs', unset: 120 * 60_000, valid: ['5', 300_000], invalid: '4' },
  SIGN_IN_ACCOUNT_MAX_FAILURES: { key: 'signInAccountMaxFailures', unset: 10, valid: ['3', 3], invalid: '0' },
  SIGN_IN_MAX_FAILURES: { key: 'signInMaxFailures', unset: 10, valid: ['3', 3], invalid: '0' },
  SIGN_IN_WINDOW_SECONDS: { key: 'signInWindowMs', unset: 900_000, valid: ['60', 60_000], invalid: '86401' },
  SESSIONS_PER_KEY_MAX: { key: 'sessionsPerKeyMax', unset: 20, valid: ['3', 3], invalid: '0' },
  CREDENTIAL_LOOKUPS_PER_MINUTE: { key: 'credentialLookupsPerMinute', unset: 30, valid: ['0', 0], invalid: '-1' },
  TRUST_PROXY: { key: 'trustProxy', unset: 'false', valid: ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'], invalid: 'my-lb' },
  CODE_LENGTH: { key: 'codeLength', unset: 7, valid: ['8', 8], invalid: '4' },
  CODE_SECRET: { key: 'codeSecret', unset: DEV_CODE_SECRET, valid: ['sixteen-chars-ok', 'sixteen-chars-ok'], invalid: 'too-short' },
  READ_BATCH_MAX: { key: 'readBatchMax', unset: 500, valid: ['100', 100], invalid: '0' },
  WRITE_BATCH_MAX: { key: 'writeBatchMax', unset: 500, valid: ['100', 100], invalid: '5001' },
  WRITE_QUEUE_MAX: { key: 'writeQueueMax', unset: 10_000, valid: ['100', 100], invalid: '1000001' },
  WRITE_QUEUE_WORKSPACE_SHARE: { key: 'writeQueueWorkspaceShare', unset: 0.5, valid: ['0.25', 0.25], invalid: '0' },
  WRITE_TIMEOUT_MS: { key: 'writeTimeoutMs', unset: 5000, valid: ['1000', 1000], invalid: '99' },
  DB_POOL_MAX: { key: 'dbPoolMax', unset: 10, valid: ['20', 20], invalid: '1001' },
  DB_LIST_POOL_MAX: { key: 'dbListPoolMax', unset: 2, valid: ['4', 4], invalid: '0' },
  DB_AUTH_POOL_MAX: { key: 'dbAuthPoolMax', unset: 2, valid: ['4', 4], invalid: '0' },
  LIST_SLOW_PER_WORKSPACE: { key: 'listSlowPerWorkspace', unset: 2, valid: ['4', 4], invalid: '0' },
  DB_CONNECT_TIMEOUT_MS: { key: 'dbConnectTimeoutMs', unset: 2000, valid: ['500', 500], invalid: '60001' },
  DB_STATEMENT_TIMEOUT_MS: { key: 'dbStatementTimeoutMs', unset: 2000, valid: ['1000', 1000], invalid: '9' },
  BREAKER_TIMEOUT_MS: { key: 'breakerTimeoutMs', unset: 3000, valid: ['4000', 4000], invalid: '600001' },
  BREAKER_RESET_MS: { key: 'breakerResetMs', unset: 5000, valid: ['1000', 1000], invalid: '99' },
  REQUEST_TIMEOUT_MS: { key: 'requestTimeoutMs', unset: 10_000, valid: ['20000', 20_000], invalid: '99' },
  HEADERS_TIMEOUT_MS: { key: 'headersTimeoutMs', unset: 5000, valid: ['2000', 2000], invalid: '99' },
  KEEP_ALIVE_TIMEOUT_MS: { key: 'keepAliveTimeoutMs', unset: 72_000, valid: ['5000', 5000], invalid: '999' },
  SLOW_REQUEST_MS: { key: 'slowRequestMs', unset: 1000, valid: ['250', 250], invalid: '0' },
  SHUTDOWN_GRACE_MS: { key: 'shutdownGraceMs', unset: 10_000, valid: ['20000', 20_000], invalid: '99' },
  READINESS_DRAIN_MS: { key: 'readinessDrainMs', unset: 0, valid: ['5000', 5000], invalid: '600001' },
  METRICS_ENABLED: { key: 'metricsEnabled', unset: true, valid: ['0', false], invalid: 'maybe' },
  FAST_PATH: { key: 'fastPath', unset: true, valid: ['false', false], invalid: 'no' },
  REDIRECT_STATUS: { key: 'redirectStatus', unset: 302, valid: ['308', 308], invalid: '303' },
  SCHEDULED_LINK_ANSWER: { key: 'scheduledLinkAnswer', unset: 'not_yet', valid: ['not_found', 'not_found'], invalid: 'hidden' },
  FORWARD_QUERY: { key: 'forwardQuery', unset: false, valid: ['true', true], invalid: 'sometimes' },
  CLICK_FLUSH_INTERVAL_MS: { key: 'clickFlushIntervalMs', unset: 5000, valid: ['1000', 1000], invalid: '3600001' },
  CLICK_MAX_CODES: { key: 'clickMaxCodes', unset: 20_000, valid: ['100', 100], invalid: '0' },
  ANALYTICS_ENABLED: { key: 'analyticsEnabled', unset: true, valid: ['false', false], invalid: 'perhaps' },
  ANALYTICS_DIMENSIONS: {
    key: 'analyticsDimensions',
    unset: new Set(ANALYTICS_PARTS),
    valid: ['country, device', new Set(['country', 'device'])],
    invalid: 'country,ip',
  },
  ANALYTICS_FLUSH_INTERVAL_MS: { key: 'analyticsFlushIntervalMs', unset: 60_000, valid: ['5000', 5000], invalid: '99' },
  ANALYTICS_WRITE_SHARE: { key: 'analyticsWriteShare', unset: 1, valid: ['0.25', 0.25], invalid: '0' },
  ANALYTICS_VALUES_MAX: { key: 'analyticsValuesMax', unset: 50, valid: ['10', 10], invalid: '0' },
  ANALYTICS_RETENTION_DAYS: { key: 'analyticsRetentionDays', unset: 400, valid: ['0', 0], invalid: '-1' },
  GEOIP_DATABASE: {
    key: 'geoipDatabase',
    unset: undefined,
    valid: [SHIPPED_DATABASE, SHIPPED_DATABASE],
    invalid: '/nonexistent/city.mmdb',
  },
  WEBHOOK_TIMEOUT_MS: { key: 'webhookTimeoutMs', unset: 10_000, valid: ['2500', 2500], invalid: '99' },
  WEBHOOK_RETRY_SCHEDULE: {
    key: 'webhookRetrySchedule',
    unset: [5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    valid: ['250ms, 1.5s,2m,1h', [250, 1500, 120_000, 3_600_000]],
    invalid: '5s,soon',
  },
  WEBHOOK_MAX_IN_FLIGHT: { key: 'webhookMaxInFlight', unset: 10, valid: ['3', 3], invalid: '0' },
  WEBHOOK_POLL_MS: { key: 'webhookPollMs', unset: 1000, valid: ['250', 250], invalid: '10' },
  LINK_EXPIRING_NOTICE_HOURS: { key: 'linkExpiringNoticeMs', unset: 24 * 3_600_000, valid: ['0', 0], invalid: '8761' },
  WEBHOOK_ALLOW_PRIVATE: { key: 'webhookAllowPrivate', unset: false, valid: ['true', true], invalid: 'maybe' },
  WEBHOOK_SECRET_OVERLAP_HOURS: { key: 'webhookSecretOverlapMs', unset: 24 * 3_600_000, valid: ['0', 0], invalid: '721' },
  WEBHOOK_LOG_RETENTION_DAYS: { key: 'webhookLogRetentionDays', unset: 30, valid: ['7', 7], invalid: '0' },
  WEBHOOK_RESENDS_PER_MINUTE: { key: 'webhookResendsPerMinute', unset: 10, valid: ['20', 20], invalid: '0' },
  HEALTH_PROBES: { key: 'healthProbes', unset: false, valid: ['true', true], invalid: 'on' },
  HEALTH_PROBE_INTERVAL_MINUTES: { key: 'healthProbeIntervalMs', unset: 360 * 60_000, valid: ['15', 15 * 60_000], invalid: '0' },
  HEALTH_PROBE_RATE: { key: 'healthProbeRate', unset: 5, valid: ['50', 50], invalid: '0' },
  HEALTH_PROBE_TIMEOUT_MS: { key: 'healthProbeTimeoutMs', unset: 10_000, valid: ['2500', 2500], invalid: '99' },
  HEALTH_PROBE_MAX_REDIRECTS: { key: 'healthProbeMaxRedirects', unset: 5, valid: ['0', 0], invalid: '21' },
  HEALTH_BROKEN_AFTER: { key: 'healthBrokenAfter', unset: 3, valid: ['1', 1], invalid: '0' },
  HEALTH_PROBE_ALLOW_PRIVATE: { key: 'healthProbeAllowPrivate', unset: false, valid: ['true', true], invalid: 'maybe' },
  CLICK_STREAM: { key: 'clickStream', unset: 'off', valid: ['redis', 'redis'], with: { REDIS_URL: 'redis://cache' }, invalid: 'kafka' },
  CLICK_STREAM_MAXLEN: { key: 'clickStreamMaxlen', unset: 1_000_000, valid: ['5000', 5000], invalid: '99' },
  CLICK_STREAM_SHARDS: { key: 'clickStreamShards', unset: 1, valid: ['4', 4], invalid: '0' },
  SMTP_URL: {
    key: 'smtpUrl',
    unset: undefined,
    valid: ['smtps://mailer:s%40cret@mail.example.com:465', 'smtps://mailer:s%40cret@mail.example.com:465'],
    invalid: 'https://mail.example.com',
  },
  MAIL_FROM: {
    key: 'mailFrom',
    unset: 'shortener <no-reply@localhost>',
    valid: ['Links <links@sho.rt>', 'Links <links@sho.rt>'],
    invalid: 'links at sho.rt',
  },
  OIDC_ISSUER: {
    key: 'oidcIssuer',
    unset: undefined,
    valid: ['https://login.example.com/realms/staff', 'https://login.example.com/realms/staff'],
    invalid: 'http://login.example.com',
  },
  OIDC_CLIENT_ID: { key: 'oidcClientId', unset: undefined, valid: ['shortener', 'shortener'], invalid: 'x'.repeat(501) },
  OIDC_CLIENT_SECRET: { key: 'oidcClientSecret', unset: undefined, valid: ['s3cret', 's3cret'], invalid: 'x'.repeat(2001) },
  OIDC_NAME: { key: 'oidcName', unset: 'single sign-on', valid: ['Acme staff', 'Acme staff'], invalid: 'x'.repeat(61) },
  OIDC_SCOPES: { key: 'oidcScopes', unset: 'openid email profile', valid: ['openid email', 'openid email'], invalid: 'email profile' },
  OIDC_EMAIL_VERIFIED_CLAIM: {
    key: 'oidcEmailVerifiedClaim',
    unset: 'email_verified',
    valid: ['xms_edov', 'xms_edov'],
    invalid: 'email verified',
  },
  OIDC_TIMEOUT_MS: { key: 'oidcTimeoutMs', unset: 5000, valid: ['500', 500], invalid: '99' },
  WEBAUTHN_RP_ID: {
    key: 'webauthnRpId',
    unset: 'localhost',
    valid: ['Sho.rt', 'sho.rt'],
    with: { BASE_URL: 'https://app.sho.rt' },
    invalid: 'sho.rt:443',
  },
  WEBAUTHN_RP_NAME: { key: 'webauthnRpName', unset: 'shortener', valid: ['Acme links', 'Acme links'], invalid: 'x'.repeat(65) },
  WEBAUTHN_ORIGINS: {
    key: 'webauthnOrigins',
    unset: ['http://localhost:3000'],
    valid: ['https://sho.rt/, https://app.sho.rt', ['https://sho.rt', 'https://app.sho.rt']],
    with: { BASE_URL: 'https://sho.rt' },
    invalid: 'https://localhost/path',
  },
};

const DECLARED = Object.values(SETTINGS).map((setting) => setting.env);

/** The problem lines of a refused environment. */
function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    const [head, ...lines] = err.message.split('\n  ');
    assert.equal(head, 'invalid configuration:');
    return lines;
  }
  return [];
}

test('every declared variable has a case here, and every case is a declared variable', () => {
  assert.deepEqual(Object.keys(CASES).sort(), [...DECLARED].sort());
});

test('each variable, unset, gives its documented default', () => {
  const config = loadConfig({});
  for (const name of DECLARED) {
    const { key, unset } = CASES[name] ?? assert.fail(name);
    assert.deepEqual(config[key], unset, name);
  }
});

test('each variable takes a valid value, trimmed, and an empty value means unset', () => {
  for (const name of DECLARED) {
    const { key, unset, valid, with: others = {} } = CASES[name] ?? assert.fail(name);
    assert.deepEqual(loadConfig({ ...others, [name]: valid[0] })[key], valid[1], name);
    assert.deepEqual(loadConfig({ ...others, [name]: ` ${valid[0]}\t` })[key], valid[1], `${name}, padded`);
    assert.deepEqual(loadConfig({ [name]: '  ' })[key], unset, `${name}, empty`);
  }
});

test('each variable with a constraint refuses a bad value with one message that names it', () => {
  for (const name of DECLARED) {
    const { invalid } = CASES[name] ?? assert.fail(name);
    if (invalid === undefined) continue;
    const lines = problems({ [name]: invalid });
    assert.equal(lines.length, 1, `${name}=${invalid}: ${lines.join(' | ')}`);
    assert.match(lines[0] ?? '', new RegExp(`^${name}[=: ]`), name);
  }
});

test('an integer is digits only, a boolean true, false, 1 or 0; an unknown variable is no error', () => {
  for (const raw of ['1.5', '1e3', '0x10', '-1', 'true', '80a']) {
    assert.deepEqual(problems({ PORT: raw }), [`PORT=${JSON.stringify(raw)}: expected an integer from 0 to 65535`]);
  }
  assert.equal(loadConfig({ PORT: '08' }).port, 8);
  for (const [raw, value] of [
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ] as const) {
    assert.equal(loadConfig({ METRICS_ENABLED: raw }).metricsEnabled, value);
  }
  assert.deepEqual(problems({ METRICS_ENABLED: '2' }), ['METRICS_ENABLED="2": expected true or false']);
  assert.equal(loadConfig({ SHORTENER_UNKNOWN: 'x', PATH: '/bin' }).port, 3000);
});

test('defaults that follow other variables: BASE_URL from PORT, HEADERS_TIMEOUT_MS at most REQUEST_TIMEOUT_MS; WORKERS=auto', () => {
  assert.equal(loadConfig({ PORT: '8080' }).baseUrl, 'http://localhost:8080');
  assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '3000' }).headersTimeoutMs, 3000);
  assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '20000' }).headersTimeoutMs, 5000);
  assert.ok(loadConfig({ WORKERS: 'auto', DATABASE_URL: 'postgres://p/db' }).workers >= 1);
  assert.deepEqual(problems({ WORKERS: 'many' }), ['WORKERS="many": expected an integer from 1 to 256, or auto (one per CPU)']);
});

test('the cross-field rules: each named on its own line, all at once', () => {
  const lines = problems({
    WORKERS: '2',
    DATABASE_REPLICA_URLS: 'postgres://r/db',
    REDIS_URL: 'redis://a',
    REDIS_CLUSTER_URLS: 'redis://b',
    DB_STATEMENT_TIMEOUT_MS: '3000',
    REQUEST_TIMEOUT_MS: '1000',
    HEADERS_TIMEOUT_MS: '2000',
    READINESS_DRAIN_MS: '10000',
  });
  assert.deepEqual(
    lines.map((line) => line.split(/[=: ]/, 1)[0]),
    ['DATABASE_REPLICA_URLS', 'REDIS_URL', 'BREAKER_TIMEOUT_MS', 'HEADERS_TIMEOUT_MS', 'WORKERS', 'READINESS_DRAIN_MS'],
  );
});

test('CLICK_STREAM=redis: refused without a Redis or without analytics, each said', () => {
  assert.deepEqual(problems({ CLICK_STREAM: 'redis', ANALYTICS_ENABLED: 'false' }), [
    'CLICK_STREAM=redis: expected REDIS_URL or REDIS_CLUSTER_URLS as well (the stream is kept in Redis)',
    'CLICK_STREAM=redis with ANALYTICS_ENABLED=false: expected analytics on (the stream carries the clicks as analytics enriches them)',
  ]);
  assert.equal(loadConfig({ CLICK_STREAM: 'redis', REDIS_CLUSTER_URLS: 'redis://a:7000' }).clickStream, 'redis');
});

test('ROOT_REDIRECT: none without the dashboard; a path of this service or an http(s) URL, never one a browser reads as another host', () => {
  assert.equal(loadConfig({ DASHBOARD_ENABLED: 'false' }).rootRedirect, 'none');
  assert.equal(loadConfig({ DASHBOARD_ENABLED: 'false', ROOT_REDIRECT: '/docs' }).rootRedirect, '/docs');
  assert.equal(loadConfig({ ROOT_REDIRECT: 'none' }).rootRedirect, 'none');
  for (const bad of ['//evil.example', '/\\evil.example', 'javascript:alert(1)', 'ftp://acme.example/', 'acme.example', '/a b']) {
    assert.throws(() => loadConfig({ ROOT_REDIRECT: bad }), /ROOT_REDIRECT=.*expected a path of this service/, bad);
  }
});

test('a published CODE_SECRET serves only on a development machine: the embedded engine outside production, or NODE_ENV=development', () => {
  const dev = loadConfig({});
  const real = loadConfig({ DATABASE_URL: 'postgres://db/x' });
  assert.equal(servingSecretProblem(dev, {}), null);
  assert.match(servingSecretProblem(dev, { NODE_ENV: 'production' }) ?? '', /^CODE_SECRET is the development default/);
  assert.match(servingSecretProblem(real, {}) ?? '', /^CODE_SECRET/);
  assert.equal(servingSecretProblem(real, { NODE_ENV: 'development' }), null);
  assert.match(servingSecretProblem({ ...real, codeSecret: 'please-Change-Me-now' }, {}) ?? '', /^CODE_SECRET/);
  assert.equal(servingSecretProblem({ ...real, codeSecret: 'a-real-secret-of-32-characters!!' }, { NODE_ENV: 'production' }), null);
  assert.ok(isPublishedSecret(DEV_CODE_SECRET));
});

test('OIDC_ISSUER: https, or http on loopback only; OIDC_CLIENT_SECRET is never shown in a message', () => {
  for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000/oidc', 'http://[::1]:4000', 'https://idp.example.com']) {
    assert.equal(loadConfig({ OIDC_ISSUER: issuer }).oidcIssuer, issuer);
  }
  for (const issuer of ['http://10.0.0.5', 'https://idp.example.com/?tenant=1', 'https://user:pw@idp.example.com', 'idp.example.com']) {
    assert.equal(problems({ OIDC_ISSUER: issuer }).length, 1, issuer);
  }
  const secret = `hunter2${'!'.repeat(2000)}`;
  assert.deepEqual(problems({ OIDC_CLIENT_SECRET: secret }), [
    'OIDC_CLIENT_SECRET (2007 characters, not shown): expected at most 2000 characters',
  ]);
});

test('passkeys: the relying party follows BASE_URL; origins must be on it; offered on https, or http on localhost, never on an IP address', () => {
  const config = loadConfig({ BASE_URL: 'https://go.sho.rt' });
  assert.equal(config.webauthnRpId, 'go.sho.rt');
  assert.deepEqual(config.webauthnOrigins, ['https://go.sho.rt']);
  assert.deepEqual(problems({ BASE_URL: 'https://sho.rt', WEBAUTHN_ORIGINS: 'https://sho.rt,https://evil.example' }), [
    'WEBAUTHN_ORIGINS has https://evil.example: expected origins on WEBAUTHN_RP_ID (sho.rt) or under it',
  ]);
  assert.deepEqual(problems({ BASE_URL: 'https://app.sho.rt', WEBAUTHN_RP_ID: 'sho.rt', WEBAUTHN_ORIGINS: 'https://links.sho.rt' }), []);
  for (const base of ['https://sho.rt', 'http://localhost:3000', 'http://app.localhost:3000']) assert.ok(passkeysAvailable(base), base);
  for (const base of ['http://sho.rt', 'http://127.0.0.1:8080', 'https://10.0.0.5', 'http://[::1]:3000'])
    assert.ok(!passkeysAvailable(base), base);
  // An IP address as BASE_URL still starts (the relying party id follows it); it offers no passkeys.
  assert.equal(loadConfig({ BASE_URL: 'http://[::1]:3000' }).webauthnRpId, '[::1]');
});
