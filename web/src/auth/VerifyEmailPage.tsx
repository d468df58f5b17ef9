import { useLocation } from 'preact-iso';
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../api/errors.ts';
import { verifyEmail } from '../people/api.ts';
import { Page } from '../shared/Page.tsx';
import { useAuth } from './context.ts';

type Outcome = { status: 'verifying' } | { status: 'verified' } | { status: 'failed'; message: string };

/**
 * Where a verification mail leads (/app/verify-email?token=…): the address is confirmed on arrival (the link is
 * the confirmation), and a signed-in person's session is read again so that the profile says so.
 */
export function VerifyEmailPage() {
  const { query } = useLocation();
  const { api, session, signedIn } = useAuth();
  const token = query['token'] ?? '';
  const [outcome, setOutcome] = useState<Outcome>(
    token === ''
      ? { status: 'failed', message: 'This address has no token: open the link from the email again, whole.' }
      : { status: 'verifying' },
  );

  useEffect(() => {
    if (token === '') return;
    verifyEmail(api, token).then(
      () => {
        setOutcome({ status: 'verified' });
        // The session says whether the address is verified; if it cannot be read now, the next page reads it.
        if (session !== null) api.getSession().then(signedIn, () => {});
      },
      (error: unknown) => setOutcome({ status: 'failed', message: errorMessage(error) }),
    );
  }, [token]);

  return (
    <div class="narrow">
      <Page title="Confirm your email address">
        {outcome.status === 'verifying' ? (
          <p class="loading" role="status">
            Confirming…
          </p>
        ) : outcome.status === 'verified' ? (
          <div class="message message-info" role="status">
            <p>Your email address is confirmed.</p>
            <p>{session === null ? <a href="/app/sign-in">Sign in</a> : <a href="/app/profile">Back to your profile</a>}</p>
          </div>
        ) : (
          <div class="message message-error" role="alert">
            <p>{outcome.message}</p>
            <p>
              {session === null ? (
                'Sign in, then send a new link from your profile.'
              ) : (
                <a href="/app/profile">Send a new link from your profile</a>
              )}
            </p>
          </div>
        )}
      </Page>
    </div>
  );
}
