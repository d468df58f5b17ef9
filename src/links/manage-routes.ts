// GET, PATCH and DELETE /links/:code: a link's metadata and click totals, changes, deletion. Any
// key of the link's workspace reads it; changing or deleting it takes an admin, or the member that
// created it (auth/roles.ts). The rules are the service's (service.ts); a change reaches every
// instance before it is acknowledged (resolve/propagation.ts).

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { CodeParams, LinkQuery, SECURITY } from '../api/schemas.ts';
import { actorOf } from '../audit/audit.ts';
import { requireKey } from '../auth/authenticate.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { errorResponses as errors } from '../errors.ts';
import { LinkDetails as LinkDetailsSchema, PatchLinkBody } from './schemas.ts';
import type { LinkService } from './service.ts';
import type { LinkDetails } from './store.ts';
import { linkView } from './view.ts';

export interface ManageDeps {
  readonly links: LinkService;
  readonly shortUrls: ShortUrls;
}

export async function manageRoutes(plain: FastifyInstance, deps: ManageDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { links, shortUrls } = deps;

  const details = (link: LinkDetails) => linkView(link, shortUrls, Date.now());

  app.get(
    '/links/:code',
    {
      schema: {
        summary: "A link's metadata and click totals",
        description: 'Any key of the link’s workspace may read it.',
        tags: ['links'],
        security: SECURITY,
        params: CodeParams,
        querystring: LinkQuery,
        response: { 200: LinkDetailsSchema, ...errors(401, 404, 503) },
      },
    },
    async function readLink(request) {
      return details(await links.find(requireKey(request), request.query.domain, request.params.code));
    },
  );

  app.patch(
    '/links/:code',
    {
      schema: {
        summary: "Change a link's target, expiry, disabled state, title or tags",
        description:
          'An admin of the link’s workspace, or the member that created it. Every instance and Redis follow the change ' +
          'before it is acknowledged.',
        tags: ['links'],
        security: SECURITY,
        params: CodeParams,
        querystring: LinkQuery,
        body: PatchLinkBody,
        response: { 200: LinkDetailsSchema, ...errors(400, 401, 403, 404, 415, 503) },
      },
    },
    async function changeLink(request) {
      const key = requireKey(request);
      return details(await links.change(key, request.query.domain, request.params.code, request.body, actorOf(key, request.ip)));
    },
  );

  app.delete(
    '/links/:code',
    {
      schema: {
        summary: 'Delete a link',
        description:
          'An admin of the link’s workspace, or the member that created it. The link answers 404 on every instance before ' +
          'this is acknowledged; its code is never handed out again.',
        tags: ['links'],
        security: SECURITY,
        params: CodeParams,
        querystring: LinkQuery,
        response: { 204: { type: 'null', description: 'Deleted.' }, ...errors(401, 403, 404, 503) },
      },
    },
    async function deleteLink(request, reply) {
      const key = requireKey(request);
      await links.remove(key, request.query.domain, request.params.code, actorOf(key, request.ip));
      return reply.code(204).send(null);
    },
  );
}
