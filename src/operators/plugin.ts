// The deployment's operators as a part (docs/operators.md): the public abuse report form on every
// short domain, and the operators' queue and workspaces API. After links: it acts through the
// links' changes, the blocklists and their sweeper.

import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AttemptBudget } from '../api/attempt-budget.ts';
import { clientCounter } from '../api/counters.ts';
import { deriveKey } from '../core/keys.ts';
import type { PartOptions } from '../part.ts';
import { queueRoutes } from './queue-routes.ts';
import { REPORT_WINDOW_MS, REPORTS_PER_CLIENT, REPORTS_PER_HOUR, reportRoutes } from './report-routes.ts';
import { ReportStore } from './report-store.ts';
import { Operators } from './service.ts';

async function operatorsPart(app: FastifyInstance, { config, log }: PartOptions): Promise<void> {
  const counter = (namespace: string, what: string) =>
    clientCounter(app.redis?.client ?? null, config.redisKeyPrefix, log, namespace, what);
  const operators = new Operators({
    pool: app.pool,
    breaker: app.breaker,
    links: app.links,
    propagation: app.propagation,
    blocklists: app.blocklists,
    linkSafety: app.linkSafety,
    forgetCredentials: () => app.auth.credentials.forgetAll(),
    log,
  });
  await app.register(reportRoutes, {
    hosts: app.hosts,
    hostOf: app.hostOf,
    clientAddress: app.clientAddress,
    shortUrls: app.shortUrls,
    reports: new ReportStore(app.db, app.breaker),
    perClient: new AttemptBudget(counter('reports:', 'abuse report limits'), REPORTS_PER_CLIENT, REPORT_WINDOW_MS),
    overall: new AttemptBudget(counter('reports-all:', 'abuse report limits'), REPORTS_PER_HOUR, REPORT_WINDOW_MS),
    tokenKey: deriveKey(config.codeSecret, 'report-form'),
  });
  await app.register(queueRoutes, { operators, shortUrls: app.shortUrls });
}

export default fp(operatorsPart, { name: 'operators', dependencies: ['links', 'auth'] });
