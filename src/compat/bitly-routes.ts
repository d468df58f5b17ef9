// Bitly's API v4 (`/v4`), so that Bitly's clients (the `bitly` npm package, scripts written against
// api-ssl.bitly.com) work with a base URL and one of our keys, as `Authorization: Bearer <key>` or,
// as the `bitly` package sends it, bare. A thin adapter: each route reads Bitly's shapes, calls the
// same services as our own routes (creates through the write queue and the create limits, changes
// and deletions with their roles and audit, the list, the stats), and answers in Bitly's shapes,
// errors as Bitly's (bitly-errors.ts). A workspace is a Bitly group; a bitlink is `<host>/<code>`.
// Coverage, and what is refused and why: docs/compat.md#bitly.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StatsService } from '../analytics/stats.ts';
import { registerErrorHandlers } from '../api/errors.ts';
import { actorOf } from '../audit/audit.ts';
import { requireKey } from '../auth/authenticate.ts';
import type { Principal } from '../auth/roles.ts';
import { AppError } from '../errors.ts';
import { creatorOf } from '../links/create-routes.ts';
import type { LinkDetails } from '../links/store.ts';
import { BITLY_DOMAIN, createBody, groupGuid, patchBody, workspaceOfGuid } from './bitly-bodies.ts';
import { bitlyErrors } from './bitly-errors.ts';
import { bitlyTime, FACETS, linkClicks, linkClicksSummary, linkFacet, type Facet } from './bitly-metrics.ts';
import { bodyOf, createdDetails, peerRoutes, wholeNumber, type CompatServices } from './adapter.ts';
import { pageAt } from './pages.ts';

export interface BitlyDeps extends CompatServices {
  /** This service's /v4, absolute (BASE_URL's): where references point, as Bitly's point at api-ssl.bitly.com/v4. */
  readonly apiBase: string;
  /** A workspace's name (a group's). */
  readonly workspaceName: (workspaceId: number) => Promise<string>;
}

/** Bitly's page size for a group's bitlinks: 50 by default, at most 100 (Bitly allows 1000; our list pages end at 100). */
const SIZE_DEFAULT = 50;
const SIZE_MAX = 100;

type Params = { host: string; code: string };

