// The domains routes of the API: the workspace's short domains, their fallbacks, and their removal.
import type { Api } from '../api/client.ts';

export interface Domain {
  host: string;
  isDefault: boolean;
  rootRedirect: string | null;
  notFoundRedirect: string | null;
  expiredRedirect: string | null;
  links: number;
  createdAt: string | null;
}

/** The three addresses a domain can send people to instead of the service's own 404 or 410 answer. */
export const FALLBACKS = ['rootRedirect', 'notFoundRedirect', 'expiredRedirect'] as const;
export type Fallback = (typeof FALLBACKS)[number];

export type DomainFallbacks = Partial<Record<Fallback, string | null>>;

export interface NewDomain extends DomainFallbacks {
  host: string;
}

export async function listDomains(api: Api, signal?: AbortSignal): Promise<Domain[]> {
  const answer = await api.request<{ domains: Domain[] }>('/domains', { signal });
  return answer.domains;
}

export function createDomain(api: Api, domain: NewDomain): Promise<Domain> {
  return api.request<Domain>('/domains', { method: 'POST', json: domain });
}

export function updateDomain(api: Api, host: string, changes: DomainFallbacks): Promise<Domain> {
  return api.request<Domain>(`/domains/${encodeURIComponent(host)}`, { method: 'PATCH', json: changes });
}

/** With links on it, the domain goes only if they are moved: to `moveLinksTo`, another of the workspace's hosts. */
export function deleteDomain(api: Api, host: string, moveLinksTo: string | null): Promise<void> {
  const query = moveLinksTo === null ? '' : `?${new URLSearchParams({ moveLinksTo })}`;
  return api.request<void>(`/domains/${encodeURIComponent(host)}${query}`, { method: 'DELETE' });
}
