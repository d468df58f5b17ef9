// YOURLS's answers (includes/functions-api.php, functions-shorturls.php, functions.php of YOURLS
// 1.10) from our links and errors: the same fields in the same order, YOURLS's status codes as
// strings, and, beside YOURLS's fields on every error, our stable code as `stableCode` (YOURLS's
// shorturl answers have a `code` of their own: "error:keyword"). Pure: no I/O.

import { ERRORS, type ErrorCode } from '../errors.ts';
import type { LinkDetails } from '../links/store.ts';
import type { YourlsAnswer } from './yourls-output.ts';

/** The YOURLS release whose API this adapter answers as (`action=version`). */
export const YOURLS_VERSION = '1.10.4';
const STATS_SIMPLE = 'Need either XML or JSON format for stats';
const NOT_FOUND = 'Error: short URL not found';

/** A link as YOURLS shows one: `title` is its URL when it has none (YOURLS stores the URL when it cannot fetch a title). */
export interface ShownLink {
  readonly keyword: string;
  readonly shorturl: string;
  readonly url: string;
  readonly title: string;
  /** YOURLS's timestamp: "Y-m-d H:i:s", here in UTC. */
  readonly timestamp: string;
  readonly clicks: number;
}

export function shownLink(link: Pick<LinkDetails, 'code' | 'url' | 'title' | 'createdAt' | 'clicks'>, shortUrl: string): ShownLink {
  return {
    keyword: link.code,
    shorturl: shortUrl,
    url: link.url,
    title: link.title ?? link.url,
    timestamp: yourlsTime(link.createdAt),
    clicks: link.clicks,
  };
}

/** YOURLS's "Y-m-d H:i:s". */
export function yourlsTime(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', ' ');
}

/** A link's stats as YOURLS's url-stats and stats list it; `ip` is empty: no client address is kept here. */
function linkStats(link: ShownLink): YourlsAnswer {
  return { shorturl: link.shorturl, url: link.url, title: link.title, timestamp: link.timestamp, ip: '', clicks: link.clicks };
}

/** yourls_add_new_link's success, as the shorturl action answers it. */
export function created(link: ShownLink): YourlsAnswer {
  return {
    status: 'success',
    code: '',
    message: `${trimLong(link.url)} added to database`,
    errorCode: '',
    statusCode: '200',
    url: { keyword: link.keyword, url: link.url, title: link.title, date: link.timestamp, ip: '' },
    title: link.title,
    shorturl: link.shorturl,
    simple: link.shorturl,
  };
}

/** yourls_add_new_link's failure: YOURLS's `code` for the case where it has one, and its status. */
export function createFailed(code: ErrorCode, message: string, keyword: string): YourlsAnswer {
  const status = String(yourlsStatus(code));
  return {
    status: 'fail',
    code: createCode(code),
    message:
      code === 'ALIAS_TAKEN' || code === 'ALIAS_RESERVED' ? `Short URL ${keyword} already exists in database or is reserved` : message,
    errorCode: status,
    statusCode: status,
    stableCode: code,
    simple: '',
  };
}

export function expanded(link: ShownLink): YourlsAnswer {
  return {
    keyword: link.keyword,
    shorturl: link.shorturl,
    longurl: link.url,
    title: link.title,
    simple: link.url,
    message: 'success',
    statusCode: '200',
  };
}

export function notExpanded(keyword: string): YourlsAnswer {
  return { keyword, simple: 'not found', message: NOT_FOUND, errorCode: '404', stableCode: 'LINK_NOT_FOUND' };
}

export function urlStats(link: ShownLink): YourlsAnswer {
  return { statusCode: '200', message: 'success', link: linkStats(link), simple: STATS_SIMPLE };
}

export function noUrlStats(): YourlsAnswer {
  return { statusCode: '404', message: NOT_FOUND, stableCode: 'LINK_NOT_FOUND', simple: STATS_SIMPLE };
}

/** The workspace's totals, as yourls_get_db_stats; `total_links_at_least` past the most the list counts. */
export interface Totals {
  readonly links: number;
  readonly atLeast: boolean;
  readonly clicks: number;
}

function totalsOf(totals: Totals): YourlsAnswer {
  return {
    total_links: totals.links,
    total_clicks: totals.clicks,
    ...(totals.atLeast ? { total_links_at_least: 'true' } : {}),
  };
}

/** yourls_get_stats: `links` (link_1, link_2, …) only when some are asked for and there are some. */
export function stats(links: readonly ShownLink[], totals: Totals): YourlsAnswer {
  const listed: Record<string, YourlsAnswer> = {};
  links.forEach((link, i) => (listed[`link_${i + 1}`] = linkStats(link)));
  return {
    ...(links.length === 0 ? {} : { links: listed }),
    stats: totalsOf(totals),
    statusCode: '200',
    message: 'success',
    simple: STATS_SIMPLE,
  };
}

export function dbStats(totals: Totals): YourlsAnswer {
  return { 'db-stats': totalsOf(totals), statusCode: '200', message: 'success', simple: STATS_SIMPLE };
}

export function version(): YourlsAnswer {
  return { version: YOURLS_VERSION, simple: YOURLS_VERSION };
}

export function unknownAction(): YourlsAnswer {
  const message = 'Unknown or missing "action" parameter';
  return { errorCode: '400', message, simple: message, stableCode: 'BAD_REQUEST' };
}

/** The answer of auth.php when no user is recognised: YOURLS's 403, its message, the callback echoed. */
export function notAuthenticated(code: ErrorCode, message: string, callback: string): YourlsAnswer {
  return { simple: message, message, errorCode: '403', callback, stableCode: code };
}

/** Any other refusal: YOURLS's status in `errorCode`, our message, and the stable code. */
export function failed(code: ErrorCode, message: string): YourlsAnswer {
  return { errorCode: String(yourlsStatus(code)), message, simple: message, stableCode: code };
}

/** The status YOURLS answers with where ours differs: 403 for credentials, 400 for a keyword that is taken. */
export function yourlsStatus(code: ErrorCode): number {
  if (code === 'API_KEY_INVALID' || code === 'API_KEY_REQUIRED') return 403;
  if (code === 'ALIAS_TAKEN') return 400;
  return ERRORS[code].status;
}

/** YOURLS's `code` of a failed create: its own where it has one for the case, else ours, lower-cased, in its form. */
function createCode(code: ErrorCode): string {
  if (code === 'URL_SELF_REFERENCE') return 'error:noloop';
  if (code.startsWith('URL_')) return 'error:nourl';
  if (code.startsWith('ALIAS_')) return 'error:keyword';
  return `error:${code.toLowerCase()}`;
}

/** yourls_trim_long_string: at most 60 characters, the end as "[...]". */
function trimLong(text: string): string {
  // Code points, as PHP's mb_substr counts.
  const chars = Array.from(text);
  return chars.length > 60 ? `${chars.slice(0, 55).join('')}[...]` : text;
}
