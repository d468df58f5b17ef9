// Rules for a link's target. Pure: the WHATWG URL parser normalises, we decide.

import type { ErrorCode } from '../errors.ts';
import { targetHostProblem, type TargetPolicy } from './target-policy.ts';

export const URL_MAX_LENGTH = 2048;

// C0 controls, DEL, C1 controls, and invisible Unicode formatting characters that can disguise
// a URL: zero-width, bidirectional overrides, line/paragraph separators, BOM.
// oxlint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_OR_INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/;
const EXPLICIT_HTTP = /^https?:\/\//i;

export type UrlVerdict = { ok: true; url: string } | { ok: false; code: ErrorCode };

/** `policy` says which hosts a link may point at (see target-policy.ts). */
export function checkTargetUrl(input: string, policy: TargetPolicy): UrlVerdict {
  if (CONTROL_OR_INVISIBLE.test(input)) return { ok: false, code: 'URL_CONTROL_CHARACTERS' };
  // Surrounding spaces are the only thing the parser drops that we tolerate.
  const raw = input.trim();
  if (raw.length > URL_MAX_LENGTH) return { ok: false, code: 'URL_TOO_LONG' };
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
  const normalised = url.href;
  if (normalised.length > URL_MAX_LENGTH) return { ok: false, code: 'URL_TOO_LONG' };
  // The parser percent-encodes everything else; this guards the Location header all the same.
  if (!/^[\x21-\x7e]+$/.test(normalised)) return { ok: false, code: 'URL_INVALID' };
  return { ok: true, url: normalised };
}

function hasScheme(raw: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(raw);
}
