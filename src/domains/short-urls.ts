// A link's address for people: its domain's host and its short URL. The default domain's short
// URLs are BASE_URL's (its scheme, port and path); a branded domain's are https-or-http as BASE_URL
// is, on the domain's host.

import { checkDomainHost, DEFAULT_DOMAIN_ID, storedHostOf } from '../core/domains.ts';
import { AppError, type ErrorCode } from '../errors.ts';
import type { HostTable, ServedDomain } from '../resolve/hosts.ts';

export interface LinkAddress {
  readonly domain: string;
  readonly shortUrl: string;
}

export interface ShortUrls {
  /**
   * Where the link (domainId, code) is: on the host read with it (`domainHost`, LinkDetails), else
   * on the host this instance's table has for its domain.
   */
  of(link: { readonly domainId: number; readonly code: string; readonly domainHost?: string | null }): LinkAddress;
  /**
   * The domain `host` names for a request of `workspaceId`: the default (`host` absent, or the
   * default's host) or one of the workspace's own; the AppError `unknown` otherwise (DOMAIN_UNKNOWN,
   * a 400, by default). A host this instance has not heard of yet is looked for again
   * in Postgres (at most once per REFRESH_GAP_MS), so a domain added on another instance is usable at once.
   */
  domainOf(host: string | undefined, workspaceId: number, unknown?: ErrorCode): Promise<ServedDomain>;
  /**
   * As domainOf, for a domain links are to be put on (a create, an import, the domain a removed
   * one's links move to): 409 DOMAIN_NOT_VERIFIED for one whose DNS record is not verified. `host`
   * absent: the workspace's default domain (docs/settings.md), else the deployment's.
   */
  servedDomainOf(host: string | undefined, workspaceId: number, unknown?: ErrorCode): Promise<ServedDomain>;
}

const REFRESH_GAP_MS = 250;

export function createShortUrls(
  baseUrl: string,
  hosts: Pick<HostTable, 'byId' | 'byHost' | 'defaultDomain' | 'refresh' | 'workspaceDefault'>,
): ShortUrls {
  const scheme = new URL(baseUrl).protocol;
  let refreshedAt = -Infinity;
  const find = (host: string, workspaceId: number): ServedDomain | undefined => {
    const domain = hosts.byHost(host);
    return domain !== undefined && (domain.workspaceId === null || domain.workspaceId === workspaceId) ? domain : undefined;
  };
  return {
    of(link) {
      const host = link.domainId === DEFAULT_DOMAIN_ID ? undefined : (link.domainHost ?? hosts.byId(link.domainId)?.host);
      if (host === undefined) return { domain: hosts.defaultDomain.host, shortUrl: `${baseUrl}/${link.code}` };
      return { domain: host, shortUrl: `${scheme}//${host}/${link.code}` };
    },
    domainOf: (host, workspaceId, unknown = 'DOMAIN_UNKNOWN') => lookUp(host, workspaceId, unknown, false),
    // No host named: the workspace's default domain (its settings), else the deployment's.
    servedDomainOf: (host, workspaceId, unknown = 'DOMAIN_UNKNOWN') =>
      lookUp(host ?? hosts.workspaceDefault(workspaceId)?.host, workspaceId, unknown, true),
  };

  async function lookUp(host: string | undefined, workspaceId: number, unknown: ErrorCode, served: boolean): Promise<ServedDomain> {
    if (host === undefined) return hosts.defaultDomain;
    const name = storedHostOf(host);
    let domain = find(name, workspaceId);
    // Not heard of, or not verified yet on this instance: another may have added or verified it.
    const stale = domain === undefined || (served && !domain.served);
    if (stale && checkDomainHost(name).ok && performance.now() - refreshedAt > REFRESH_GAP_MS) {
      refreshedAt = performance.now();
      await hosts.refresh();
      domain = find(name, workspaceId);
    }
    if (domain === undefined) throw new AppError(unknown);
    if (served && !domain.served) throw new AppError('DOMAIN_NOT_VERIFIED');
    return domain;
  }
}
