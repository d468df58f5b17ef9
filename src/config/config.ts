// Configuration: environment variables -> a frozen, typed object, validated once at start-up.
// SETTINGS declares each variable once (in groups: *-settings.ts); its check, Config's type,
// the error messages and docs/configuration.md's table (npm run config:table) all come from there.
// The machinery is schema.ts.

import { decodeSettings, type Decoded, type Env, type Settings } from './schema.ts';
import { BLOCKLIST_SETTINGS } from './blocklist-settings.ts';
import { DOMAIN_CHECK_SETTINGS } from './domain-check-settings.ts';
import { ENGINE_SETTINGS } from './engine-settings.ts';
import { EVENT_SETTINGS } from './events-settings.ts';
import { HEALTH_SETTINGS } from './health-settings.ts';
import { MAIL_SETTINGS } from './mail-settings.ts';
import { RUNTIME_SETTINGS } from './runtime-settings.ts';
import { SERVING_SETTINGS } from './serving-settings.ts';
import { SSO_SETTINGS } from './sso-settings.ts';
import { WEBAUTHN_SETTINGS, webauthnProblems } from './webauthn-settings.ts';

import { DEV_CODE_SECRET } from './values.ts';

export { DEV_CODE_SECRET, type LogFormat, type LogLevel } from './values.ts';

/** Every variable, in docs/configuration.md's order; a fallback reads only settings declared above it. */
export const SETTINGS = {
  ...RUNTIME_SETTINGS,
  ...SERVING_SETTINGS,
  ...BLOCKLIST_SETTINGS,
  ...DOMAIN_CHECK_SETTINGS,
  ...ENGINE_SETTINGS,
  ...EVENT_SETTINGS,
  ...HEALTH_SETTINGS,
  ...MAIL_SETTINGS,
  ...SSO_SETTINGS,
  ...WEBAUTHN_SETTINGS,
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
  problems.push(...webauthnProblems(config));
  if (config.readinessDrainMs >= config.shutdownGraceMs) {
    problems.push(`READINESS_DRAIN_MS=${config.readinessDrainMs}: expected less than SHUTDOWN_GRACE_MS (${config.shutdownGraceMs})`);
  }
  return problems;
}

/**
 * A CODE_SECRET anyone can read (the development default, or a placeholder that says to change it):
 * with it, anyone computes every generated code and forges link passes.
 */
export function isPublishedSecret(secret: string): boolean {
  return secret === DEV_CODE_SECRET || /change-?me/i.test(secret);
}

/**
 * Why this process must not serve with its CODE_SECRET, or null. A published secret is accepted only
 * by the embedded development engine (no DATABASE_URL) outside NODE_ENV=production, or with an
 * explicit NODE_ENV=development; anything that serves from a real database must bring its own.
 */
export function servingSecretProblem(config: Pick<Config, 'codeSecret' | 'databaseUrl'>, env: Env = process.env): string | null {
  if (!isPublishedSecret(config.codeSecret)) return null;
  if (env.NODE_ENV === 'development') return null;
  if (config.databaseUrl === undefined && env.NODE_ENV !== 'production') return null;
  return (
    'CODE_SECRET is the development default or a placeholder: with it anyone can compute every code and forge link passes. ' +
    'Set your own (openssl rand -base64 32), or NODE_ENV=development for a development machine'
  );
}
