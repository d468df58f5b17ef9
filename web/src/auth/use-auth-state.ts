import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ApiClient, type Session } from '../api/client.ts';
import { ApiError, errorMessage } from '../api/errors.ts';
import { getAuthOptions, type AuthOptions } from '../people/api.ts';
import type { AuthContextValue } from './context.ts';

export type AuthState =
  | { status: 'loading' }
  | { status: 'unreachable'; message: string }
  | { status: 'signed-out'; options: AuthOptions; message: string | null }
  | { status: 'signed-in'; options: AuthOptions; session: Session };

/** Before the options are read (a session cannot be lost before then): nothing offered. */
const NO_OPTIONS: AuthOptions = { signedIn: false, setupNeeded: false, mail: false, sso: false, passkeys: false };

export interface Auth {
  state: AuthState;
  /** Null until the service's options are read. */
  context: AuthContextValue | null;
  /** Reads the options and the session again (after the service could not be reached). */
  reload: () => void;
}

/**
 * Where the app stands: the service's options (is the first admin still to be set up? does it send mail?) and the
 * session, both read when it starts; then each sign-in, workspace switch or lost session.
 */
export function useAuthState(): Auth {
  const [state, setState] = useState<AuthState>({ status: 'loading' });

  const api = useMemo(
    () =>
      new ApiClient({
        onSignedOut: (code) =>
          setState((shown) => ({
            status: 'signed-out',
            options: 'options' in shown ? shown.options : NO_OPTIONS,
            message: code === 'SESSION_EXPIRED' ? 'Your session has expired. Sign in again.' : 'You are signed out. Sign in again.',
          })),
      }),
    [],
  );

  const reload = useCallback(() => {
    setState({ status: 'loading' });
    // The options say whether there is a session to read: a signed-out load asks nothing that answers 401.
    const read = async (): Promise<[AuthOptions, Session | null]> => {
      const options = await getAuthOptions(api);
      if (!options.signedIn) return [options, null];
      const session = await api.getSession().catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      });
      return [options, session];
    };
    read().then(
      ([options, current]) =>
        setState(current === null ? { status: 'signed-out', options, message: null } : { status: 'signed-in', options, session: current }),
      (error: unknown) => setState({ status: 'unreachable', message: errorMessage(error) }),
    );
  }, [api]);

  useEffect(reload, [reload]);

  const context = useMemo<AuthContextValue | null>(() => {
    if (state.status !== 'signed-out' && state.status !== 'signed-in') return null;
    const { options } = state;
    return {
      api,
      options,
      session: state.status === 'signed-in' ? state.session : null,
      // A person now exists whoever signed in: the first run is over.
      signedIn: (session) =>
        setState({ status: 'signed-in', session, options: { ...options, setupNeeded: options.setupNeeded && session.person === null } }),
      signedOut: (message) => setState({ status: 'signed-out', options, message }),
    };
  }, [api, state]);

  return { state, context, reload };
}
