// Shlink's REST API v3 (`/rest/v3`), so that Shlink's clients (@shlinkio/shlink-js-sdk, Shlink's web
// client, scripts written against a Shlink server) work with a base URL and one of our keys in
// X-Api-Key. A thin adapter: each route reads Shlink's shapes, calls the same services as our own
// routes (creates through the write queue and the create limits, changes and deletions with their
// roles and audit, the list, the stats), and answers in Shlink's shapes, errors as Shlink's problem
// details (shlink-problems.ts). Answers carry CORS headers for any origin, as Shlink's do: its web
// client runs in the browser on another origin, and the key travels in a header, never a cookie.
// Coverage, and what is refused and why: docs/compat.md#shlink.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registerErrorHandlers } from '../api/errors.ts';
import { actorOf } from '../audit/audit.ts';
import { requireKey } from '../auth/authenticate.ts';
import type { Principal } from '../auth/roles.ts';
import { utcDay } from '../core/day-range.ts';
import { DEFAULT_DOMAIN_ID } from '../core/domains.ts';
import { AppError } from '../errors.ts';
import { creatorOf } from '../links/create-routes.ts';
import type { LinkDetails } from '../links/store.ts';
import { acceptEmptyJsonBodies, bodyOf, createdDetails, peerRoutes, wholeNumber, type CompatServices } from './adapter.ts';
import { OFFSET_MAX, pageAt } from './pages.ts';
import { createBody, editBody, invalid, shortUrlView } from './shlink-bodies.ts';
import { shlinkProblem } from './shlink-problems.ts';

export interface ShlinkDeps extends CompatServices {
  /** FORWARD_QUERY: a link's forwardQuery when it does not choose. */
  readonly forwardQuery: boolean;
}

/**
 * The Shlink version whose API this adapter answers as, in /rest/health: Shlink's web client turns
 * features on by it. 4.0: API v3's shapes, no redirect rules (4.3), no per-key filters (4.6).
 */
export const SHLINK_VERSION = '4.0.0';

const ITEMS_DEFAULT = 10;
/** Our list's largest page. */
const ITEMS_MAX = 100;
const DAY_MS = 86_400_000;
/** The days `/visits` and tag stats sum: the year analytics keeps by default (ANALYTICS_RETENTION_DAYS). */
const VISITS_DAYS = 365;

const ORDERS: Readonly<Record<string, 'created' | 'clicks'>> = {
  'dateCreated-DESC': 'created',
  'visits-DESC': 'clicks',
  'nonBotVisits-DESC': 'clicks',
};

export async function shlinkRoutes(app: FastifyInstance, deps: ShlinkDeps): Promise<void> {
  peerRoutes(app);
  registerErrorHandlers(app, shlinkProblem);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
  });
  // A browser's preflight for X-Api-Key and a JSON body.
  app.options('/*', async (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE')
      .header('access-control-allow-headers', 'X-Api-Key, Content-Type, Accept')
      .header('access-control-max-age', '3600')
      .send(),
  );
  acceptEmptyJsonBodies(app);

  app.get('/health', async () => health());
  shortUrlRoutes(app, deps);
  visitRoutes(app, deps);
  tagAndDomainRoutes(app, deps);
}

