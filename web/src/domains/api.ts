// The domains routes of the API: the workspace's short domains, their fallbacks, and their removal.
import type { Static } from 'typebox';
import type * as schema from '../../../src/domains/schemas.ts';
import type * as checkSchema from '../../../src/domains/check-schemas.ts';
import type { Api } from '../api/client.ts';
import { listOf } from '../shared/lists.ts';

export type Domain = Static<typeof schema.DomainView>;
export type NewDomain = Static<typeof schema.CreateDomainBody>;
/** A change of a domain's fallbacks: one left out is kept, null removes it. */
export type DomainFallbacks = Static<typeof schema.PatchDomainBody>;

/** The three addresses a domain can send people to instead of the service's own 404 or 410 answer. */
export type Fallback = keyof DomainFallbacks;
export const FALLBACKS = listOf<Fallback>()(['rootRedirect', 'notFoundRedirect', 'expiredRedirect']);

export async function listDomains(api: Api, signal?: AbortSignal): Promise<Domain[]> {
  const answer = await api.request<Static<typeof schema.DomainList>>('/domains', { signal });
  return answer.domains;
}

export function createDomain(api: Api, domain: NewDomain): Promise<Domain> {
  return api.request<Domain>('/domains', { method: 'POST', json: domain });
}

export function updateDomain(api: Api, host: string, changes: DomainFallbacks): Promise<Domain> {
  return api.request<Domain>(`/domains/${encodeURIComponent(host)}`, { method: 'PATCH', json: changes });
}

/** Looks the domain's TXT record up now: the domain verified, or an ApiError saying what was found. */
export function verifyDomain(api: Api, host: string): Promise<Domain> {
  return api.request<Domain>(`/domains/${encodeURIComponent(host)}/verify`, { method: 'POST' });
}

/** Whether a domain points to the service and serves a good certificate, and what to set when not. */
export type DomainCheck = Static<typeof checkSchema.DomainCheckView>;

/** Looks the domain's DNS up and its certificate over, now (a few times a minute a workspace). */
export function checkDomain(api: Api, host: string): Promise<DomainCheck> {
  return api.request<DomainCheck>(`/domains/${encodeURIComponent(host)}/check`);
}

/** With links on it, the domain goes only if they are moved: to `moveLinksTo`, another of the workspace's hosts. */
export function deleteDomain(api: Api, host: string, moveLinksTo: string | null): Promise<void> {
  const query = moveLinksTo === null ? '' : `?${new URLSearchParams({ moveLinksTo })}`;
  return api.request<void>(`/domains/${encodeURIComponent(host)}${query}`, { method: 'DELETE' });
}
