// GET /links/alias-availability (links/alias-routes.ts): whether an alias is free on a domain.
import type { Static } from 'typebox';
import type { AliasAvailability } from '../../../../src/links/schemas.ts';
import * as sdk from '../../../../src/client/operations.ts';
import type { Api } from '../../api/client.ts';

export type Availability = Static<typeof AliasAvailability>;

export async function aliasAvailability(api: Api, alias: string, domain: string, signal: AbortSignal): Promise<Availability> {
  const query = domain === '' ? { alias } : { alias, domain };
  const { data } = await sdk.getLinksAliasAvailability({ client: api.client, throwOnError: true, query, signal });
  return data;
}
