// What click analytics counts a click under: one value per dimension, kept per link and day
// (migrations/0009_analytics.sql). Each dimension's number is its column value in the rollups;
// 0 is the link's own row (every click, and the sketch of all its visitors).

export const DIMENSIONS = ['referrer', 'country', 'city', 'device', 'browser', 'os', 'language', 'source', 'target'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** The number a dimension is stored under: its place in DIMENSIONS, plus one. */
export function dimensionId(dimension: Dimension): number {
  return DIMENSIONS.indexOf(dimension) + 1;
}

/** The dimensions of a single link's clicks only: which of its rules or A/B variants answered (not added up per workspace). */
export const LINK_ONLY_DIMENSIONS: readonly Dimension[] = ['target'];

export function isDimension(name: string): name is Dimension {
  return (DIMENSIONS as readonly string[]).includes(name);
}

/** What the analytics may keep (ANALYTICS_DIMENSIONS): the dimensions, and unique visitors. */
export const ANALYTICS_PARTS = [...DIMENSIONS, 'visitors'] as const;
export type AnalyticsPart = (typeof ANALYTICS_PARTS)[number];

export function isAnalyticsPart(name: string): name is AnalyticsPart {
  return (ANALYTICS_PARTS as readonly string[]).includes(name);
}

/** The value a dimension has when the request did not say (no Referer: `direct`). */
export const UNKNOWN = 'unknown';
export const DIRECT = 'direct';
/** The value stored for every value past the bound of a dimension ('' never names a real one). */
export const OTHER = '';

export const DEVICES = ['desktop', 'mobile', 'tablet', 'bot', 'other'] as const;
export type Device = (typeof DEVICES)[number];

/** Longest value kept; longer ones (a made-up referrer host) are cut. */
const VALUE_MAX_LENGTH = 100;
const HOST_CHARS = /^[a-z0-9.-]+$/;

/**
 * The host a Referer names, lowercase, without `www.` and port; `direct` when there is none. The
 * path and query are never kept (they may carry what the referring page knew of the visitor).
 */
export function referrerHost(referer: string | undefined): string {
  if (referer === undefined || referer === '') return DIRECT;
  const scheme = referer.indexOf('://');
  const start = scheme === -1 ? 0 : scheme + 3;
  let end = referer.length;
  for (let i = start; i < end; i++) {
    const c = referer.charCodeAt(i);
    // '/', '?' and '#' end the authority.
    if (c === 0x2f || c === 0x3f || c === 0x23) {
      end = i;
      break;
    }
  }
  let authority = referer.slice(start, end);
  // Userinfo is never kept, nor the port.
  const at = authority.lastIndexOf('@');
  if (at !== -1) authority = authority.slice(at + 1);
  const colon = authority.indexOf(':');
  if (colon !== -1) authority = authority.slice(0, colon);
  let host = authority.toLowerCase();
  if (host.startsWith('www.')) host = host.slice(4);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '' || !HOST_CHARS.test(host)) return UNKNOWN;
  return host.length > VALUE_MAX_LENGTH ? host.slice(0, VALUE_MAX_LENGTH) : host;
}

/**
 * The visitor's primary language from Accept-Language: the primary subtag of the range with the
 * highest quality (the first of equals), lowercase; `unknown` without one (`*` included).
 */
export function primaryLanguage(acceptLanguage: string | undefined): string {
  if (acceptLanguage === undefined) return UNKNOWN;
  let best = UNKNOWN;
  let bestQ = 0;
  for (const range of acceptLanguage.split(',', 20)) {
    const semicolon = range.indexOf(';');
    const tag = (semicolon === -1 ? range : range.slice(0, semicolon)).trim();
    let q = 1;
    if (semicolon !== -1) {
      const match = /q\s*=\s*([01](?:\.\d{0,3})?)/i.exec(range.slice(semicolon + 1));
      q = match === null ? 0 : Number(match[1]);
    }
    const dash = tag.indexOf('-');
    const primary = (dash === -1 ? tag : tag.slice(0, dash)).toLowerCase();
    if (q > bestQ && /^[a-z]{2,3}$/.test(primary)) {
      best = primary;
      bestQ = q;
    }
  }
  return best;
}

/** The device type of a parsed User-Agent (bowser's platform type), a bot whatever it says. */
export function deviceOf(platformType: string | undefined, bot: boolean): Device {
  if (bot) return 'bot';
  switch (platformType) {
    case 'desktop':
    case 'mobile':
    case 'tablet':
      return platformType;
    case 'bot':
      return 'bot';
    default:
      return 'other';
  }
}

/** A family name (browser, OS) as kept: `unknown` when absent, cut to length. */
export function familyName(name: string | undefined): string {
  if (name === undefined || name === '') return UNKNOWN;
  return name.length > VALUE_MAX_LENGTH ? name.slice(0, VALUE_MAX_LENGTH) : name;
}
