// What a link that does not redirect sends a visitor to instead, and the page a flagged link shows
// first: the redirect handler's (redirect-handler.ts) choices off its hot path, for entries that are
// no plain redirect.

import type { NoRedirect, RedirectTarget } from '../cache/link-cache.ts';
import type { LinkRules, Visitor } from '../core/redirect-rules.ts';
import { warningPage } from '../core/warning-page.ts';
import type { HtmlPage } from '../core/html-page.ts';
import type { ServedDomain } from '../resolve/hosts.ts';

/**
 * Where `entry` sends a visitor on `domain`, or null for its own answer: an expired link's own
 * fallback (expiredUrl) first; a link not live yet is a 404 to its visitors, as an unknown code is
 * (the domain's not-found fallback, not the expired one); a blocked link says why, always.
 * Neither fallback is a click of the link's.
 */
export function fallbackFor(entry: NoRedirect, domain: ServedDomain, absent: boolean): RedirectTarget | null {
  if (entry.fallback !== undefined) return entry.fallback;
  if (absent || entry.opensAt !== undefined) return domain.notFoundRedirect;
  return entry.answer === 'LINK_BLOCKED' ? null : domain.expiredRedirect;
}

/** The warning page of a flagged link (core/warning-page.ts), naming where its rules send `visitor`. */
export function warningFor(rules: LinkRules & { readonly warning: string }, visitor: Visitor, domain: ServedDomain, key: string): HtmlPage {
  const target = rules.locationOf(rules.target(visitor, Date.now()), visitor);
  return warningPage({ host: domain.host, code: key.slice(domain.prefix.length), target, list: rules.warning });
}
