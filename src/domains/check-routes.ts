// GET /domains/:host/check: whether a domain points to the service and serves a valid certificate
// for its name, and what to set when not. Admins and members run it (it changes nothing);
// DOMAIN_CHECKS_PER_MINUTE a workspace, since each makes DNS queries and a TLS connection.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AttemptBudget } from '../api/attempt-budget.ts';
import { SECURITY } from '../api/schemas.ts';
import { requireKey } from '../auth/authenticate.ts';
import { AppError, errorResponses as errors } from '../errors.ts';
import type { DomainCheck } from './check.ts';
import { DomainCheckView } from './check-schemas.ts';
import type { DomainCheckService } from './check-service.ts';
import { DomainParams } from './schemas.ts';

export interface DomainCheckRoutesDeps {
  readonly checks: DomainCheckService;
  /** Checks per workspace in fixed one-minute windows, shared by the instances through Redis when it is on. */
  readonly budget: AttemptBudget;
  readonly perMinute: number;
}

export const CHECK_WINDOW_MS = 60_000;

const CHECK = {
  summary: "Check a domain's DNS and TLS",
  description:
    "Admins and members. Looks up the domain's CNAME chain, A and AAAA records (DOMAIN_DNS_RESOLVERS) and says whether they point " +
    'to the service (DOMAIN_TARGET_HOST, DOMAIN_TARGET_ADDRESSES), with the records to set; once they do, connects to it on ' +
    'DOMAIN_CHECK_TLS_PORT with its name (SNI) and says whether its certificate is in date, covers it and is from a trusted ' +
    'authority. Each part answers ok or a problem (a stable code and a sentence); a server that does not answer is reported ' +
    `within DOMAIN_CHECK_TIMEOUT_MS. DOMAIN_CHECKS_PER_MINUTE a workspace (429 DOMAIN_CHECK_RATE_LIMITED, with Retry-After).`,
  tags: ['domains'],
  security: SECURITY,
  params: DomainParams,
  response: { 200: DomainCheckView, ...errors(401, 403, 404, 429, 503) },
};

function view(check: DomainCheck) {
  const { dns, tls } = check;
  return {
    host: check.host,
    checkedAt: check.checkedAt.toISOString(),
    dns: {
      ok: dns.ok,
      summary: dns.summary,
      problem: dns.problem,
      target: { host: check.target.host, addresses: [...check.target.addresses] },
      found: { cname: [...dns.found.cname], a: [...dns.found.a], aaaa: [...dns.found.aaaa] },
      records: [...dns.records],
    },
    tls: {
      ok: tls.ok,
      summary: tls.summary,
      problem: tls.problem,
      address: tls.address,
      port: tls.port,
      certificate: tls.certificate === null ? null : { ...tls.certificate, altNames: [...tls.certificate.altNames] },
    },
  };
}

export async function domainCheckRoutes(plain: FastifyInstance, deps: DomainCheckRoutesDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/domains/:host/check', { schema: CHECK }, async function checkDomain(request, reply) {
    const key = requireKey(request);
    if (key.role === 'viewer') throw new AppError('ROLE_FORBIDDEN', 'Admins and members check domains; viewers do not.');
    // Counted before the lookup: each check is DNS queries and a connection this service makes.
    const reserved = await deps.budget.take(String(key.workspaceId));
    if (!reserved.ok) {
      const seconds = reserved.retryAfterSeconds;
      reply.header('retry-after', String(seconds));
      throw new AppError(
        'DOMAIN_CHECK_RATE_LIMITED',
        `This workspace checked its domains ${deps.perMinute} times in the last minute; retry after ${seconds} s.`,
      );
    }
    return view(await deps.checks.check(key.workspaceId, request.params.host));
  });
}
