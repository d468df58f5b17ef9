// Shlink's short URLs as ours and back: its create and edit bodies as our create and PATCH bodies (so
// that our rules then apply unchanged: the slug's shape, the target policy, the dates, the limits),
// its list query as our list's, and a link as Shlink's ShortUrl.

import { AppError } from '../errors.ts';
import { stringField } from './adapter.ts';
import type { ShortUrls } from '../domains/short-urls.ts';
import type { CreateLinkBody, PatchLinkBody } from '../links/schemas.ts';
import type { LinkDetails } from '../links/store.ts';
import { optionsView } from '../links/view.ts';

/** Shlink's ShortUrl (REST API v3). */
export interface ShlinkShortUrl {
  shortCode: string;
  shortUrl: string;
  longUrl: string;
  dateCreated: string;
  visitsSummary: { total: number; nonBots: number; bots: number };
  tags: readonly string[];
  meta: { validSince: string | null; validUntil: string | null; maxVisits: number | null };
  domain: string | null;
  title: string | null;
  crawlable: boolean;
  forwardQuery: boolean;
  hasRedirectRules: boolean;
}

/** A link as Shlink's ShortUrl; `forwardQuery` is FORWARD_QUERY for a link that does not choose. */
export function shortUrlView(link: LinkDetails, shortUrls: ShortUrls, forwardQuery: boolean): ShlinkShortUrl {
  const options = link.options;
  return {
    shortCode: link.code,
    shortUrl: shortUrls.of(link).shortUrl,
    longUrl: link.url,
    dateCreated: link.createdAt.toISOString(),
    visitsSummary: { total: link.clicks + link.botClicks, nonBots: link.clicks, bots: link.botClicks },
    tags: link.tags,
    meta: {
      validSince: link.startsAt?.toISOString() ?? null,
      validUntil: link.expiresAt?.toISOString() ?? null,
      maxVisits: options?.clickLimit ?? null,
    },
    domain: link.domainHost,
    title: link.title,
    crawlable: false,
    forwardQuery: options?.forwardQuery ?? forwardQuery,
    hasRedirectRules: (options?.targets?.length ?? 0) > 0,
  };
}

/** Shlink's create body as ours. */
export function createBody(body: Record<string, unknown>): CreateLinkBody {
  const longUrl = stringField(body.longUrl, 'longUrl');
  if (longUrl === undefined || longUrl.trim() === '') throw invalid('longUrl', 'longUrl is missing.');
  if (body.findIfExists === true)
    throw invalid('findIfExists', 'findIfExists is not supported: every create makes a new link (search with searchTerm).');
  if (stringField(body.pathPrefix, 'pathPrefix') !== undefined)
    throw invalid('pathPrefix', 'pathPrefix is not supported: a code has no prefix here.');
  refuseCrawlable(body);
  const alias = stringField(body.customSlug, 'customSlug');
  const title = nullableString(body, 'title');
  const domain = stringField(body.domain, 'domain');
  const startsAt = nullableString(body, 'validSince');
  const expiresAt = nullableString(body, 'validUntil');
  const tags = tagsField(body);
  const options = optionsOf(body, {});
  return {
    url: longUrl,
    ...(alias === undefined || alias === '' ? {} : { alias }),
    ...(title === undefined || title === null || title === '' ? {} : { title }),
    ...(domain === undefined || domain === '' ? {} : { domain }),
    ...(startsAt === undefined || startsAt === null ? {} : { startsAt }),
    ...(expiresAt === undefined || expiresAt === null ? {} : { expiresAt }),
    ...(tags === undefined ? {} : { tags }),
    ...(options === undefined ? {} : { options }),
  };
}

/** Shlink's edit body as our PATCH: a field given changes, null clears it; maxVisits and forwardQuery keep the link's other options. */
export function editBody(body: Record<string, unknown>, current: LinkDetails): PatchLinkBody {
  refuseCrawlable(body);
  const longUrl = stringField(body.longUrl, 'longUrl');
  const title = nullableString(body, 'title');
  const startsAt = nullableString(body, 'validSince');
  const expiresAt = nullableString(body, 'validUntil');
  const tags = tagsField(body);
  const options = optionsOf(body, optionsView(current.options) ?? {});
  const change: PatchLinkBody = {
    ...(longUrl === undefined ? {} : { url: longUrl }),
    ...(title === undefined ? {} : { title }),
    ...(startsAt === undefined ? {} : { startsAt }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(tags === undefined ? {} : { tags }),
    ...(options === undefined ? {} : { options }),
  };
  if (Object.keys(change).length === 0) throw invalid(undefined, 'Send at least one field to change.');
  return change;
}

/**
 * The options a body's maxVisits and forwardQuery make of `current` (a link's options as our API
 * shows them: a password stays `true`, kept): undefined when the body has neither.
 */
function optionsOf(body: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> | undefined {
  const hasMax = body.maxVisits !== undefined;
  const hasForward = body.forwardQuery !== undefined;
  if (!hasMax && !hasForward) return undefined;
  const options = { ...current };
  if (hasMax) {
    const max = body.maxVisits;
    if (max !== null && (typeof max !== 'number' || !Number.isInteger(max)))
      throw invalid('maxVisits', 'maxVisits must be a whole number or null.');
    options.clickLimit = max;
  }
  if (hasForward) {
    if (typeof body.forwardQuery !== 'boolean') throw invalid('forwardQuery', 'forwardQuery must be true or false.');
    options.forwardQuery = body.forwardQuery;
  }
  return options;
}

/** Shlink writes robots.txt's Allow lines from `crawlable`; this service serves no robots.txt to write them in. */
function refuseCrawlable(body: Record<string, unknown>): void {
  if (body.crawlable !== undefined && body.crawlable !== false)
    throw invalid('crawlable', 'crawlable is not supported: this service serves no robots.txt to list short URLs in.');
}

function tagsField(body: Record<string, unknown>): string[] | undefined {
  const tags = body.tags;
  if (tags === undefined) return undefined;
  if (!Array.isArray(tags) || tags.some((tag) => typeof tag !== 'string')) throw invalid('tags', 'tags must be a list of strings.');
  return tags as string[];
}

function nullableString(body: Record<string, unknown>, name: string): string | null | undefined {
  return body[name] === null ? null : stringField(body[name], name);
}

/** Bad input, named by Shlink's field (its problem's invalidElements). */
export function invalid(field: string | undefined, message: string): AppError {
  return new AppError('BODY_INVALID', message, field === undefined ? undefined : { field });
}
