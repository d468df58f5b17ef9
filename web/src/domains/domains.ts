// Short domains in the dashboard: which is the default one, and what the domain forms send the API.
import { FALLBACKS, type Domain, type DomainFallbacks, type NewDomain } from './api.ts';

/** The default domain's host, or null while the domains are not known. */
export function defaultHostOf(domains: readonly Domain[] | null): string | null {
  return domains?.find((d) => d.isDefault)?.host ?? null;
}

/** A field of the domain forms, as the API names it. */
export type DomainField = keyof NewDomain;

/** The domain fields as typed: '' is "none". */
export interface DomainFormValues {
  host: string;
  rootRedirect: string;
  notFoundRedirect: string;
  expiredRedirect: string;
}

export const NO_DOMAIN_VALUES: DomainFormValues = { host: '', rootRedirect: '', notFoundRedirect: '', expiredRedirect: '' };

export function domainFormValues(domain: Domain): DomainFormValues {
  return {
    host: domain.host,
    rootRedirect: domain.rootRedirect ?? '',
    notFoundRedirect: domain.notFoundRedirect ?? '',
    expiredRedirect: domain.expiredRedirect ?? '',
  };
}

/** POST /domains: the host and the fallbacks that were filled in, trimmed; the API checks them all. */
export function newDomain(values: DomainFormValues): NewDomain {
  const domain: NewDomain = { host: values.host.trim() };
  for (const fallback of FALLBACKS) {
    const url = values[fallback].trim();
    if (url !== '') domain[fallback] = url;
  }
  return domain;
}

/** PATCH /domains/:host: only the fallbacks that changed; one emptied is cleared (null). */
export function fallbackChanges(domain: Domain, values: DomainFormValues): DomainFallbacks {
  const changes: DomainFallbacks = {};
  for (const fallback of FALLBACKS) {
    const url = values[fallback].trim();
    const next = url === '' ? null : url;
    if (next !== domain[fallback]) changes[fallback] = next;
  }
  return changes;
}

/** The fields of the domain form an error may be about: the host only when adding (a domain's host never changes). */
export function domainFields(mode: 'create' | 'edit'): DomainField[] {
  return mode === 'create' ? ['host', ...FALLBACKS] : [...FALLBACKS];
}

/** Where a removed domain's links may go: any other domain of the workspace, in the API's order (default first). */
export function moveTargets(domains: readonly Domain[], removing: Domain): Domain[] {
  return domains.filter((d) => d.host !== removing.host);
}
