// GET, PATCH and DELETE /links/:code: a link's metadata and click totals, changes, deletion.
// Any key of the link's workspace reads it; changing or deleting it takes an admin, or the member
// that created it (auth/roles.ts). A change or a deletion reaches Redis and the LRU of every
// instance before it is acknowledged (write/link-changes.ts).

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireKey } from '../auth/authenticate.ts';
import { changeProblem, type Principal } from '../auth/roles.ts';
import { asShortCode } from '../core/codes.ts';
import { checkExpiresAt, checkTags, checkTitle } from '../core/link.ts';
import { checkLinkOptions, withPasswordHash, type LinkOptions } from '../core/link-options.ts';
import { hashPassword } from '../core/link-passwords.ts';
import type { TargetPolicy } from '../core/target-policy.ts';
import { checkTargetUrl } from '../core/url-rules.ts';
import type { DbBreaker } from '../db/breaker.ts';
import { findLinkDetails, type LinkChange, type LinkDetails } from '../db/links.ts';
import type { Queryable } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import type { LinkChanges } from '../write/link-changes.ts';
import { linkView } from './view.ts';
import { CodeParams, LinkQuery, SECURITY } from '../api/schemas.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import { errorResponses as errors } from '../errors.ts';
import { LinkDetails as LinkDetailsSchema, PatchLinkBody } from './schemas.ts';

export interface ManageDeps {
  db: Queryable;
  breaker: DbBreaker;
  links: LinkChanges;
  shortUrls: ShortUrls;
  policy: TargetPolicy;
}

/**
 * The link with `code` on the domain `?domain=` names (absent: the default) in the workspace of
 * the request's key: 401 without a key, 404 if there is no such domain or link (or it was
 * deleted, or it is another workspace's).
 */
export async function workspaceLink(
  request: FastifyRequest,
  deps: Pick<ManageDeps, 'db' | 'breaker' | 'shortUrls'>,
  raw: string,
): Promise<{ key: Principal; link: LinkDetails }> {
  const key = requireKey(request);
  const domain = await deps.shortUrls.domainOf((request.query as LinkQuery).domain, key.workspaceId, 'DOMAIN_NOT_FOUND');
  const code = asShortCode(raw);
  if (code === undefined) throw new AppError('LINK_NOT_FOUND');
  const link = await deps.breaker.run(() => findLinkDetails(deps.db, { domainId: domain.id, code }));
  if (link === undefined || link.workspaceId !== key.workspaceId) throw new AppError('LINK_NOT_FOUND');
  return { key, link };
}

/** The link, if the request's key may change it: 403 for a viewer, or a member that did not create it. */
async function changeableLink(
  request: FastifyRequest,
  deps: Pick<ManageDeps, 'db' | 'breaker' | 'shortUrls'>,
  raw: string,
): Promise<LinkDetails> {
  const { key, link } = await workspaceLink(request, deps, raw);
  const problem = changeProblem(key, link.ownerKeyId);
  if (problem !== undefined) throw new AppError(problem);
  return link;
}

export async function manageRoutes(plain: FastifyInstance, deps: ManageDeps): Promise<void> {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { links, shortUrls, policy } = deps;

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
    async (request) => details((await workspaceLink(request, deps, request.params.code)).link),
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
    async (request) => {
      const link = await changeableLink(request, deps, request.params.code);
      const { change: asked, password } = checkChange(request.body, policy, Date.now());
      const change = await withPassword(asked, password, link);
      const changed = await links.change(link, change);
      return details({
        ...link,
        ...changed,
        ...(change.title === undefined ? {} : { title: change.title }),
        tags: change.tags ?? link.tags,
      });
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
    async (request, reply) => {
      const link = await changeableLink(request, deps, request.params.code);
      await links.remove(link);
      return reply.code(204).send(null);
    },
  );
}

/**
 * The change with its options' password: `true` keeps the link's own (400 if it has none), a
 * string is hashed (scrypt, off the event loop); without either the options have none.
 */
async function withPassword(change: LinkChange, password: string | true | undefined, link: LinkDetails): Promise<LinkChange> {
  if (password === undefined) return change;
  let hash: string | undefined;
  if (password === true) {
    hash = link.options?.passwordHash;
    if (hash === undefined)
      throw new AppError('PASSWORD_INVALID', 'options.password: true keeps the password a link has; this link has none.', {
        field: 'options.password',
      });
  } else {
    hash = await hashPassword(password);
  }
  return { ...change, options: withPasswordHash(change.options ?? null, hash) };
}

/** A PATCH body as a change, by the same rules as a create, and the password it asks for. */
function checkChange(body: PatchLinkBody, policy: TargetPolicy, now: number): { change: LinkChange; password: string | true | undefined } {
  let url: string | undefined;
  if (body.url !== undefined) {
    const verdict = checkTargetUrl(body.url, policy);
    if (!verdict.ok) throw new AppError(verdict.code);
    url = verdict.url;
  }
  let expiresAt: Date | null | undefined;
  if (body.expiresAt === null) expiresAt = null;
  else if (body.expiresAt !== undefined) {
    const at = checkExpiresAt(body.expiresAt, now);
    if (!(at instanceof Date)) throw new AppError(at);
    expiresAt = at;
  }
  let title: string | null | undefined;
  if (body.title !== undefined) {
    const checked = checkTitle(body.title);
    if (!checked.ok) throw new AppError(checked.code);
    title = checked.value;
  }
  let tags: string[] | undefined;
  if (body.tags !== undefined) {
    const checked = checkTags(body.tags);
    if (!checked.ok) throw new AppError(checked.code);
    tags = checked.value;
  }
  let options: LinkOptions | null | undefined;
  let password: string | true | undefined;
  if (body.options !== undefined) {
    const checked = checkLinkOptions(body.options, policy, now);
    if (!checked.ok) throw new AppError(checked.code, checked.message, { field: checked.field });
    options = checked.options;
    password = checked.password;
  }
  const change = {
    ...(url === undefined ? {} : { url }),
    ...(options === undefined ? {} : { options }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(body.disabled === undefined ? {} : { disabled: body.disabled }),
    ...(title === undefined ? {} : { title }),
    ...(tags === undefined ? {} : { tags }),
  };
  return { change, password };
}
