import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient, Session } from '../api/client.ts';
import type { AuthOptions } from '../people/api.ts';

export interface AuthContextValue {
  api: ApiClient;
  /** What the service offers (mail, the first run), read when the app starts. */
  options: AuthOptions;
  /** Null before signing in. */
  session: Session | null;
  /** A new session (signed in, set up, joined, another workspace): the app shows it. */
  signedIn: (session: Session) => void;
  /** The session ended (left the workspace, signed out elsewhere): the sign-in page, with `message`. */
  signedOut: (message: string) => void;
}

export type AppContextValue = AuthContextValue & { session: Session };

export const AuthContext = createContext<AuthContextValue | null>(null);

/** The API client, the service's options and the session if there is one: for the pages shown before signing in too. */
export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (value === null) throw new Error('useAuth() is used outside of the app');
  return value;
}

/** The API client and the signed-in session; only pages behind sign-in use it. */
export function useApp(): AppContextValue {
  const value = useAuth();
  const { session } = value;
  if (session === null) throw new Error('useApp() is used outside of a signed-in page');
  return { ...value, session };
}

/** What the signed-in key (a person's membership, or an API key) may do; the API checks every action again. */
export function permissions(session: Session) {
  const { role, id } = session.key;
  const admin = role === 'admin';
  return {
    canCreate: role !== 'viewer',
    /** Admins manage the workspace's keys; a person who is not an admin, their own personal keys. */
    canManageKeys: admin || session.person !== null,
    canManageDomains: admin,
    canManageWebhooks: admin,
    /** Invite, change roles, remove members. */
    canManageMembers: admin,
    canReadAudit: admin,
    canManageWorkspace: admin,
    /** A profile, sessions, leaving: a person's, not an API key's. */
    isPerson: session.person !== null,
    canManage: (creator: { id: number } | null) => admin || (role === 'member' && creator !== null && creator.id === id),
  };
}
