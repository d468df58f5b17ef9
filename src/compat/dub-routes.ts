// Dub's API (https://dub.co/docs/api-reference), so that Dub's clients (the `dub` npm SDK, scripts
// written against api.dub.co) work with a base URL and one of our keys as their Bearer token. Dub's
// paths sit at the root (/links, /domains, /tags) where ours do, so they answer on host names of
// their own (DUB_API_HOSTS) through Fastify's host constraint: on those hosts a Dub route wins over
// ours of the same path, on every other host ours answer as before. A thin adapter: creates through
// the write queue and the create limits, changes and deletions with their roles and audit, the list,
// the stats; answers in Dub's shapes, errors in Dub's (dub-errors.ts). Coverage: docs/compat.md#dub.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../audit/audit.ts';
import { requireKey } from '../auth/authenticate.ts';
import type { Principal } from '../auth/roles.ts';
import { AppError, isAppError } from '../errors.ts';
import { creatorOf } from '../links/create-routes.ts';
import type { CreatedLinkState, Creator } from '../links/creates.ts';
import type { LinkDetails } from '../links/store.ts';
import { dubAnalytics, readAnalyticsQuery, statsFor } from './dub-analytics.ts';
import { createBody, parseLinkId, patchBody } from './dub-bodies.ts';
import { dubErrorOf, registerDubErrors } from './dub-errors.ts';
import { dubLink, dubTag } from './dub-views.ts';
import { listParams, stringQuery } from './dub-queries.ts';
import { createdDetails, jsonObject, peerRoutes, wholeNumber, type CompatServices } from './adapter.ts';
import { pageAt } from './pages.ts';

export interface DubDeps extends CompatServices {
  /** DUB_API_HOSTS: the host names Dub's routes answer on. */
  readonly hosts: readonly string[];
}

/** Dub's own caps: 100 links a page, 100 links a bulk. */
const PAGE_SIZE_MAX = 100;
const BULK_MAX = 100;

