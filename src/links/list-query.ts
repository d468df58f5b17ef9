// What a request for the link list asks for: its filters, its order, its page. Pure: no I/O.
// Pages are keyset pages: a cursor holds the sort key of the last link shown, so a link inserted
// meanwhile never shifts a page (no link is shown twice or skipped), and reading page 1000 costs
// what page 1 does.

import { parseId } from '../core/ids.ts';
import { codePoints } from '../core/field-values.ts';
import { LINK_STATES, TAG_MAX_LENGTH, type LinkState } from '../core/link.ts';

export const LIST_LIMIT_DEFAULT = 25;
export const LIST_LIMIT_MAX = 100;
/** Links counted at most for a list's total: counting stops there, so that a page's cost stays bounded on any workspace. */
export const TOTAL_MAX = 10_000;
export const SEARCH_MIN = 3;
export const SEARCH_MAX = 100;
const SORTS = ['created', 'clicks'] as const;
export type ListSort = (typeof SORTS)[number];

export interface ListFilter {
  /** A substring of the code, the target or the title, without case. */
  readonly q?: string;
  readonly tag?: string;
  readonly state?: LinkState;
  /** The id of the key that created the links. */
  readonly creator?: number;
  /** The id of their short domain (the API names it by host; the route looks it up). */
  readonly domainId?: number;
  /** Only links whose target probes call broken (health=broken; docs/target-health.md). */
  readonly broken?: true;
  /** Archived links: left out (`exclude`, what a request that does not say gets), with the others, or alone; absent: no condition. */
  readonly archived?: ArchivedFilter;
}

export const ARCHIVED_FILTERS = ['exclude', 'include', 'only'] as const;
export type ArchivedFilter = (typeof ARCHIVED_FILTERS)[number];

/** Where the page before ended: its last link's sort key (created_at as Postgres prints it, or clicks) and code. */
export interface Cursor {
  readonly sort: ListSort;
  readonly value: string;
  readonly code: string;
}

export interface ListRequest {
  readonly sort: ListSort;
  readonly limit: number;
  readonly filter: ListFilter;
  readonly after: Cursor | undefined;
}

export type ListQueryVerdict =
  { ok: true; request: ListRequest } | { ok: false; code: 'LIST_QUERY_INVALID' | 'CURSOR_INVALID'; message: string };

export interface ListQueryParams {
  limit?: string | undefined;
  cursor?: string | undefined;
  sort?: string | undefined;
  q?: string | undefined;
  tag?: string | undefined;
  state?: string | undefined;
  creator?: string | undefined;
  domain?: string | undefined;
  health?: string | undefined;
  archived?: string | undefined;
}

const refuse = (message: string): ListQueryVerdict => ({ ok: false, code: 'LIST_QUERY_INVALID', message });

/** The filters alone (the export takes no page): an error message, or the filter. */
export function readFilter(params: ListQueryParams): ListFilter | string {
  const archived = ARCHIVED_FILTERS.find((candidate) => candidate === (params.archived ?? 'exclude'));
  if (archived === undefined) return `archived must be one of ${ARCHIVED_FILTERS.join(', ')}.`;
  const filter: { q?: string; tag?: string; state?: LinkState; creator?: number; broken?: true; archived: ArchivedFilter } = { archived };
  if (params.q !== undefined) {
    const q = params.q.trim();
    if (codePoints(q) < SEARCH_MIN || codePoints(q) > SEARCH_MAX) return `q must be ${SEARCH_MIN} to ${SEARCH_MAX} characters.`;
    filter.q = q;
  }
  if (params.tag !== undefined) {
    const tag = params.tag.trim();
    if (tag.length === 0 || codePoints(tag) > TAG_MAX_LENGTH) return `tag must be 1 to ${TAG_MAX_LENGTH} characters.`;
    filter.tag = tag;
  }
  if (params.state !== undefined) {
    const state = LINK_STATES.find((candidate) => candidate === params.state);
    if (state === undefined) return `state must be one of ${LINK_STATES.join(', ')}.`;
    filter.state = state;
  }
  if (params.creator !== undefined) {
    const creator = parseId(params.creator);
    if (creator === undefined) return 'creator must be the id of a key (an integer).';
    filter.creator = creator;
  }
  if (params.health !== undefined) {
    if (params.health !== 'broken') return 'health must be broken.';
    filter.broken = true;
  }
  return filter;
}

export function readListQuery(params: ListQueryParams): ListQueryVerdict {
  const sort = params.sort ?? 'created';
  if (sort !== 'created' && sort !== 'clicks') return refuse(`sort must be one of ${SORTS.join(', ')}.`);
  let limit = LIST_LIMIT_DEFAULT;
  if (params.limit !== undefined) {
    limit = /^\d{1,3}$/.test(params.limit) ? Number(params.limit) : 0;
    if (limit < 1 || limit > LIST_LIMIT_MAX) return refuse(`limit must be an integer from 1 to ${LIST_LIMIT_MAX}.`);
  }
  const filter = readFilter(params);
  if (typeof filter === 'string') return refuse(filter);
  let after: Cursor | undefined;
  if (params.cursor !== undefined) {
    after = decodeCursor(params.cursor);
    if (after === undefined)
      return { ok: false, code: 'CURSOR_INVALID', message: 'cursor is not one this list gave; start again from the first page.' };
    if (after.sort !== sort)
      return { ok: false, code: 'CURSOR_INVALID', message: `cursor belongs to a list sorted by ${after.sort}, not ${sort}.` };
  }
  return { ok: true, request: { sort, limit, filter, after } };
}

// A created_at as Postgres prints a timestamptz (microseconds, an offset), read back exactly.
const CREATED = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?[+-](\d{2})(?::(\d{2})){0,2}$/;
const CLICKS = /^\d{1,19}$/;
const BIGINT_MAX = 2n ** 63n - 1n;
const CODE = /^[A-Za-z0-9_-]{3,64}$/;

const within = (n: number | undefined, max: number): boolean => n !== undefined && n <= max;

/** A date and time Postgres would take back: a real day of the month, hours, minutes, seconds and offset in range. */
function isCreated(value: string): boolean {
  const m = CREATED.exec(value);
  if (m === null) return false;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = m.slice(1).map((part) => Number(part ?? 0));
  if (year === undefined || month === undefined || day === undefined) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    within(hour, 23) &&
    within(minute, 59) &&
    within(second, 59) &&
    within(offsetHours, 15) &&
    within(offsetMinutes, 59)
  );
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.value, cursor.code])).toString('base64url');
}

function decodeCursor(text: string): Cursor | undefined {
  if (text.length > 200 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
  const [sort, value, code] = parsed as unknown[];
  if (typeof value !== 'string' || typeof code !== 'string' || !CODE.test(code)) return undefined;
  if (sort === 'created' && isCreated(value)) return { sort, value, code };
  if (sort === 'clicks' && CLICKS.test(value) && BigInt(value) <= BIGINT_MAX) return { sort, value, code };
  return undefined;
}

/** A LIKE pattern that matches `text` anywhere, its own %, _ and \ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, '\\$&')}%`;
}