export async function bitlyRoutes(app: FastifyInstance, deps: BitlyDeps): Promise<void> {
  const { creates, links, shortUrls } = deps;
  // Bitly's API is documented as Bitly's (docs/compat.md), not in this service's OpenAPI document;
  // its clients send the key without "Bearer" (auth/authenticate.ts).
  peerRoutes(app, { bareAuthorization: true });
  registerErrorHandlers(app, bitlyErrors('bitlinks'));

  /** A bitlink's id: its host and code. */
  const idOf = (link: { domainId: number; code: string; domainHost?: string | null }) => `${shortUrls.of(link).domain}/${link.code}`;

  const view = (link: LinkDetails) => ({
    references: { group: `${deps.apiBase}/groups/${groupGuid(link.workspaceId)}` },
    link: shortUrls.of(link).shortUrl,
    id: idOf(link),
    long_url: link.url,
    title: link.title,
    archived: false,
    created_at: bitlyTime(link.createdAt),
    created_by: link.ownerName ?? '',
    client_id: '',
    custom_bitlinks: [],
    tags: link.tags,
    launchpad_ids: [],
    deeplinks: [],
  });

  /**
   * The link a bitlink names in the key's workspace. `bit.ly/<code>` is the code on the
   * workspace's default domain: the `bitly` client rewrites every id whose back-half has six or
   * more characters to bit.ly, and ids imported from Bitly name it too.
   */
  const find = async (key: Principal, host: string, code: string) => links.find(key, await hostOf(key, host), code);
  const hostOf = async (key: Principal, host: string): Promise<string | undefined> =>
    host.toLowerCase() === BITLY_DOMAIN ? (await shortUrls.servedDomainOf(undefined, key.workspaceId)).host : host;

  const create = async (request: FastifyRequest) => {
    const creator = creatorOf(request, true);
    const body = createBody(bodyOf(request), creator.workspaceId);
    const { link } = await creates.create(body, creator, undefined);
    return view(createdDetails(link, creator, shortUrls, requireKey(request).name));
  };
  // Every create makes a new link: Bitly answers 200 with the bitlink it made before for the same long_url.
  app.post('/shorten', deps.createRoute, async (request, reply) => reply.code(201).send(await create(request)));
  app.post('/bitlinks', deps.createRoute, async (request, reply) => reply.code(201).send(await create(request)));

  app.get('/bitlinks/:host/:code', async (request) => {
    const { host, code } = request.params as Params;
    return view(await find(requireKey(request), host, code));
  });

  app.patch('/bitlinks/:host/:code', async (request) => {
    const key = requireKey(request);
    const { host, code } = request.params as Params;
    const change = patchBody(bodyOf(request));
    const domainHost = await hostOf(key, host);
    if (Object.keys(change).length === 0) return view(await links.find(key, domainHost, code));
    return view(await links.change(key, domainHost, code, change, actorOf(key, request.ip)));
  });

  app.delete('/bitlinks/:host/:code', async (request) => {
    const key = requireKey(request);
    const { host, code } = request.params as Params;
    const domainHost = await hostOf(key, host);
    const link = await links.find(key, domainHost, code);
    await links.remove(key, domainHost, code, actorOf(key, request.ip));
    return { links_deleted: [{ id: idOf(link), long_url: link.url }] };
  });

  app.post('/expand', async (request) => {
    const key = requireKey(request);
    const id = bodyOf(request).bitlink_id;
    if (typeof id !== 'string' || !id.includes('/'))
      throw new AppError('BODY_INVALID', 'bitlink_id must be a bitlink: <domain>/<back-half>.', { field: 'bitlink_id' });
    const slash = id.lastIndexOf('/');
    const link = await find(key, id.slice(0, slash).replace(/^https?:\/\//i, ''), id.slice(slash + 1));
    return { link: shortUrls.of(link).shortUrl, id: idOf(link), long_url: link.url, created_at: bitlyTime(link.createdAt) };
  });

  const statsOf = (): StatsService => {
    if (deps.stats === null) throw new AppError('ROUTE_NOT_FOUND', 'Click metrics are not served by this deployment.');
    return deps.stats;
  };
  const metric = async (request: FastifyRequest) => {
    const key = requireKey(request);
    const { host, code } = request.params as Params;
    return { key, link: await find(key, host, code), query: request.query as Record<string, unknown> };
  };
  app.get('/bitlinks/:host/:code/clicks', async (request) => {
    const { key, link, query } = await metric(request);
    return linkClicks(statsOf(), key, link, query);
  });
  app.get('/bitlinks/:host/:code/clicks/summary', async (request) => {
    const { key, link, query } = await metric(request);
    return linkClicksSummary(statsOf(), key, link, query);
  });
  for (const facet of Object.keys(FACETS) as Facet[]) {
    app.get(`/bitlinks/:host/:code/${facet}`, async (request) => {
      const { key, link, query } = await metric(request);
      return linkFacet(statsOf(), key, link, facet, query);
    });
  }

  await app.register(userRoutes, { prefix: '/user', ...deps });
  await app.register(groupRoutes, { prefix: '/groups', ...deps, view });
}

/** GET /v4/user: the key, as Bitly's user; its default group is its workspace. */
async function userRoutes(app: FastifyInstance): Promise<void> {
  registerErrorHandlers(app, bitlyErrors('user'));
  app.get('', async (request) => {
    const key = requireKey(request);
    return {
      login: key.name,
      name: key.name,
      is_active: true,
      created: bitlyTime(new Date(0)),
      modified: bitlyTime(new Date(0)),
      is_sso_user: false,
      is_2fa_enabled: false,
      emails: [],
      default_group_guid: groupGuid(key.workspaceId),
    };
  });
}

/** GET /v4/groups, /v4/groups/{guid}, /v4/groups/{guid}/bitlinks: the key's workspace, as Bitly's one group. */
async function groupRoutes(app: FastifyInstance, deps: BitlyDeps & { view: (link: LinkDetails) => unknown }): Promise<void> {
  registerErrorHandlers(app, bitlyErrors('groups'));
  const groupOf = async (key: Principal) => {
    const [name, domains] = await Promise.all([deps.workspaceName(key.workspaceId), deps.domains.list(key.workspaceId)]);
    return {
      references: { organization: `${deps.apiBase}/organizations/${groupGuid(key.workspaceId, 'O')}` },
      guid: groupGuid(key.workspaceId),
      organization_guid: groupGuid(key.workspaceId, 'O'),
      name,
      is_active: true,
      role: ROLES[key.role],
      bsds: domains.flatMap((domain) => (domain.host === null ? [] : [domain.host])),
      created: bitlyTime(new Date(0)),
      modified: bitlyTime(new Date(0)),
    };
  };
  app.get('', async (request) => ({ groups: [await groupOf(requireKey(request))] }));
  app.get('/:guid', async (request) => groupOf(ownGroup(request)));

  app.get('/:guid/bitlinks', async (request) => {
    const key = ownGroup(request);
    const query = request.query as Record<string, unknown>;
    const size = Math.min(SIZE_MAX, wholeNumber(query.size, 'size', SIZE_DEFAULT, 1, Number.MAX_SAFE_INTEGER));
    const page = wholeNumber(query.page, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const search = query.query ?? query.keyword;
    if (search !== undefined && typeof search !== 'string') throw new AppError('LIST_QUERY_INVALID', 'query is not valid.');
    // Links are never archived here: `archived=on` (archived links only) lists none.
    if (query.archived === 'on') return { links: [], pagination: { prev: '', next: '', size, page, total: 0 } };
    const params = search === undefined || search === '' ? {} : { q: search };
    const listed = await pageAt(deps.lists, key.workspaceId, { params, skip: (page - 1) * size, limit: size });
    const base = `${deps.apiBase}/groups/${groupGuid(key.workspaceId)}/bitlinks?size=${size}`;
    return {
      links: listed.page.map(deps.view),
      pagination: {
        prev: page > 1 ? `${base}&page=${page - 1}` : '',
        next: page * size < listed.total ? `${base}&page=${page + 1}` : '',
        size,
        page,
        total: listed.total,
      },
    };
  });
}

/** The key of a request for a group: its workspace's, if `guid` names it; another workspace's group, or none, is not found. */
function ownGroup(request: FastifyRequest): Principal {
  const key = requireKey(request);
  if (workspaceOfGuid((request.params as { guid: string }).guid) !== key.workspaceId) throw new AppError('WORKSPACE_NOT_FOUND');
  return key;
}

/** Bitly's roles in a group for ours. */
const ROLES = { admin: 'group-admin', member: 'member', viewer: 'viewer' } as const;
