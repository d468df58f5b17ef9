import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient, Session } from '../api/client.ts';

export interface AppContextValue {
  api: ApiClient;
  session: Session;
}

export const AppContext = createContext<AppContextValue | null>(null);

/** The API client, the signed-in session; only pages behind sign-in use it. */
export function useApp(): AppContextValue {
  const value = useContext(AppContext);
  if (value === null) throw new Error('useApp() is used outside of a signed-in page');
  return value;
}

/** What the signed-in key may do; the API checks every action again. */
export function permissions(session: Session) {
  const { role, id } = session.key;
  return {
    canCreate: role !== 'viewer',
    canManageKeys: role === 'admin',
    canManageDomains: role === 'admin',
    canManageWebhooks: role === 'admin',
    canManage: (creator: { id: number } | null) => role === 'admin' || (role === 'member' && creator !== null && creator.id === id),
  };
}
