// GET, POST, PATCH and DELETE /domains: a workspace's short domains and their fallbacks. Any key of
// the workspace lists them (a create names one); admins add, change and remove them. What the
// redirect path serves follows within REFRESH_MS on every instance (resolve/hosts.ts), at once on
// this one. A domain is removed only when no live link is on it, or with its links moved to
// another of the workspace's domains; links moved are announced to Redis and every instance like
// any change, under their new keys, and their old keys as deleted.

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, requireKey } from '../auth/authenticate.ts';
import { checkDomainHost, keyOf, LOOPBACK_HOSTS, splitKey } from '../core/domains.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { checkTargetUrl } from '../core/url-rules.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { insertDomain, readWorkspaceDomains, removeDomain, updateDomain, type DomainFallbacks, type DomainRecord } from './store.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError, ERRORS } from '../errors.ts';
import type { CodeSpace } from '../resolve/code-space.ts';
import type { HostTable } from '../resolve/hosts.ts';
import type { LinkChanges } from '../write/link-changes.ts';
import type pg from 'pg';
import { SECURITY } from '../api/schemas.ts';
import type { ShortUrls } from './short-urls.ts';
import { CreateDomainBody, DomainList, DomainParams, DomainView, PatchDomainBody, RemoveDomainQuery } from './schemas.ts';
import { errorResponses as errors } from '../errors.ts';

export interface DomainsDeps {
  db: Queryable;
  /** For the removal's transaction. */
  pool: pg.Pool;
  breaker: DbBreaker;
  hosts: Pick<HostTable, 'refresh' | 'defaultDomain' | 'byHost'>;
  shortUrls: ShortUrls;
  links: Pick<LinkChanges, 'announce'>;
  codeSpace: Pick<CodeSpace, 'added' | 'ackDelayMs'>;
  /** Where fallbacks may point: the rules of a link's target. */
  policy: TargetPolicy;
  /** Where the default domain's root goes (ROOT_REDIRECT); null: 404. */
  defaultRoot: string | null;
}

const FALLBACKS = ['rootRedirect', 'notFoundRedirect', 'expiredRedirect'] as const;

/** The fallbacks given in a body, checked as link targets (400 with the field named); undefined: not given. */
function checkFallbacks(body: Partial<Record<(typeof FALLBACKS)[number], string | null>>, policy: TargetPolicy): Partial<DomainFallbacks> {
  const checked: Partial<Record<(typeof FALLBACKS)[number], string | null>> = {};
  for (const field of FALLBACKS) {
    const value = body[field];
    if (value === undefined) continue;
    if (value === null || value.trim() === '') {
      checked[field] = null;
      continue;
    }
    const verdict = checkTargetUrl(value, policy);
    if (!verdict.ok) throw new AppError(verdict.code, ERRORS[verdict.code].message.replace(/^url\b/, field), { field });
    checked[field] = verdict.url;
  }
  return checked;
}

/** A stored host name from a route parameter or query: 404 if it cannot be one. */
function hostParam(raw: string): string {
  const checked = checkDomainHost(raw);
  if (!checked.ok) throw new AppError('DOMAIN_NOT_FOUND');
  return checked.host;
}