/** The short URLs: list, create, get, edit, delete. */
function shortUrlRoutes(app: FastifyInstance, deps: ShlinkDeps): void {
  const { creates, links, lists, shortUrls } = deps;
  const view = (link: LinkDetails) => shortUrlView(link, shortUrls, deps.forwardQuery);
  /** The host a `domain` parameter names for a link's address: absent, or the default's, is the default domain. */
  const hostOf = (request: FastifyRequest): string | undefined => {
    const domain = (request.query as Record<string, unknown>).domain;
    if (domain === undefined || domain === '' || domain === 'DEFAULT' || domain === deps.domains.defaultHost) return undefined;
    if (typeof domain !== 'string') throw invalid('domain', 'domain must be a host name.');
    return domain;
  };

  app.get('/short-urls', async (request) => {
    const key = requireKey(request);
    const query = request.query as Record<string, unknown>;
    const itemsPerPage = wholeNumber(query.itemsPerPage, 'itemsPerPage', ITEMS_DEFAULT, 1, ITEMS_MAX);
    const page = wholeNumber(query.page, 'page', 1, 1, OFFSET_MAX);
    const params = await listParams(query, key, deps);
    const skip = (page - 1) * itemsPerPage;
    const { total, page: found } = await pageAt(lists, key.workspaceId, { ...params, skip, limit: itemsPerPage });
    return {
      shortUrls: {
        data: found.map(view),
        pagination: {
          currentPage: page,
          pagesCount: Math.ceil(total / itemsPerPage),
          itemsPerPage,
          itemsInCurrentPage: found.length,
          totalItems: total,
        },
      },
    };
  });

  // Shlink answers a create 200, not 201.
  app.post('/short-urls', deps.createRoute, async (request) => {
    const creator = creatorOf(request, deps.keyRequired);
    const { link } = await creates.create(createBody(bodyOf(request)), creator, undefined);
    return view(createdDetails(link, creator, shortUrls));
  });

  app.get('/short-urls/:shortCode', async (request) => view(await links.find(requireKey(request), hostOf(request), codeOf(request))));

  app.patch('/short-urls/:shortCode', async (request) => {
    const key = requireKey(request);
    const host = hostOf(request);
    const current = await links.find(key, host, codeOf(request));
    const change = editBody(bodyOf(request), current);
    return view(await links.change(key, host, current.code, change, actorOf(key, request.ip)));
  });

  app.delete('/short-urls/:shortCode', async (request, reply) => {
    const key = requireKey(request);
    await links.remove(key, hostOf(request), codeOf(request), actorOf(key, request.ip));
    return reply.code(204).send();
  });
}

/** The visit counts; single visits are refused. */
function visitRoutes(app: FastifyInstance, deps: ShlinkDeps): void {
  app.get('/short-urls/:shortCode/visits', noVisitList);
  app.get('/tags/:tag/visits', noVisitList);
  app.get('/domains/:domain/visits', noVisitList);
  app.get('/visits/orphan', noVisitList);
  app.get('/visits/non-orphan', noVisitList);
  app.delete('/short-urls/:shortCode/visits', async () => {
    throw new AppError('ROUTE_NOT_FOUND', 'Clicks are not deleted here: they leave analytics after ANALYTICS_RETENTION_DAYS.');
  });
  app.delete('/visits/orphan', async () => {
    throw new AppError('ROUTE_NOT_FOUND', 'Orphan visits are not deleted here: they leave analytics after ANALYTICS_RETENTION_DAYS.');
  });
  app.get('/short-urls/:shortCode/redirect-rules', noRules);
  app.post('/short-urls/:shortCode/redirect-rules', noRules);

  app.get('/visits', async (request) => {
    const key = requireKey(request);
    if (deps.stats === null) throw new AppError('ROUTE_NOT_FOUND', 'Visits are not served by this deployment.');
    const now = Date.now();
    const stats = await deps.stats.workspace(key.workspaceId, { from: utcDay(now - (VISITS_DAYS - 1) * DAY_MS), to: utcDay(now) });
    const { clicks, botClicks } = stats.range;
    const orphans = stats.orphans.visits;
    return {
      visits: {
        nonOrphanVisits: { total: clicks + botClicks, nonBots: clicks, bots: botClicks },
        orphanVisits: { total: orphans, nonBots: orphans, bots: 0 },
        // Shlink 3's names of the same totals, still read by older clients.
        visitsCount: clicks + botClicks,
        orphanVisitsCount: orphans,
      },
    };
  });
}

