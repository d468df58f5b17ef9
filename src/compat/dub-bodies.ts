// Dub's link bodies (POST /links, PATCH /links/{linkId}, PUT /links/upsert, the bulk routes) as
// ours, so that our rules then apply unchanged (URL policy, alias shape, tags, password, limits);
// and Dub's link ids. A field Dub has and we do not is refused when it asks for something (422), and
// taken when it asks for nothing (false, null, []), as Dub's SDK and dashboards send those.

import { jsonObject, withScheme } from './adapter.ts';
import { AppError } from '../errors.ts';
import type { CreateLinkBody, PatchLinkBody } from '../links/schemas.ts';
import type { LinkDetails } from '../links/store.ts';
import { optionsView } from '../links/view.ts';

/** A link's Dub id: `link_<code>` on the default domain, `link_<host>:<code>` on a workspace's own. */
export function linkIdOf(host: string | null, code: string): string {
  return host === null ? `link_${code}` : `link_${host}:${code}`;
}

/** The link a Dub id names; an id without Dub's `link_` prefix names none (404). */
export function parseLinkId(id: string): { host: string | undefined; code: string } {
  if (!id.startsWith('link_')) throw new AppError('LINK_NOT_FOUND', `No link has the id ${JSON.stringify(id.slice(0, 80))}.`);
  const rest = id.slice('link_'.length);
  const colon = rest.lastIndexOf(':');
  return colon === -1 ? { host: undefined, code: rest } : { host: rest.slice(0, colon), code: rest.slice(colon + 1) };
}

/** Fields of Dub's that ask for nothing here when false, null or empty, and are refused otherwise. */
const INERT_WHEN_EMPTY = [
  'externalId',
  'tenantId',
  'programId',
  'partnerId',
  'prefix',
  'keyLength',
  'trackConversion',
  'folderId',
  'video',
  'rewrite',
  'ios',
  'android',
  'geo',
  'doIndex',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'ref',
  'testVariants',
  'testStartedAt',
  'testCompletedAt',
  'publicStats',
  'webhookIds',
];
const MAPPED = [
  'url',
  'domain',
  'key',
  'tagId',
  'tagIds',
  'tagNames',
  'comments',
  'expiresAt',
  'password',
  'proxy',
  'title',
  'description',
  'image',
  'archived',
  'expiredUrl',
];
const KNOWN = new Set([...MAPPED, ...INERT_WHEN_EMPTY]);

const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || value === false || value === '' || (Array.isArray(value) && value.length === 0);

function unprocessable(field: string, message: string): AppError {
  return new AppError('BODY_INVALID', `${field}: ${message}`, { field });
}

/** A JSON object, or a 422. */
function refuseUnserved(body: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(body)) {
    if (!KNOWN.has(field)) throw unprocessable(field, 'is not a field of a Dub link.');
    if (INERT_WHEN_EMPTY.includes(field) && !isEmpty(value))
      throw unprocessable(field, 'is not served by this service (see docs/compat.md#dub); leave it out.');
  }
}

function text(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw unprocessable(field, 'must be a string.');
  return value;
}

/** Dub's tags: `tagNames`, `tagIds` (a tag's id here is its name) or the older `tagId`, as a string or a list. */
function tagsOf(body: Record<string, unknown>): string[] | undefined {
  let tags: string[] | undefined;
  for (const field of ['tagNames', 'tagIds', 'tagId']) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || !list.every((tag) => typeof tag === 'string'))
      throw unprocessable(field, 'must be a string or a list of strings.');
    tags = [...(tags ?? []), ...list];
  }
  return tags === undefined ? undefined : [...new Set(tags)];
}

/** Dub's social preview: title, description and image, served to crawlers when `proxy` is true. */
function previewOf(body: Record<string, unknown>): { title?: string; description?: string; image?: string } | undefined {
  const title = text(body, 'title');
  const description = text(body, 'description');
  const image = text(body, 'image');
  const given = title !== undefined || description !== undefined || image !== undefined;
  if (body.proxy !== true) {
    if (body.proxy !== undefined && typeof body.proxy !== 'boolean') throw unprocessable('proxy', 'must be a boolean.');
    // Dub keeps a link's title, description and image without a proxy (fetched from its target); this service does not.
    if (given)
      throw unprocessable(
        title !== undefined ? 'title' : description !== undefined ? 'description' : 'image',
        'is served with proxy: true only.',
      );
    return undefined;
  }
  return {
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    ...(image === undefined ? {} : { image }),
  };
}

