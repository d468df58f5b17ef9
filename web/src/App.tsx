import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { AnalyticsPage } from './analytics/AnalyticsPage.tsx';
import { ApiClient, type Session } from './api/client.ts';
import { errorMessage } from './api/errors.ts';
import { ApiError } from './api/errors.ts';
import { AppContext, type AppContextValue } from './auth/context.ts';
import { SignInPage } from './auth/SignInPage.tsx';
import { DomainsPage } from './domains/DomainsPage.tsx';
import { ImportPage } from './import/ImportPage.tsx';
import { KeysPage } from './keys/KeysPage.tsx';
import { LinkPage } from './links/LinkPage.tsx';
import { LinksPage } from './links/LinksPage.tsx';
import { NewLinkPage } from './links/NewLinkPage.tsx';
import { Header } from './shared/Header.tsx';
import { NotFoundPage } from './shared/NotFoundPage.tsx';
import { StatusProvider, useAnnounce } from './shared/Status.tsx';
import { WebhooksPage } from './webhooks/WebhooksPage.tsx';

const SIGN_IN = '/app/sign-in';

type AuthState =
  | { status: 'loading' }
  | { status: 'unreachable'; message: string }
  | { status: 'signed-out'; message: string | null }
  | { status: 'signed-in'; session: Session };

export function App() {
  return (
    <LocationProvider scope="/app">
      <StatusProvider>
        <Shell />
      </StatusProvider>
    </LocationProvider>
  );
}

/** Reads the session once, keeps people who are not signed in on the sign-in page, and lays out the pages. */
function Shell() {
  const { url, path, query, route } = useLocation();
  const announce = useAnnounce();
  const [auth, setAuth] = useState<AuthState>({ status: 'loading' });
  const [signingOut, setSigningOut] = useState(false);

  const api = useMemo(
    () =>
      new ApiClient({
        onSignedOut: (code) =>
          setAuth({
            status: 'signed-out',
            message: code === 'SESSION_EXPIRED' ? 'Your session has expired. Sign in again.' : 'You are signed out. Sign in again.',
          }),
      }),
    [],
  );

  const loadSession = useCallback(() => {
    setAuth({ status: 'loading' });
    api.getSession().then(
      (session) => setAuth({ status: 'signed-in', session }),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) setAuth({ status: 'signed-out', message: null });
        else setAuth({ status: 'unreachable', message: errorMessage(error) });
      },
    );
  }, [api]);

  useEffect(loadSession, [loadSession]);

  // Signed out: go to the sign-in page, remembering where to come back to. Signed in: leave it.
  const onSignInPage = path === SIGN_IN;
  useEffect(() => {
    if (auth.status === 'signed-out' && !onSignInPage) {
      route(`${SIGN_IN}?${new URLSearchParams({ next: url })}`, true);
    } else if (auth.status === 'signed-in' && onSignInPage) {
      route(safeNext(query['next']), true);
    }
  }, [auth.status, onSignInPage]);

  const signOut = useCallback(async () => {
    setSigningOut(true);
    try {
      await api.signOut();
      setAuth({ status: 'signed-out', message: 'You are signed out.' });
      announce('Signed out');
    } catch (error) {
      announce(errorMessage(error));
    } finally {
      setSigningOut(false);
    }
  }, [api, announce]);

  const context = useMemo<AppContextValue | null>(() => (auth.status === 'signed-in' ? { api, session: auth.session } : null), [api, auth]);

  let content;
  if (auth.status === 'loading') {
    content = <LoadingPage />;
  } else if (auth.status === 'unreachable') {
    content = <Unreachable message={auth.message} onRetry={loadSession} />;
  } else if (auth.status === 'signed-out' || context === null) {
    content = onSignInPage ? (
      <SignInPage
        api={api}
        message={auth.status === 'signed-out' ? auth.message : null}
        onSignedIn={(session) => setAuth({ status: 'signed-in', session })}
      />
    ) : (
      <LoadingPage />
    );
  } else {
    content = (
      <AppContext.Provider value={context}>
        <Pages />
      </AppContext.Provider>
    );
  }

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      {context !== null ? (
        <Header session={context.session} onSignOut={() => void signOut()} signingOut={signingOut} />
      ) : (
        <header class="site-header">
          <div class="container header-inner">
            <span class="brand">Shortener</span>
          </div>
        </header>
      )}
      <main id="main" tabIndex={-1} class="container">
        {content}
      </main>
    </>
  );
}

/** The pages of a signed-in person. */
function Pages() {
  return (
    <Router onRouteChange={focusHeading}>
      <Route path="/app" component={LinksPage} />
      <Route path="/app/links" component={LinksPage} />
      <Route path="/app/links/new" component={NewLinkPage} />
      <Route path="/app/links/:code" component={LinkPage} />
      <Route path="/app/analytics" component={AnalyticsPage} />
      <Route path="/app/import" component={ImportPage} />
      <Route path="/app/keys" component={KeysPage} />
      <Route path="/app/domains" component={DomainsPage} />
      <Route path="/app/webhooks" component={WebhooksPage} />
      <Route path={SIGN_IN} component={LoadingPage} />
      <Route default component={NotFoundPage} />
    </Router>
  );
}

function Unreachable({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <div class="message message-error" role="alert">
      <h1 tabIndex={-1}>The service cannot be reached</h1>
      <p>{message}</p>
      <button type="button" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

/** Stays on the dashboard: `next` comes from the address bar, so anything but an /app/ path is ignored. */
function safeNext(next: string | undefined): string {
  return next !== undefined && next.startsWith('/app/') && !next.startsWith(SIGN_IN) ? next : '/app/links';
}

/** After each navigation, focus the new page's heading so screen readers and keyboards start there. */
function focusHeading(): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

function LoadingPage() {
  return <p class="loading">Loading…</p>;
}
