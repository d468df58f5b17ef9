// Short domains as a part: the short URLs of links on each domain (short-urls.ts), which every
// feature that shows a link uses, the routes that manage a workspace's domains, and the
// verification of their DNS records (verifier.ts), re-checked periodically from when the app is ready. Which domain a
// request is for is the read path's (resolve/hosts.ts).

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { targetPolicyOf } from '../core/target-policy.ts';
import type { PartOptions } from '../part.ts';
import { domainsRoutes } from './routes.ts';
import { DomainService } from './service.ts';
import { createShortUrls, type ShortUrls } from './short-urls.ts';
import { DomainStore } from './store.ts';
import { dnsRecordChecker } from './dns-records.ts';
import { DomainVerifier } from './verifier.ts';
import { readFileSync } from 'node:fs';
import { AttemptBudget } from '../api/attempt-budget.ts';
import { clientCounter } from '../api/counters.ts';
import { DomainChecker } from './check.ts';
import { CHECK_WINDOW_MS, domainCheckRoutes } from './check-routes.ts';
import { DomainCheckService } from './check-service.ts';
import { VerificationStore } from './verification-store.ts';

declare module 'fastify' {
  interface FastifyInstance {
    shortUrls: ShortUrls;
    /** The workspaces' own domains, as /domains serves them (and the compatible APIs). */
    domainService: DomainService;
  }
}

async function domainsPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const { hosts, codeSpace, propagation } = app;
  const shortUrls = createShortUrls(config.baseUrl, hosts);
  const verificationStore = new VerificationStore(app.db, app.breaker);
  const verification = new DomainVerifier({
    enabled: config.domainVerification,
    intervalMs: config.domainCheckIntervalMs,
    grace: config.domainCheckGrace,
    pendingTtlMs: config.domainPendingTtlMs,
    store: verificationStore,
    check: dnsRecordChecker(config.domainDnsResolvers),
    changed: () => hosts.refresh(),
    log,
  });
  app.addHook('onReady', async () => {
    verification.start();
  });
  app.addHook('onClose', async () => {
    await verification.stop();
  });
  const domains = new DomainService({
    store: new DomainStore(app.db, app.pool, app.breaker),
    hosts,
    shortUrls,
    propagation,
    codeSpace,
    policy: targetPolicyOf(config, (host) => hosts.serves(host)),
    // The deployment's own names: the default domain's and the API's.
    reservedHosts: [...config.defaultDomainHosts, ...config.apiHosts.filter((host) => host !== '*'), ...config.dubApiHosts],
    verification,
  });
  await app.register(domainsRoutes, { domains, defaultRoot: config.rootRedirect === 'none' ? null : config.rootRedirect });
  await app.register(domainCheckRoutes, domainChecks(app, { config, log }, verificationStore));
  app.decorate('shortUrls', shortUrls);
  app.decorate('domainService', domains);
}

/** GET /domains/:host/check's parts: the checker as configured, and its budget per workspace. */
function domainChecks(app: FastifyInstance, { config, log }: Pick<PartOptions, 'config' | 'log'>, store: VerificationStore) {
  const checker = new DomainChecker({
    servers: config.domainDnsResolvers,
    targetHost: config.domainTargetHost ?? null,
    targetAddresses: config.domainTargetAddresses,
    tlsPort: config.domainCheckTlsPort,
    extraCa: config.domainCheckCaFile === undefined ? null : readFileSync(config.domainCheckCaFile, 'utf8'),
    timeoutMs: config.domainCheckTimeoutMs,
  });
  const checks = new DomainCheckService({
    checker,
    find: (workspaceId, host) => store.find(workspaceId, host),
    defaultHost: () => app.hosts.defaultDomain.host,
  });
  const counts = clientCounter(app.redis?.client ?? null, config.redisKeyPrefix, log, 'domain-checks:', 'domain check limits');
  const budget = new AttemptBudget(counts, config.domainChecksPerMinute, CHECK_WINDOW_MS);
  return { checks, budget, perMinute: config.domainChecksPerMinute };
}

export default fp(domainsPart, { name: 'domains', dependencies: ['postgres', 'read-path', 'auth'] });