export async function domainsRoutes(plain: FastifyInstance, deps: DomainsDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, breaker, hosts, policy } = deps;

  const view = (domain: DomainRecord, links: number) => ({
    host: domain.host ?? hosts.defaultDomain.host,
    isDefault: domain.host === null,
    rootRedirect: domain.host === null ? deps.defaultRoot : domain.rootRedirect,
    notFoundRedirect: domain.notFoundRedirect,
    expiredRedirect: domain.expiredRedirect,
    links,
    createdAt: domain.host === null ? null : domain.createdAt.toISOString(),
  });

  app.get(
    '/domains',
    {
      schema: {
        summary: 'The short domains links of the workspace may be on',
        description:
          "The default domain (BASE_URL's host, every workspace's) first, then the workspace's own by host, each with how many " +
          "of the workspace's links are on it. Any key of the workspace.",
        tags: ['domains'],
        security: SECURITY,
        response: { 200: DomainList, ...errors(401, 503) },
      },
    },
    async (request) => {
      const key = requireKey(request);
      const domains = await breaker.run(() => readWorkspaceDomains(db, key.workspaceId));
      return { domains: domains.map((domain) => view(domain, domain.links)) };
    },
  );

  app.post(
    '/domains',
    {
      schema: {
        summary: 'Add a short domain to the workspace',
        description:
          'Admins only. The host is normalised (lowercase, IDN as punycode, no trailing dot); point its DNS at the deployment ' +
          'and serve TLS for it first. Each fallback is optional and checked like a link target: where the root goes, where an ' +
          'unknown code goes (instead of 404), and where an expired or disabled link goes (instead of 410). Every instance ' +
          'serves the domain within 2 seconds.',
        tags: ['domains'],
        security: SECURITY,
        body: CreateDomainBody,
        response: { 201: DomainView, ...errors(400, 401, 403, 409, 415, 503) },
      },
    },
    async (request, reply) => {
      const key = requireAdmin(request, 'domains');
      const checked = checkDomainHost(request.body.host);
      if (!checked.ok) throw new AppError('DOMAIN_INVALID', checked.message, { field: 'host' });
      const { host } = checked;
      if (host === hosts.defaultDomain.host || LOOPBACK_HOSTS.includes(host)) {
        throw new AppError('DOMAIN_TAKEN', "This host is the default domain's (BASE_URL).", { field: 'host' });
      }
      const fallbacks = checkFallbacks(request.body, policy);
      const added = await breaker.run(() =>
        insertDomain(db, key.workspaceId, host, {
          rootRedirect: fallbacks.rootRedirect ?? null,
          notFoundRedirect: fallbacks.notFoundRedirect ?? null,
          expiredRedirect: fallbacks.expiredRedirect ?? null,
        }),
      );
      if (added === undefined) throw new AppError('DOMAIN_TAKEN', undefined, { field: 'host' });
      await hosts.refresh();
      return reply.code(201).send(view(added, 0));
    },
  );

  app.patch(
    '/domains/:host',
    {
      schema: {
        summary: "Change a domain's fallbacks",
        description: 'Admins only. A fallback left out is kept; null removes it. Every instance follows within 2 seconds.',
        tags: ['domains'],
        security: SECURITY,
        params: DomainParams,
        body: PatchDomainBody,
        response: { 200: DomainView, ...errors(400, 401, 403, 404, 415, 503) },
      },
    },
    async (request) => {
      const key = requireAdmin(request, 'domains');
      const host = hostParam(request.params.host);
      if (host === hosts.defaultDomain.host) throw new AppError('DOMAIN_DEFAULT');
      const change = checkFallbacks(request.body, policy);
      const changed = await breaker.run(() => updateDomain(db, key.workspaceId, host, change));
      if (changed === undefined) throw new AppError('DOMAIN_NOT_FOUND');
      await hosts.refresh();
      return view(changed, changed.links);
    },
  );

  app.delete(
    '/domains/:host',
    {
      schema: {
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
      },
    },
    async (request, reply) => {
      const key = requireAdmin(request, 'domains');
      const host = hostParam(request.params.host);
      if (host === hosts.defaultDomain.host) throw new AppError('DOMAIN_DEFAULT');
      const moveTo = request.query.moveLinksTo;
      const target = moveTo === undefined ? null : await deps.shortUrls.domainOf(moveTo, key.workspaceId, 'DOMAIN_NOT_FOUND');
      if (target !== null && target.host === host)
        throw new AppError('DOMAIN_MOVE_CONFLICT', 'moveLinksTo names the domain being removed.');
      const removal = await breaker.run(() => removeDomain(deps.pool, key.workspaceId, host, target?.id ?? null));
      if (removal.outcome === 'not-found') throw new AppError('DOMAIN_NOT_FOUND');
      if (removal.outcome === 'in-use') throw new AppError('DOMAIN_IN_USE');
      if (removal.outcome === 'conflict') {
        throw new AppError('DOMAIN_MOVE_CONFLICT', `These aliases exist on ${moveTo ?? ''} already: ${removal.codes.join(', ')}.`);
      }
      // Old keys as deleted (a tombstone one version newer than any copy), new keys as the links.
      const gone = removal.left.map((left) => ({
        ...splitKey(left),
        url: 'https://removed.invalid/',
        expiresAt: null,
        disabled: false,
        deleted: true,
        version: 2 ** 31 - 1,
        options: null,
      }));
      for (const link of removal.moved) deps.codeSpace.added(keyOf(link));
      await deps.links.announce([...removal.moved, ...gone]);
      await hosts.refresh();
      // As a create of an alias waits: until no instance can still take a moved alias for an impossible code.
      const wait = Math.max(0, ...removal.moved.map((link) => deps.codeSpace.ackDelayMs(link.code)));
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return reply.code(204).send(null);
    },
  );
}
