// Rules for a link's target. Pure: the WHATWG URL parser normalises, we decide.

import type { ErrorCode } from '../errors.ts';
import { targetHostProblem, type TargetPolicy } from './target-policy.ts';

export const URL_MAX_LENGTH = 2048;

// Controls (Cc), invisible formatting characters (Cf: zero-width, bidirectional overrides, soft
// hyphen, tags, BOM) and line and paragraph separators (Zl, Zp): they disguise a URL from people.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const EXPLICIT_HTTP = /^https?:\/\//i;

export type UrlVerdict = { ok: true; url: string } | { ok: false; code: ErrorCode };

/** `policy` says which hosts a link may point at (see target-policy.ts). */
export function checkTargetUrl(input: string, policy: TargetPolicy): UrlVerdict {
  if (INVISIBLE.test(input)) return { ok: false, code: 'URL_CONTROL_CHARACTERS' };
  // Surrounding spaces are the only thing the parser drops that we tolerate.
  const raw = input.trim();
  if (raw.startsWith('//') || raw.startsWith('\\\\') || raw.startsWith('/\\') || raw.startsWith('\\/')) {
    return { ok: false, code: 'URL_NOT_ABSOLUTE' };
  }
  const url = URL.parse(raw);
  if (url === null) return { ok: false, code: hasScheme(raw) ? 'URL_INVALID' : 'URL_NOT_ABSOLUTE' };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, code: 'URL_SCHEME_NOT_ALLOWED' };
  // `http:example.com` and `https:\\host` parse, but say something else to other parsers and to people.
  if (!EXPLICIT_HTTP.test(raw)) return { ok: false, code: 'URL_NOT_ABSOLUTE' };
  if (url.username !== '' || url.password !== '') return { ok: false, code: 'URL_CREDENTIALS_NOT_ALLOWED' };
  if (url.hostname === '') return { ok: false, code: 'URL_INVALID' };
  const hostProblem = targetHostProblem(url.hostname, policy);
  if (hostProblem !== undefined) return { ok: false, code: hostProblem };
  // The limit is on what is stored and sent as Location; the request body's limit bounds the input.
  const normalised = url.href;
  if (normalised.length > URL_MAX_LENGTH) return { ok: false, code: 'URL_TOO_LONG' };
  // The parser percent-encodes everything else; this guards the Location header all the same.
  if (!/^[\x21-\x7e]+$/.test(normalised)) return { ok: false, code: 'URL_INVALID' };
  return { ok: true, url: normalised };
}

function hasScheme(raw: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(raw);
}
