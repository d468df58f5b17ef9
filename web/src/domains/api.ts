// The domains routes of the API: the workspace's short domains, their fallbacks, and their removal.
import type { Static } from 'typebox';
import type * as schema from '../../../src/domains/schemas.ts';
import type * as checkSchema from '../../../src/domains/check-schemas.ts';
import * as sdk from '../../../src/client/operations.ts';
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
  const { data } = await sdk.getDomains({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.domains;
}

export async function createDomain(api: Api, domain: NewDomain): Promise<Domain> {
  const { data } = await sdk.postDomains({ client: api.client, throwOnError: true, body: domain });
  return data;
}

export async function updateDomain(api: Api, host: string, changes: DomainFallbacks): Promise<Domain> {
  const { data } = await sdk.patchDomainsByHost({ client: api.client, throwOnError: true, path: { host }, body: changes });
  return data;
}

/** Looks the domain's TXT record up now: the domain verified, or an ApiError saying what was found. */
export async function verifyDomain(api: Api, host: string): Promise<Domain> {
  const { data } = await sdk.postDomainsByHostVerify({ client: api.client, throwOnError: true, path: { host } });
  return data;
}

/** Whether a domain points to the service and serves a good certificate, and what to set when not. */
export type DomainCheck = Static<typeof checkSchema.DomainCheckView>;

/** Looks the domain's DNS up and its certificate over, now (a few times a minute a workspace). */
export async function checkDomain(api: Api, host: string): Promise<DomainCheck> {
  const { data } = await sdk.getDomainsByHostCheck({ client: api.client, throwOnError: true, path: { host } });
  return data;
}

/** With links on it, the domain goes only if they are moved: to `moveLinksTo`, another of the workspace's hosts. */
export async function deleteDomain(api: Api, host: string, moveLinksTo: string | null): Promise<void> {
  const query = moveLinksTo === null ? {} : { moveLinksTo };
  await sdk.deleteDomainsByHost({ client: api.client, throwOnError: true, path: { host }, query });
}
