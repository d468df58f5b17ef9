// The keys routes of the API: the workspace's API keys, a new one (its secret shown once), and revoking one.
import type { Static } from 'typebox';
import type * as schema from '../../../src/auth/schemas.ts';
import type { Api } from '../api/client.ts';

export type ApiKey = Static<typeof schema.KeyInfo>;
export type NewKey = Static<typeof schema.CreateKeyBody>;
/** A new key with its secret, which the API shows this once. */
export type CreatedKey = Static<typeof schema.CreatedKey>;

export async function listKeys(api: Api, signal?: AbortSignal): Promise<ApiKey[]> {
  const answer = await api.request<Static<typeof schema.KeyList>>('/keys', { signal });
  return answer.keys;
}

export function createKey(api: Api, key: NewKey): Promise<CreatedKey> {
  return api.request<CreatedKey>('/keys', { method: 'POST', json: key });
}

export function revokeKey(api: Api, id: number): Promise<void> {
  return api.request<void>(`/keys/${id}`, { method: 'DELETE' });
}
