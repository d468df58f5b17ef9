// The keys routes of the API: the workspace's API keys, a new one (its secret shown once), and revoking one.
import type { Static } from 'typebox';
import type * as schema from '../../../src/auth/schemas.ts';
import * as sdk from '../../../src/client/operations.ts';
import type { Api } from '../api/client.ts';

export type ApiKey = Static<typeof schema.KeyInfo>;
export type NewKey = Static<typeof schema.CreateKeyBody>;
/** A new key with its secret, which the API shows this once. */
export type CreatedKey = Static<typeof schema.CreatedKey>;

export async function listKeys(api: Api, signal?: AbortSignal): Promise<ApiKey[]> {
  const { data } = await sdk.getKeys({ client: api.client, throwOnError: true, signal: signal ?? null });
  return data.keys;
}

export async function createKey(api: Api, key: NewKey): Promise<CreatedKey> {
  const { data } = await sdk.postKeys({ client: api.client, throwOnError: true, body: key });
  return data;
}

export async function revokeKey(api: Api, id: number): Promise<void> {
  await sdk.deleteKeysById({ client: api.client, throwOnError: true, path: { id: String(id) } });
}
