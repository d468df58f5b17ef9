// GET, POST, PATCH and DELETE /domains: a workspace's short domains and their fallbacks. Any key of
// the workspace lists them (a create names one); admins add, change and remove them. The rules are
// the service's (service.ts); here each request is read, handed on, and its answer shaped.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { SECURITY } from '../api/schemas.ts';
import { actorOf } from '../audit/audit.ts';
import { requireAdmin, requireKey } from '../auth/authenticate.ts';
import { errorResponses as errors } from '../errors.ts';
import { CreateDomainBody, DomainList, DomainParams, DomainView, PatchDomainBody, RemoveDomainQuery } from './schemas.ts';
import type { DomainService } from './service.ts';
import type { DomainRecord } from '../core/domains.ts';
import { recordName } from '../core/domain-verification.ts';

export interface DomainsDeps {
  readonly domains: DomainService;
  /** Where the default domain's root goes (ROOT_REDIRECT); null: 404. */
  readonly defaultRoot: string | null;
}

const LIST = {
  summary: 'The short domains links of the workspace may be on',
  description:
    "The default domain (BASE_URL's host, every workspace's) first, then the workspace's own by host, each with how many " +
    "of the workspace's links are on it. Any key of the workspace.",
  tags: ['domains'],
  security: SECURITY,
  response: { 200: DomainList, ...errors(401, 503) },
};

const ADD = {
  summary: 'Add a short domain to the workspace',
  description:
    "Admins only. The host is normalised (lowercase, IDN as punycode, no trailing dot); the deployment's own names " +
    "(BASE_URL's, DEFAULT_DOMAIN_HOSTS) are refused (409 DOMAIN_TAKEN), and so is a host another workspace added and is " +
    'verifying (409 DOMAIN_CLAIM_PENDING). The domain starts pending: it serves nothing until the TXT record ' +
    '`verification.record` shows is published and found (POST /domains/:host/verify, or the periodic check). Point its DNS ' +
    'at the deployment and serve TLS for it too. Each fallback is optional and checked like a link target: where the root goes, where an ' +
    'unknown code goes (instead of 404), and where an expired or disabled link goes (instead of 410). Once verified, ' +
    'every instance serves the domain within 2 seconds.',
  tags: ['domains'],
  security: SECURITY,
  body: CreateDomainBody,
  response: { 201: DomainView, ...errors(400, 401, 403, 409, 415, 503) },
};

const CHANGE = {
  summary: "Change a domain's fallbacks",
  description: 'Admins only. A fallback left out is kept; null removes it. Every instance follows within 2 seconds.',
  tags: ['domains'],
  security: SECURITY,
  params: DomainParams,
  body: PatchDomainBody,
  response: { 200: DomainView, ...errors(400, 401, 403, 404, 415, 503) },
};

const REMOVE = {
  summary: 'Remove a short domain',
  description:
    'Admins only. Refused (409 DOMAIN_IN_USE) while live links are on it, unless moveLinksTo names another domain of the ' +
    'workspace (or the default): its links then move there with their codes, clicks and history, and answer on that ' +
    "domain's host (409 DOMAIN_MOVE_CONFLICT, and nothing moves, if an alias exists there already). Its host then answers " +
    '404 HOST_NOT_SERVED on every instance within 2 seconds.',
  tags: ['domains'],
  security: SECURITY,
  params: DomainParams,
  querystring: RemoveDomainQuery,
  response: { 204: { type: 'null', description: 'Removed.' }, ...errors(400, 401, 403, 404, 409, 503) },
};

const VERIFY = {
  summary: "Check a domain's DNS record now",
  description:
    'Admins only. Looks up the TXT record `_shortener.<host>` (DOMAIN_DNS_RESOLVERS) and answers the domain verified, served by ' +
    'every instance within 2 seconds; 409 DOMAIN_VERIFICATION_FAILED (the message says what was found) if the record does not ' +
    'hold the token, which a verified domain counts as a failed check; 503 DOMAIN_DNS_UNAVAILABLE if no server answered. ' +
    'Every domain is also checked every DOMAIN_CHECK_INTERVAL_SECONDS.',
  tags: ['domains'],
  security: SECURITY,
  params: DomainParams,
  response: { 200: DomainView, ...errors(400, 401, 403, 404, 409, 503) },
};

/** What the API shows of a domain's verification; null for the default domain. */
function verificationView(domain: DomainRecord) {
  const { token, status, verifiedAt, lastCheckedAt, failures } = domain.verification;
  if (domain.host === null || token === null) return null;
  return {
    status,
    record: { type: 'TXT' as const, name: recordName(domain.host), value: token },
    verifiedAt: verifiedAt?.toISOString() ?? null,
    lastCheckedAt: lastCheckedAt?.toISOString() ?? null,
    failures,
  };
}

/** A domain as the API shows it. */
function view(domain: DomainRecord, links: number, { domains, defaultRoot }: DomainsDeps) {
  return {
    host: domain.host ?? domains.defaultHost,
    isDefault: domain.host === null,
    rootRedirect: domain.host === null ? defaultRoot : domain.rootRedirect,
    notFoundRedirect: domain.notFoundRedirect,
    expiredRedirect: domain.expiredRedirect,
    links,
    createdAt: domain.host === null ? null : domain.createdAt.toISOString(),
    verification: verificationView(domain),
  };
}

export async function domainsRoutes(plain: FastifyInstance, deps: DomainsDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { domains } = deps;

  app.get('/domains', { schema: LIST }, async function listDomains(request) {
    const key = requireKey(request);
    return { domains: (await domains.list(key.workspaceId)).map((domain) => view(domain, domain.links, deps)) };
  });

  app.post('/domains', { schema: ADD }, async function addDomain(request, reply) {
    const key = requireAdmin(request, 'domains');
    const added = await domains.add(key.workspaceId, request.body.host, request.body, actorOf(key, request.ip));
    return reply.code(201).send(view(added, 0, deps));
  });

  app.patch('/domains/:host', { schema: CHANGE }, async function changeDomain(request) {
    const key = requireAdmin(request, 'domains');
    const changed = await domains.change(key.workspaceId, request.params.host, request.body, actorOf(key, request.ip));
    return view(changed, changed.links, deps);
  });

  app.post('/domains/:host/verify', { schema: VERIFY }, async function verifyDomain(request) {
    const key = requireAdmin(request, 'domains');
    const verified = await domains.verify(key.workspaceId, request.params.host, actorOf(key, request.ip));
    const listed = (await domains.list(key.workspaceId)).find((domain) => domain.id === verified.id);
    return view(verified, listed?.links ?? 0, deps);
  });

  app.delete('/domains/:host', { schema: REMOVE }, async function removeDomain(request, reply) {
    const key = requireAdmin(request, 'domains');
    await domains.remove(key.workspaceId, request.params.host, request.query.moveLinksTo, actorOf(key, request.ip));
    return reply.code(204).send(null);
  });
}
