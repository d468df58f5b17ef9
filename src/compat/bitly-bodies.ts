// Bitly's names and bodies as ours: a bitlink id (`<host>/<code>`), a group guid (a workspace), the
// create and update bodies (POST /v4/shorten, /v4/bitlinks, PATCH /v4/bitlinks/{bitlink}), so that
// our rules then apply unchanged: the target policy, the title and tags rules, the limits.

import { decodeBase62, encodeBase62 } from '../core/base62.ts';
import { AppError } from '../errors.ts';
import { stringField } from './adapter.ts';
import type { CreateLinkBody, PatchLinkBody } from '../links/schemas.ts';

/** Bitly's own short domain: the `bitly` client's default, and what it rewrites every id with a 6+ character back-half to. */
export const BITLY_DOMAIN = 'bit.ly';

const GUID_DIGITS = 10;

/**
 * A workspace's group guid: `B` and its id in ten base62 digits (Bitly's group guids are 11
 * characters, starting with B); its organization's, the same with `O`. Stable, and only a name:
 * a key reads no group but its own workspace's.
 */
export function groupGuid(workspaceId: number, prefix: 'B' | 'O' = 'B'): string {
  return `${prefix}${encodeBase62(workspaceId, GUID_DIGITS)}`;
}

/** The workspace a group guid names, or undefined if it names none. */
export function workspaceOfGuid(guid: string): number | undefined {
  if (guid.length !== GUID_DIGITS + 1 || !guid.startsWith('B')) return undefined;
  const id = decodeBase62(guid.slice(1));
  return id > 0 ? id : undefined;
}

/**
 * The domain a Bitly `domain` names for a create: none (the workspace's default) for no domain or
 * bit.ly, which Bitly's clients send when they were not told another; otherwise the host itself.
 */
export function domainOf(domain: unknown): string | undefined {
  const host = stringField(domain, 'domain');
  if (host === undefined || host === '' || host.toLowerCase() === BITLY_DOMAIN) return undefined;
  return host;
}

export interface BitlyCreateBody {
  long_url?: unknown;
  domain?: unknown;
  group_guid?: unknown;
  title?: unknown;
  tags?: unknown;
  deeplinks?: unknown;
}

/** Bitly's create as ours: long_url, domain, title and tags; deep links, whose Bitly form names apps of Bitly's, are refused. */
export function createBody(body: BitlyCreateBody, workspaceId: number): CreateLinkBody {
  const url = stringField(body.long_url, 'long_url');
  if (url === undefined || url.trim() === '') throw new AppError('BODY_INVALID', 'long_url is missing.', { field: 'long_url' });
  checkGroup(body.group_guid, workspaceId);
  refuseDeeplinks(body.deeplinks);
  const domain = domainOf(body.domain);
  const title = stringField(body.title, 'title');
  const tags = tagsField(body.tags);
  return {
    url: url.trim(),
    ...(domain === undefined ? {} : { domain }),
    ...(title === undefined || title === '' ? {} : { title }),
    ...(tags === undefined || tags.length === 0 ? {} : { tags }),
  };
}

export interface BitlyUpdateBody {
  long_url?: unknown;
  title?: unknown;
  tags?: unknown;
  archived?: unknown;
  deeplinks?: unknown;
}

/**
 * Bitly's update as ours: long_url, title and tags change. The other fields of a bitlink (id, link,
 * created_at, references, ...) may come back as they were read, and change nothing; `archived: true`
 * is refused: Bitly's archived links keep redirecting, hidden from lists, and this service has no such state.
 */
export function patchBody(body: BitlyUpdateBody): PatchLinkBody {
  if (body.archived !== undefined && body.archived !== null && body.archived !== false) {
    throw new AppError(
      'BODY_INVALID',
      'archived: links are not archived here; disable one (it then answers 410) with PATCH /links/:code of this service’s own API.',
      { field: 'archived' },
    );
  }
  refuseDeeplinks(body.deeplinks);
  const url = stringField(body.long_url, 'long_url');
  const title = body.title === null ? null : stringField(body.title, 'title');
  const tags = tagsField(body.tags);
  const change: PatchLinkBody = {
    ...(url === undefined ? {} : { url: url.trim() }),
    ...(title === undefined ? {} : { title: title === '' ? null : title }),
    ...(tags === undefined ? {} : { tags }),
  };
  return change;
}

/** A group guid given with a create must be the key's workspace's. */
export function checkGroup(guid: unknown, workspaceId: number): void {
  const given = stringField(guid, 'group_guid');
  if (given !== undefined && given !== '' && workspaceOfGuid(given) !== workspaceId) throw new AppError('WORKSPACE_NOT_FOUND');
}

function refuseDeeplinks(deeplinks: unknown): void {
  if (deeplinks === undefined || deeplinks === null || (Array.isArray(deeplinks) && deeplinks.length === 0)) return;
  throw new AppError('BODY_INVALID', 'deeplinks: set app links with options.deepLink of this service’s own API.', { field: 'deeplinks' });
}

function tagsField(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((tag) => typeof tag === 'string'))
    throw new AppError('BODY_INVALID', 'tags must be an array of strings.', { field: 'tags' });
  return value;
}
