import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, DEV_CODE_SECRET, loadConfig } from '../../src/config.ts';

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
    assert.match(err.message, /DATABASE_URL="mysql:\/\/x": expected a postgres:\/\/ URL/);
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
    /DATABASE_REPLICA_URLS=.*expected a comma-separated list of up to 16 postgres:\/\/ URLs/,
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
