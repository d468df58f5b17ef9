// GET /links/alias-availability (links/alias-routes.ts): whether an alias is free on a domain.
import type { Static } from 'typebox';
import type { AliasAvailability } from '../../../../src/links/schemas.ts';
import type { Api } from '../../api/client.ts';

export type Availability = Static<typeof AliasAvailability>;

export function aliasAvailability(api: Api, alias: string, domain: string, signal: AbortSignal): Promise<Availability> {
  const params = new URLSearchParams({ alias });
  if (domain !== '') params.set('domain', domain);
  return api.request<Availability>(`/links/alias-availability?${params.toString()}`, { signal });
}
