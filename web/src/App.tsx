import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { AnalyticsPage } from './analytics/AnalyticsPage.tsx';
import { errorMessage } from './api/errors.ts';
import { AuthContext } from './auth/context.ts';
import { ForgotPasswordPage } from './auth/ForgotPasswordPage.tsx';
import { InvitationPage } from './auth/InvitationPage.tsx';
import { ResetPasswordPage } from './auth/ResetPasswordPage.tsx';
import { SetupPage } from './auth/SetupPage.tsx';
import { SignInPage } from './auth/SignInPage.tsx';
import { useAuthState } from './auth/use-auth-state.ts';
import { VerifyEmailPage } from './auth/VerifyEmailPage.tsx';
import { DomainsPage } from './domains/DomainsPage.tsx';
import { ImportPage } from './import/ImportPage.tsx';
import { KeysPage } from './keys/KeysPage.tsx';
import { LinkPage } from './links/LinkPage.tsx';
import { LinksPage } from './links/LinksPage.tsx';
import { NewLinkPage } from './links/NewLinkPage.tsx';
import { OperatorPage } from './operators/OperatorPage.tsx';
import { AuditPage } from './people/audit/AuditPage.tsx';
import { MembersPage } from './people/members/MembersPage.tsx';
import { ProfilePage } from './people/profile/ProfilePage.tsx';
import { WorkspacePage } from './people/WorkspacePage.tsx';
import { SecondFactorBanner } from './people/second-factors/SecondFactorBanner.tsx';
import { SettingsPage } from './settings/SettingsPage.tsx';
import { Header } from './shared/Header.tsx';
import { NotFoundPage } from './shared/NotFoundPage.tsx';
import { StatusProvider, useAnnounce } from './shared/Status.tsx';
import { WebhooksPage } from './webhooks/WebhooksPage.tsx';

const SIGN_IN = '/app/sign-in';
const SETUP = '/app/setup';
const FORGOT_PASSWORD = '/app/forgot-password';
const RESET_PASSWORD = '/app/reset-password';
const VERIFY_EMAIL = '/app/verify-email';
const INVITATION = '/app/invitation';
/** Pages for signing in: a signed-in person is sent on from them. */
const ONLY_SIGNED_OUT: ReadonlySet<string> = new Set([SIGN_IN, SETUP, FORGOT_PASSWORD]);
/** Pages that someone not signed in may open: those, and the ones the service's mails link to. */
const SIGNED_OUT_PAGES: ReadonlySet<string> = new Set([...ONLY_SIGNED_OUT, RESET_PASSWORD, VERIFY_EMAIL, INVITATION]);

export function App() {
  return (
    <LocationProvider scope="/app">
      <StatusProvider>
        <Shell />
      </StatusProvider>
    </LocationProvider>
  );
}

/**
 * Reads the service's options and the session, keeps people who are not signed in on the pages made for them (the
 * first admin's set-up while there is none, signing in, the links the service mails), and lays out the pages.
 */
function Shell() {
  const { url, path, query, route } = useLocation();
  const announce = useAnnounce();
  const { state: auth, context, reload } = useAuthState();
  const [signingOut, setSigningOut] = useState(false);
  const setupNeeded = auth.status === 'signed-out' && auth.options.setupNeeded;

  // Signed out: to the set-up while nobody can sign in, else to the sign-in page, remembering where to come back
  // to. Signed in: away from the pages for signing in.
  useEffect(() => {
    if (auth.status === 'signed-out') {
      if (path === SETUP && !setupNeeded) route(SIGN_IN, true);
      else if (!SIGNED_OUT_PAGES.has(path)) route(setupNeeded ? SETUP : `${SIGN_IN}?${new URLSearchParams({ next: url })}`, true);
    } else if (auth.status === 'signed-in' && ONLY_SIGNED_OUT.has(path)) {
      route(safeNext(query['next']), true);
    }
  }, [auth.status, path, setupNeeded]);

  const signOut = useCallback(async () => {
    if (context === null) return;
    setSigningOut(true);
    try {
      await context.api.signOut();
      context.signedOut('You are signed out.');
      announce('Signed out');
    } catch (error) {
      announce(errorMessage(error));
    } finally {
      setSigningOut(false);
    }
  }, [context, announce]);

  let content;
  if (auth.status === 'unreachable') {
    content = <Unreachable message={auth.message} onRetry={reload} />;
  } else if (auth.status === 'loading' || context === null) {
    content = <LoadingPage />;
  } else if (auth.status === 'signed-out') {
    content = <SignedOutPages message={auth.message} />;
  } else {
    // A workspace of its own: every page reads its data again after a switch.
    content = <Pages key={auth.session.workspace.id} />;
  }

  return (
    <AuthContext.Provider value={context}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      {auth.status === 'signed-in' ? (
        <Header session={auth.session} onSignOut={() => void signOut()} signingOut={signingOut} />
      ) : (
        <header class="site-header">
          <div class="container header-inner">
            <span class="brand">Shortener</span>
          </div>
        </header>
      )}
      <main id="main" tabIndex={-1} class="container">
        {auth.status === 'signed-in' && <SecondFactorBanner session={auth.session} />}
        {content}
      </main>
    </AuthContext.Provider>
  );
}

/** The pages of someone not signed in; any other address is on its way to one of them (see Shell). */
function SignedOutPages({ message }: { message: string | null }) {
  return (
    <Router onRouteChange={focusHeading}>
      <Route path={SIGN_IN} component={SignInPage} message={message} />
      <Route path={SETUP} component={SetupPage} />
      <Route path={FORGOT_PASSWORD} component={ForgotPasswordPage} />
      <Route path={RESET_PASSWORD} component={ResetPasswordPage} />
      <Route path={VERIFY_EMAIL} component={VerifyEmailPage} />
      <Route path={INVITATION} component={InvitationPage} />
      <Route default component={LoadingPage} />
    </Router>
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
      <Route path="/app/members" component={MembersPage} />
      <Route path="/app/profile" component={ProfilePage} />
      <Route path="/app/workspace" component={WorkspacePage} />
      <Route path="/app/settings" component={SettingsPage} />
      <Route path="/app/audit" component={AuditPage} />
      <Route path="/app/operator" component={OperatorPage} />
      <Route path={RESET_PASSWORD} component={ResetPasswordPage} />
      <Route path={VERIFY_EMAIL} component={VerifyEmailPage} />
      <Route path={INVITATION} component={InvitationPage} />
      <Route path={SIGN_IN} component={LoadingPage} />
      <Route path={SETUP} component={LoadingPage} />
      <Route path={FORGOT_PASSWORD} component={LoadingPage} />
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
  return next !== undefined && next.startsWith('/app/') && !ONLY_SIGNED_OUT.has(new URL(next, location.origin).pathname)
    ? next
    : '/app/links';
}

/** After each navigation, focus the new page's heading so screen readers and keyboards start there. */
function focusHeading(): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

function LoadingPage() {
  return <p class="loading">Loading…</p>;
}
