// The pieces of the tools' input schemas, with the API's own bounds (taken from where the API keeps
// them, where it exports them), so that a model sees them in each tool's JSON Schema. The API checks
// every value again: these only refuse sooner what it would refuse.

import { z } from 'zod';
import { LIMIT_MAX as STATS_LIMIT_MAX } from '../analytics/stats.ts';
import { CODE_SHAPE } from '../core/codes.ts';
import { STATS_MAX_DAYS } from '../core/day-range.ts';
import { DIMENSIONS } from '../core/dimensions.ts';
import { RFC3339 } from '../core/field-values.ts';
import { LINK_STATES, TAG_MAX_LENGTH, TAGS_MAX, TITLE_MAX_LENGTH } from '../core/link.ts';
import { URL_MAX_LENGTH } from '../core/url-rules.ts';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, SEARCH_MAX, SEARCH_MIN } from '../links/list-query.ts';

/** A DNS name's longest spelling. */
const HOST_MAX_LENGTH = 253;

export const code = z
  .string()
  .regex(CODE_SHAPE)
  .describe('The short code: the last path segment of the short URL (case-sensitive), e.g. "aB3xY9k" or a custom alias.');

export const domain = z
  .string()
  .min(1)
  .max(HOST_MAX_LENGTH)
  .describe('The host of the link\'s short domain (a link\'s `domain` field, e.g. "go.example.com"). Leave out for the default domain.');

export const url = z.string().min(1).max(URL_MAX_LENGTH).describe('The target: an absolute http:// or https:// URL.');

export const alias = z
  .string()
  .regex(CODE_SHAPE)
  .describe('A custom code instead of a generated one: 3–64 characters of A-Z a-z 0-9 _ -, not a reserved word (e.g. "links", "stats").');

// Trimmed first, as the API trims them: surrounding spaces do not count against a length.
export const title = z
  .string()
  .trim()
  .max(TITLE_MAX_LENGTH)
  .describe(`A title for people, searched by find_links: at most ${TITLE_MAX_LENGTH} characters.`);

// Not bounded in number here: the API counts a tag repeated in another case once (core/link.ts).
export const tags = z
  .array(z.string().trim().min(1).max(TAG_MAX_LENGTH))
  .describe(`At most ${TAGS_MAX} tags of 1–${TAG_MAX_LENGTH} characters, without "," or "|".`);

export const dateTime = z.string().regex(RFC3339).describe('An RFC 3339 date-time with its offset, e.g. "2030-01-31T23:59:59Z".');

export const limit = z
  .number()
  .int()
  .min(1)
  .max(LIST_LIMIT_MAX)
  .describe(`Links per page, 1–${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).`);

export const cursor = z.string().min(1).describe('The nextCursor of the page before; leave out for the first page.');

export const search = z
  .string()
  .trim()
  .min(SEARCH_MIN)
  .max(SEARCH_MAX)
  .describe(`Text searched, ignoring case, in the code, the target URL and the title: ${SEARCH_MIN}–${SEARCH_MAX} characters.`);

export const tag = z.string().trim().min(1).max(TAG_MAX_LENGTH).describe('Only links with this tag.');

export const state = z.enum(LINK_STATES).describe('Only links whose redirect answers in this state now.');

const day = z.iso.date();

/** The period and breakdown of a stats read (GET /links/{code}/stats and GET /stats). */
export const statsPeriod = {
  from: day.optional().describe(`First UTC day, YYYY-MM-DD (default: 29 days before "to"). A range spans at most ${STATS_MAX_DAYS} days.`),
  to: day.optional().describe('Last UTC day, YYYY-MM-DD (default: today).'),
  dimensions: z
    .array(z.enum([...DIMENSIONS, 'all']))
    .min(1)
    .optional()
    .describe('Break the clicks down by these (each a list of values, most clicked first); "all" for every one the deployment keeps.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(STATS_LIMIT_MAX)
    .optional()
    .describe(`Values per dimension, 1–${STATS_LIMIT_MAX} (default 10); the rest are summed as "other".`),
};

/** The query of a stats read from the tool's arguments. */
export function statsQuery(period: {
  from?: string | undefined;
  to?: string | undefined;
  dimensions?: readonly string[] | undefined;
  limit?: number | undefined;
}) {
  return definedOnly({
    from: period.from,
    to: period.to,
    dimensions: period.dimensions?.join(','),
    limit: period.limit === undefined ? undefined : String(period.limit),
  });
}

/** `value` without its undefined fields: the API's types have optional fields, never undefined ones. */
export function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