/** Tags and domains, read; their changes are refused (made with our own API). */
function tagAndDomainRoutes(app: FastifyInstance, deps: ShlinkDeps): void {
  const { lists } = deps;
  app.get('/tags', async (request) => {
    const key = requireKey(request);
    return { tags: { data: (await lists.tags(key.workspaceId)).map(({ tag }) => tag) } };
  });

  app.get('/tags/stats', async (request) => {
    const key = requireKey(request);
    const tags = await lists.tagTotals(key.workspaceId);
    const data = tags.map(({ tag, links: count, clicks, botClicks }) => ({
      tag,
      shortUrlsCount: count,
      visitsSummary: { total: clicks + botClicks, nonBots: clicks, bots: botClicks },
    }));
    return {
      tags: {
        data,
        pagination: { currentPage: 1, pagesCount: 1, itemsPerPage: data.length, itemsInCurrentPage: data.length, totalItems: data.length },
      },
    };
  });

  app.put('/tags', noTagEdits);
  app.delete('/tags', noTagEdits);

  app.get('/domains', async (request) => {
    const key = requireKey(request);
    const none = { baseUrlRedirect: null, regular404Redirect: null, invalidShortUrlRedirect: null };
    const own = (await deps.domains.list(key.workspaceId)).flatMap((domain) =>
      domain.host === null
        ? []
        : [
            {
              domain: domain.host,
              isDefault: false,
              redirects: {
                baseUrlRedirect: domain.rootRedirect,
                regular404Redirect: domain.notFoundRedirect,
                invalidShortUrlRedirect: domain.notFoundRedirect,
              },
            },
          ],
    );
    return { domains: { data: [{ domain: deps.domains.defaultHost, isDefault: true, redirects: none }, ...own], defaultRedirects: none } };
  });

  app.patch('/domains/redirects', async () => {
    throw new AppError('ROUTE_NOT_FOUND', 'A domain’s fallbacks are changed with PATCH /domains/:host of this service’s own API.');
  });

  // Shlink answers 501 when it has no Mercure hub; nor has this service.
  app.get('/mercure-info', async (_request, reply: FastifyReply) =>
    reply.code(501).type('application/problem+json').send({
      type: 'https://shlink.io/api/error/mercure-not-configured',
      title: 'Mercure integration not configured',
      detail: 'This Shlink instance is not integrated with a mercure hub.',
      status: 501,
    }),
  );
}

/** Shlink's health answer (`/rest/health`, `/rest/v3/health`): no key needed. */
export function health() {
  return { status: 'pass', version: SHLINK_VERSION, links: { about: 'https://shlink.io', project: 'https://github.com/shlinkio/shlink' } };
}

/** Shlink's list query as our list's: what maps, and a refusal (Shlink's invalid-data) for what does not. */
async function listParams(query: Record<string, unknown>, key: Principal, deps: ShlinkDeps) {
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw invalid(name, `${name} must be given once.`);
    return value;
  };
  const list = (name: string): string[] => {
    const value = query[`${name}[]`] ?? query[name];
    if (value === undefined) return [];
    return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string' && item !== '');
  };
  const tags = list('tags');
  if (tags.length > 1) throw invalid('tags', 'Filter by one tag at a time: several tags, with either tagsMode, are not supported.');
  if (list('excludeTags').length > 0) throw invalid('excludeTags', 'excludeTags is not supported.');
  for (const name of ['startDate', 'endDate', 'apiKeyName'])
    if (text(name) !== undefined) throw invalid(name, `${name} is not supported: filter by searchTerm, tags or domain.`);
  for (const name of ['excludeMaxVisitsReached', 'excludePastValidUntil'])
    if (text(name) === 'true')
      throw invalid(name, `${name} is not supported: GET /links?state=active of this service's own API lists the links that redirect.`);
  const orderBy = text('orderBy');
  const sort = orderBy === undefined ? 'created' : ORDERS[orderBy];
  if (sort === undefined)
    throw invalid(
      'orderBy',
      `orderBy must be one of ${Object.keys(ORDERS).join(', ')}: the list is ordered by creation or by clicks, newest or most first.`,
    );
  const searchTerm = text('searchTerm');
  const domain = text('domain');
  const onDomain =
    domain === undefined
      ? undefined
      : domain === 'DEFAULT'
        ? DEFAULT_DOMAIN_ID
        : (await deps.shortUrls.domainOf(domain, key.workspaceId)).id;
  return {
    params: { sort, ...(searchTerm === undefined ? {} : { q: searchTerm }), ...(tags[0] === undefined ? {} : { tag: tags[0] }) },
    ...(onDomain === undefined ? {} : { domainId: onDomain }),
  };
}

// Single visits are not kept here (clicks are counted per day and value, never stored one by one).
const noVisitList = async () => {
  throw new AppError(
    'ROUTE_NOT_FOUND',
    'Single visits are not kept by this service: clicks are counted per day. Read them with GET /links/:code/stats, or /visits for the totals.',
  );
};

const noRules = async () => {
  throw new AppError(
    'ROUTE_NOT_FOUND',
    'Redirect rules are a link’s options.targets here: read and change them with GET and PATCH /links/:code.',
  );
};

const noTagEdits = async () => {
  throw new AppError('ROUTE_NOT_FOUND', 'Tags are changed on each link here: PATCH /short-urls/:shortCode with its tags.');
};

const codeOf = (request: FastifyRequest) => (request.params as { shortCode: string }).shortCode;
