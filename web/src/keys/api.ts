// The keys routes of the API: the workspace's API keys, a new one (its secret shown once), and revoking one.
import type { Api, Role } from '../api/client.ts';

export interface ApiKey {
  id: number;
  name: string;
  role: Role;
  createdAt: string;
  revokedAt: string | null;
}

export interface CreatedKey {
  id: number;
  name: string;
  role: Role;
  createdAt: string;
  key: string;
}

export async function listKeys(api: Api, signal?: AbortSignal): Promise<ApiKey[]> {
  const answer = await api.request<{ keys: ApiKey[] }>('/keys', { signal });
  return answer.keys;
}

export function createKey(api: Api, name: string, role: Role): Promise<CreatedKey> {
  return api.request<CreatedKey>('/keys', { method: 'POST', json: { name, role } });
}

export function revokeKey(api: Api, id: number): Promise<void> {
  return api.request<void>(`/keys/${id}`, { method: 'DELETE' });
}
