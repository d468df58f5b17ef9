// Which link a page and a request name: a code, and the host of its domain unless it is the default one.

/**
 * Names one link: its code, and the host of its domain when that is not the default domain (null: the default
 * domain, which the API takes when no `domain` is given).
 */
export interface LinkKey {
  code: string;
  domain: string | null;
}

/**
 * The key of a link from the API. Its domain is named unless it is known to be the default one: the API reads a
 * code without a domain on the default domain, so leaving it out only when sure is always right.
 */
export function linkKeyOf(link: { code: string; domain: string }, defaultHost: string | null): LinkKey {
  return { code: link.code, domain: link.domain === defaultHost ? null : link.domain };
}

/** The dashboard page of a link: `/app/links/<code>`, with `?domain=<host>` off the default domain. */
export function linkHref(link: LinkKey): string {
  const page = `/app/links/${encodeURIComponent(link.code)}`;
  return link.domain === null ? page : `${page}?${new URLSearchParams({ domain: link.domain })}`;
}

/** An element id for one link, unique when the same code exists on two domains (a host has no "/"). */
export function linkElementId(prefix: string, link: LinkKey): string {
  return link.domain === null ? `${prefix}-${link.code}` : `${prefix}-${link.domain}/${link.code}`;
}

/** The `path` and `query` of the API's operations on one link: `domain` off the default domain, as linkPath says. */
export function linkRequest(link: LinkKey): { path: { code: string }; query: { domain?: string } } {
  return { path: { code: link.code }, query: link.domain === null ? {} : { domain: link.domain } };
}

/**
 * The API's path of one link (and of its `/stats`, `/stats.csv` or `/qr`), with `?domain=` for a link that is not on the
 * default domain: without it, the API reads the code on the default domain.
 */
export function linkPath(link: LinkKey, sub: '' | '/stats' | '/stats.csv' | '/qr' = '', query: Record<string, string> = {}): string {
  const params = new URLSearchParams(query);
  if (link.domain !== null) params.set('domain', link.domain);
  const search = params.toString();
  return `/links/${encodeURIComponent(link.code)}${sub}${search === '' ? '' : `?${search}`}`;
}