/** Fastify's host constraint for `hosts`: each name, with any port (Host carries it), in any case. */
export function hostConstraint(hosts: readonly string[]): RegExp {
  const names = hosts.map((host) => host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return new RegExp(`^(?:${names})(?::\\d{1,5})?$`, 'i');
}

/** What Dub's route groups share: the services, the route options, the views. */
interface DubContext {
  readonly deps: DubDeps;
  readonly defaultHost: string;
  /** Route options of every Dub route: its hosts. */
  readonly on: { readonly constraints: { readonly host: RegExp } };
  /** Of the creates: the hosts and the create limits. */
  readonly createOn: { readonly constraints: { readonly host: RegExp }; readonly config?: Record<string, unknown> };
  readonly view: (link: LinkDetails) => ReturnType<typeof dubLink>;
  readonly created: (link: CreatedLinkState, creator: Creator) => ReturnType<typeof dubLink>;
  /** The link a Dub id names, in the key's workspace. */
  readonly byId: (key: Principal, id: string) => Promise<LinkDetails>;
  readonly change: (request: FastifyRequest, key: Principal, link: LinkDetails, body: unknown) => Promise<LinkDetails>;
}

export async function dubRoutes(app: FastifyInstance, deps: DubDeps): Promise<void> {
  const { links, shortUrls } = deps;
  const defaultHost = deps.domains.defaultHost;
  const on = { constraints: { host: hostConstraint(deps.hosts) } };
  peerRoutes(app);
  registerDubErrors(app);
  const view = (link: LinkDetails) => dubLink(link, shortUrls);
  const context: DubContext = {
    deps,
    defaultHost,
    on,
    createOn: { ...on, ...deps.createRoute },
    view,
    created: (link, creator) => view(createdDetails(link, creator, shortUrls)),
    byId: (key, id) => {
      const { host, code } = parseLinkId(id);
      return links.find(key, host, code);
    },
    change: (request, key, link, body) =>
      links.change(key, link.domainHost ?? undefined, link.code, patchBody(body, link, defaultHost), actorOf(key, request.ip)),
  };
  linkRoutes(app, context);
  bulkRoutes(app, context);
  workspaceRoutes(app, context);
}

/** Dub's routes of one link: create, read, list, count, change, upsert, delete. */
function linkRoutes(app: FastifyInstance, c: DubContext): void {
  const { defaultHost, on, createOn, view, created, byId, change } = c;
  const { creates, links, lists } = c.deps;
  app.post('/links', createOn, async (request) => {
    const creator = creatorOf(request, true);
    const { link } = await creates.create(createBody(request.body, defaultHost), creator, undefined);
    // Dub answers a create 200, not 201.
    return created(link, creator);
  });

  app.get('/links/info', on, async (request) => {
    const key = requireKey(request);
    const query = stringQuery(request, ['linkId', 'domain', 'key', 'externalId']);
    if (query.externalId !== undefined)
      throw new AppError('LIST_QUERY_INVALID', 'externalId: links have no external ids here; use linkId.');
    if (query.linkId !== undefined) return view(await byId(key, query.linkId));
    if (query.domain === undefined || query.key === undefined)
      throw new AppError('LIST_QUERY_INVALID', 'Give linkId, or domain and key.', { field: 'linkId' });
    return view(await links.find(key, query.domain, query.key));
  });

  app.get('/links', on, async (request) => {
    const key = requireKey(request);
    const query = stringQuery(request, [
      'search',
      'page',
      'pageSize',
      'tagIds',
      'tagNames',
      'tagId',
      'domain',
      'sortBy',
      'sortOrder',
      'sort',
      'showArchived',
      'withTags',
    ]);
    const page = wholeNumber(query.page, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const pageSize = wholeNumber(query.pageSize, 'pageSize', PAGE_SIZE_MAX, 1, PAGE_SIZE_MAX);
    const { page: listed } = await pageAt(lists, key.workspaceId, {
      params: await listParams(query),
      ...(await domainFilter(c, query.domain, key)),
      skip: (page - 1) * pageSize,
      limit: pageSize,
      counted: false,
    });
    return listed.map(view);
  });

  app.get('/links/count', on, async (request) => {
    const key = requireKey(request);
    const query = stringQuery(request, ['search', 'tagIds', 'tagNames', 'tagId', 'domain', 'showArchived', 'withTags', 'groupBy']);
    if (query.groupBy !== undefined) throw new AppError('LIST_QUERY_INVALID', 'groupBy: counts are not grouped here.');
    const { total } = await pageAt(lists, key.workspaceId, {
      params: await listParams(query),
      ...(await domainFilter(c, query.domain, key)),
      skip: 0,
      limit: 1,
    });
    return total;
  });

  app.patch('/links/:linkId', on, async (request) => {
    const key = requireKey(request);
    const link = await byId(key, (request.params as { linkId: string }).linkId);
    return view(await change(request, key, link, request.body));
  });

  // Dub's upsert: the workspace's link with this exact URL, changed by the body; else a new one.
  app.put('/links/upsert', createOn, async (request) => {
    const key = requireKey(request);
    const asked = createBody(request.body, defaultHost);
    const existing = await linkWithUrl(c, key, asked.url);
    if (existing === undefined) {
      const creator = creatorOf(request, true);
      const { link } = await creates.create(asked, creator, undefined);
      return created(link, creator);
    }
    const { url: _same, ...rest } = jsonObject(request.body);
    return Object.keys(rest).length === 0 ? view(existing) : view(await change(request, key, existing, rest));
  });

  app.delete('/links/:linkId', on, async (request) => {
    const key = requireKey(request);
    const id = (request.params as { linkId: string }).linkId;
    const { host, code } = parseLinkId(id);
    await links.remove(key, host, code, actorOf(key, request.ip));
    return { id };
  });
}

/** Dub's bulk creates, changes and deletions. */
function bulkRoutes(app: FastifyInstance, c: DubContext): void {
  const { defaultHost, on, createOn, view, created, byId, change } = c;
  const { creates, links } = c.deps;
  app.post(
    '/links/bulk',
    {
      ...createOn,
      // As our bulk's body: the create limits then count each of its links (links/create-limits.ts).
      preValidation: async (request) => {
        if (!Array.isArray(request.body)) throw new AppError('BODY_INVALID', 'The body must be a list of links.');
        if (request.body.length === 0 || request.body.length > BULK_MAX)
          throw new AppError('BODY_INVALID', `A bulk creates 1 to ${BULK_MAX} links.`);
        request.body = { links: request.body };
      },
    },
    async (request) => {
      const creator = { ...creatorOf(request, true), share: 'refuse' as const };
      const items = (request.body as { links: unknown[] }).links;
      return Promise.all(
        items.map(async (item) => {
          try {
            return created((await creates.create(createBody(item, defaultHost), creator, undefined)).link, creator);
          } catch (err) {
            if (!isAppError(err)) throw err;
            return { link: item, error: err.message, code: dubErrorOf(err.code).code };
          }
        }),
      );
    },
  );

  app.patch('/links/bulk', on, async (request) => {
    const key = requireKey(request);
    const body = jsonObject(request.body);
    if (body.externalIds !== undefined) throw new AppError('BODY_INVALID', 'externalIds: links have no external ids here; use linkIds.');
    const ids = body.linkIds;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > BULK_MAX || !ids.every((id) => typeof id === 'string'))
      throw new AppError('BODY_INVALID', `linkIds must be a list of 1 to ${BULK_MAX} link ids.`, { field: 'linkIds' });
    const changed: LinkDetails[] = [];
    // As Dub: ids of no link of the workspace are passed over; the rest change in turn, each by our rules.
    for (const id of new Set(ids)) {
      const link = await byId(key, id).catch(notFoundAsUndefined);
      if (link !== undefined) changed.push(await change(request, key, link, body.data));
    }
    return changed.map(view);
  });

  app.delete('/links/bulk', on, async (request) => {
    const key = requireKey(request);
    const { linkIds } = stringQuery(request, ['linkIds']);
    const ids = [...new Set((linkIds ?? '').split(',').filter((id) => id !== ''))];
    if (ids.length === 0 || ids.length > BULK_MAX)
      throw new AppError('LIST_QUERY_INVALID', `linkIds must name 1 to ${BULK_MAX} links.`, { field: 'linkIds' });
    let deletedCount = 0;
    for (const id of ids) {
      const link = await byId(key, id).catch(notFoundAsUndefined);
      if (link === undefined) continue;
      await links.remove(key, link.domainHost ?? undefined, link.code, actorOf(key, request.ip));
      deletedCount++;
    }
    return { deletedCount };
  });
}

/** Dub's analytics, tags and domains, and its other paths. */
function workspaceRoutes(app: FastifyInstance, c: DubContext): void {
  const { deps, on, view, byId } = c;
  const { links, lists } = c.deps;
  app.get('/analytics', on, async (request) => {
    const key = requireKey(request);
    if (deps.stats === null) throw new AppError('ROUTE_NOT_FOUND', 'Analytics are not served by this deployment.');
    const query = request.query as Record<string, string | undefined>;
    const asked = readAnalyticsQuery(query);
    let link: LinkDetails | undefined;
    if (query.linkId !== undefined) link = await byId(key, query.linkId);
    else if (query.key !== undefined) link = await links.find(key, query.domain, query.key);
    else if (query.domain !== undefined) throw new AppError('STATS_QUERY_INVALID', 'domain: give it with key (one link), or leave it out.');
    const answer = await statsFor(deps.stats, key, asked, link === undefined ? undefined : { code: link.code, host: link.domainHost });
    if (asked.groupBy !== 'top_links') return dubAnalytics(asked, answer);
    const top = 'topLinks' in answer ? answer.topLinks : [];
    return Promise.all(
      top.map(async (entry) => {
        const found = view(await links.find(key, entry.domain, entry.code));
        const { id, domain, key: code, shortLink, url, title, comments, createdAt } = found;
        return { link: id, id, domain, key: code, shortLink, url, title, comments, createdAt, clicks: entry.clicks };
      }),
    );
  });

  app.get('/tags', on, async (request) => {
    const key = requireKey(request);
    const query = stringQuery(request, ['search', 'page', 'pageSize', 'ids', 'sortBy', 'sortOrder']);
    const page = wholeNumber(query.page, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const pageSize = wholeNumber(query.pageSize, 'pageSize', PAGE_SIZE_MAX, 1, PAGE_SIZE_MAX);
    const search = query.search?.toLowerCase();
    const ids = query.ids?.split(',');
    const tags = (await lists.tags(key.workspaceId))
      .map(({ tag }) => tag)
      .filter((tag) => (search === undefined || tag.toLowerCase().includes(search)) && (ids === undefined || ids.includes(tag)));
    return tags.slice((page - 1) * pageSize, page * pageSize).map(dubTag);
  });

  app.post('/tags', on, async (request) => {
    requireKey(request);
    throw new AppError(
      'BODY_INVALID',
      'Tags here are labels on links: give tagNames when creating or updating a link, and the tag exists.',
    );
  });

  app.get('/domains', on, async (request) => {
    const key = requireKey(request);
    const query = stringQuery(request, ['archived', 'search', 'page', 'pageSize']);
    const page = wholeNumber(query.page, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const pageSize = wholeNumber(query.pageSize, 'pageSize', 50, 1, 50);
    const own = (await deps.domains.list(key.workspaceId)).filter(
      (domain) => domain.host !== null && (query.search === undefined || domain.host.includes(query.search.toLowerCase())),
    );
    return own.slice((page - 1) * pageSize, page * pageSize).map((domain) => ({
      id: `dom_${domain.id}`,
      slug: domain.host,
      verified: domain.verification.status === 'verified',
      primary: false,
      archived: false,
      placeholder: null,
      expiredUrl: domain.expiredRedirect,
      notFoundUrl: domain.notFoundRedirect,
      logo: null,
      assetLinks: null,
      appleAppSiteAssociation: null,
      createdAt: domain.createdAt.toISOString(),
      updatedAt: domain.createdAt.toISOString(),
      registeredDomain: null,
    }));
  });

  app.post('/domains', on, domainsElsewhere);
  app.patch('/domains/:slug', on, domainsElsewhere);
  app.delete('/domains/:slug', on, domainsElsewhere);

  // Dub's other paths (customers, events, partners, folders, ...) on a Dub host: Dub's 404, not ours.
  app.route({
    method: ['DELETE', 'PATCH', 'POST', 'PUT'],
    url: '/*',
    ...on,
    handler: async () => {
      throw new AppError('ROUTE_NOT_FOUND', 'This endpoint of Dub’s API is not served here (see docs/compat.md#dub).');
    },
  });
}

async function domainsElsewhere(request: FastifyRequest): Promise<never> {
  requireKey(request);
  throw new AppError(
    'ROUTE_NOT_FOUND',
    'Add, change and remove domains with /domains of this service’s own API: they are verified by DNS first.',
  );
}

async function domainFilter(c: DubContext, host: string | undefined, key: Principal): Promise<{ domainId?: number }> {
  if (host === undefined || host === '') return {};
  return { domainId: (await c.deps.shortUrls.domainOf(host, key.workspaceId)).id };
}

/** The newest of the workspace's links whose target is `url` exactly (our list's search, then compared whole). */
async function linkWithUrl(c: DubContext, key: Principal, url: string): Promise<LinkDetails | undefined> {
  let normal: string;
  try {
    normal = new URL(url).href;
  } catch {
    return undefined;
  }
  const q = url.length > 100 ? url.slice(-100) : url;
  const { page } = await pageAt(c.deps.lists, key.workspaceId, { params: { q }, skip: 0, limit: PAGE_SIZE_MAX, counted: false });
  return page.find((link) => link.url === url || link.url === normal);
}

function notFoundAsUndefined(err: unknown): undefined {
  if (isAppError(err) && err.statusCode === 404) return undefined;
  throw err;
}
