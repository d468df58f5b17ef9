// Kutt's API v2 (`/api/v2`), so that Kutt's clients (the `kutt` npm package, scripts written against
// kutt.it) work with a base URL and one of our keys in X-API-KEY. A thin adapter: each route reads
// Kutt's shapes, calls the same services as our own routes (creates through the write queue and the
// create limits, changes and deletions with their roles and audit, the list, the stats), and answers
// in Kutt's shapes, errors as Kutt's `{"error": "<message>"}` (with our stable `code` beside it).
// Coverage, and what is refused and why: docs/compat.md#kutt.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { registerErrorHandlers } from '../api/errors.ts';
import { actorOf } from '../audit/audit.ts';
import { requireKey } from '../auth/authenticate.ts';
import { AppError } from '../errors.ts';
import { creatorOf } from '../links/create-routes.ts';
import type { LinkDetails } from '../links/store.ts';
import { acceptEmptyJsonBodies, bodyOf, createdDetails, peerRoutes, wholeNumber, type CompatServices } from './adapter.ts';
import { createBody, patchBody } from './kutt-bodies.ts';
import { kuttStats } from './kutt-stats.ts';
import { OFFSET_MAX, pageAt } from './pages.ts';

/** Kutt's user's domains are the workspace's own (services.domains). */
export type KuttDeps = CompatServices;

/** Kutt's own caps: 50 links a page; deeper than our list's counted total, a page is refused. */
const KUTT_LIMIT_MAX = 50;
const KUTT_LIMIT_DEFAULT = 10;

/** A Kutt link: `id` names it in Kutt's paths (its code, or `<host>:<code>` on a workspace's own domain). */
export interface KuttLink {
  id: string;
  address: string;
  banned: boolean;
  created_at: string;
  updated_at: string;
  password: boolean;
  description: string | null;
  expire_in: string | null;
  target: string;
  visit_count: number;
  domain: string | null;
  link: string;
}

export async function kuttRoutes(app: FastifyInstance, deps: KuttDeps): Promise<void> {
  const { creates, links, lists, shortUrls } = deps;
  peerRoutes(app);
  // Every error in Kutt's shape, `{"error": "<message>"}`, with our status, headers and stable code beside it.
  registerErrorHandlers(app, (code, message) => JSON.stringify({ error: message, code }));
  acceptEmptyJsonBodies(app);

  const view = (link: LinkDetails): KuttLink => {
    const created = link.createdAt.toISOString();
    return {
      id: idOf(link.domainHost, link.code),
      address: link.code,
      banned: link.disabled,
      created_at: created,
      // Kutt's updated_at: we keep no time of a link's last change; its creation stands in.
      updated_at: created,
      password: link.options?.passwordHash !== undefined,
      description: link.title,
      expire_in: link.expiresAt?.toISOString() ?? null,
      target: link.url,
      visit_count: link.clicks,
      domain: link.domainHost,
      link: shortUrls.of(link).shortUrl,
    };
  };

  app.get('/health', async (_request, reply) => reply.type('text/html; charset=utf-8').send('OK'));

  app.get('/users', async (request) => {
    const key = requireKey(request);
    return {
      apikey: null,
      email: key.name,
      domains: (await deps.domains.list(key.workspaceId)).flatMap((domain) =>
        domain.host === null
          ? []
          : [
              {
                id: domain.host,
                address: domain.host,
                banned: false,
                homepage: domain.rootRedirect,
                created_at: domain.createdAt.toISOString(),
                updated_at: domain.createdAt.toISOString(),
              },
            ],
      ),
    };
  });

  app.get('/links', async (request) => {
    const key = requireKey(request);
    const query = request.query as Record<string, unknown>;
    // As Kutt: a limit above its cap is taken as the cap.
    const limit = Math.min(KUTT_LIMIT_MAX, wholeNumber(query.limit, 'limit', KUTT_LIMIT_DEFAULT, 1, Number.MAX_SAFE_INTEGER));
    const skip = wholeNumber(query.skip, 'skip', 0, 0, OFFSET_MAX);
    const search = query.search;
    if (search !== undefined && typeof search !== 'string') throw new AppError('LIST_QUERY_INVALID', 'search query is not valid.');
    const params = search === '' || search === undefined ? {} : { q: search };
    const { total, page } = await pageAt(lists, key.workspaceId, { params, skip, limit });
    return { total, limit, skip, data: page.map(view) };
  });

  app.post('/links', deps.createRoute, async (request, reply) => {
    const creator = creatorOf(request, deps.keyRequired);
    const body = createBody(bodyOf(request));
    const { link } = await creates.create(body, creator, undefined);
    return reply.code(201).send(view(createdDetails(link, creator, shortUrls)));
  });

  app.patch('/links/:id', async (request) => {
    const key = requireKey(request);
    const { host, code } = parseId((request.params as { id: string }).id);
    const current = await links.find(key, host, code);
    const change = patchBody(bodyOf(request), current);
    return view(await links.change(key, host, code, change, actorOf(key, request.ip)));
  });

  app.delete('/links/:id', async (request) => {
    const key = requireKey(request);
    const { host, code } = parseId((request.params as { id: string }).id);
    await links.remove(key, host, code, actorOf(key, request.ip));
    return { message: 'Link has been deleted successfully.' };
  });

  // The `kutt` client's stats() sends DELETE (a bug of its 3.0.2): both methods read the stats, neither deletes.
  const linkStats = async (request: FastifyRequest) => {
    const key = requireKey(request);
    if (deps.stats === null) throw new AppError('ROUTE_NOT_FOUND', 'Stats are not served by this deployment.');
    const { host, code } = parseId((request.params as { id: string }).id);
    const link = await links.find(key, host, code);
    return { ...(await kuttStats(deps.stats, key, link)), ...view(link) };
  };
  app.get('/links/:id/stats', linkStats);
  app.delete('/links/:id/stats', linkStats);

  app.post('/domains', async () => {
    throw new AppError('ROUTE_NOT_FOUND', 'Add domains with POST /domains of this service’s own API: they are verified by DNS first.');
  });
  app.delete('/domains/:id', async () => {
    throw new AppError('ROUTE_NOT_FOUND', 'Remove domains with DELETE /domains/:host of this service’s own API.');
  });
}

/** A link's Kutt id: its code on the default domain, `<host>:<code>` on a workspace's own. */
function idOf(host: string | null, code: string): string {
  return host === null ? code : `${host}:${code}`;
}

function parseId(id: string): { host: string | undefined; code: string } {
  const colon = id.lastIndexOf(':');
  return colon === -1 ? { host: undefined, code: id } : { host: id.slice(0, colon), code: id.slice(colon + 1) };
}