/**
 * Dub's create body as ours. `defaultHost`: the default domain's host, which Dub clients name as
 * their `domain`, as they name dub.sh.
 */
export function createBody(raw: unknown, defaultHost: string): CreateLinkBody {
  const body = jsonObject(raw);
  refuseUnserved(body);
  const url = text(body, 'url');
  if (url === undefined || url.trim() === '') throw unprocessable('url', 'is required.');
  const domain = text(body, 'domain');
  const key = text(body, 'key');
  const comments = text(body, 'comments');
  const expiresAt = text(body, 'expiresAt');
  const password = text(body, 'password');
  const tags = tagsOf(body);
  const preview = previewOf(body);
  const expiredUrl = text(body, 'expiredUrl');
  if (body.archived !== undefined && body.archived !== null && body.archived !== false)
    throw unprocessable('archived', 'a link is archived by an update (PATCH /links/{linkId}), once it exists.');
  const options = {
    ...(password === undefined || password === '' ? {} : { password }),
    ...(preview === undefined ? {} : { preview }),
    ...(expiredUrl === undefined || expiredUrl === '' ? {} : { expiredUrl: withScheme(expiredUrl.trim(), 'https') }),
  };
  return {
    url: withScheme(url.trim(), 'https'),
    ...(domain === undefined || domain === '' || domain.toLowerCase() === defaultHost ? {} : { domain }),
    ...(key === undefined || key === '' ? {} : { alias: key }),
    ...(comments === undefined || comments === '' ? {} : { title: comments }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(tags === undefined ? {} : { tags }),
    ...(Object.keys(options).length === 0 ? {} : { options }),
  };
}

/**
 * Dub's expiredUrl as a change of the link's options, which our PATCH replaces whole: the others kept as they are
 * (a password as `true`, which keeps it); null or '' removes it. Nothing when the body does not name it.
 */
function expiredUrlChange(body: Record<string, unknown>, current: LinkDetails): Pick<PatchLinkBody, 'options'> {
  if (body.expiredUrl === undefined) return {};
  const expiredUrl = body.expiredUrl === null ? '' : (text(body, 'expiredUrl') ?? '');
  const { expiredUrl: _, ...kept } = optionsView(current.options) ?? {};
  const options = expiredUrl === '' ? kept : { ...kept, expiredUrl: withScheme(expiredUrl.trim(), 'https') };
  return { options: Object.keys(options).length === 0 ? null : options };
}

/**
 * Dub's update body as our PATCH: the target, tags, comments (our title) and expiry change; a
 * link's key and domain never do, and its password and preview are changed with our own API, whose
 * options keep the link's other settings.
 */
export function patchBody(raw: unknown, current: LinkDetails, defaultHost: string): PatchLinkBody {
  const body = jsonObject(raw);
  refuseUnserved(body);
  const key = text(body, 'key');
  if (key !== undefined && key !== current.code)
    throw unprocessable('key', 'a link’s key (its code) cannot change here: create a new link.');
  const domain = text(body, 'domain');
  if (domain !== undefined && domain.toLowerCase() !== (current.domainHost ?? defaultHost))
    throw unprocessable('domain', 'a link’s domain cannot change here: create a new link.');
  for (const field of ['password', 'title', 'description', 'image'])
    if (body[field] !== undefined && body[field] !== null)
      throw unprocessable(field, 'change a link’s password and preview with PATCH /links/{code} of this service’s own API.');
  if (body.proxy === true) throw unprocessable('proxy', 'change a link’s preview with PATCH /links/{code} of this service’s own API.');
  const url = text(body, 'url');
  const comments = body.comments === null ? null : text(body, 'comments');
  const tags = tagsOf(body);
  const expiresAt = body.expiresAt === null ? null : text(body, 'expiresAt');
  if (body.archived !== undefined && body.archived !== null && typeof body.archived !== 'boolean')
    throw unprocessable('archived', 'must be a boolean.');
  return {
    ...(url === undefined ? {} : { url: withScheme(url.trim(), 'https') }),
    ...(typeof body.archived === 'boolean' ? { archived: body.archived } : {}),
    ...expiredUrlChange(body, current),
    ...(comments === undefined ? {} : { title: comments === '' ? null : comments }),
    ...(tags === undefined ? {} : { tags }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}
