import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { Page } from '../../shared/Page.tsx';
import { EmailSection } from './EmailSection.tsx';
import { NameForm } from './NameForm.tsx';
import { PasswordForm } from './PasswordForm.tsx';
import { SessionTable } from './SessionTable.tsx';
import { SecondFactorsSection } from '../second-factors/SecondFactorsSection.tsx';

/** The signed-in person's own page: name, address, password, the sessions they have open, and where their keys are. */
export function ProfilePage() {
  const { session } = useApp();
  // A password change closes the other sessions: the list is read again.
  const [version, setVersion] = useState(0);
  const person = session.person;

  if (person === null) {
    return (
      <Page title="Profile">
        <p class="message message-info">
          You are signed in with an API key, which has no profile. People sign in with their email address and password.
        </p>
      </Page>
    );
  }

  return (
    <Page title="Profile">
      <div class="profile-layout">
        <div>
          <NameForm person={person} />
          <EmailSection person={person} />
        </div>
        <div>
          <PasswordForm onChanged={() => setVersion((n) => n + 1)} />
          <SessionTable version={version} />
          <section class="panel" aria-labelledby="keys-heading">
            <h2 id="keys-heading">API keys</h2>
            <p>
              Your keys for scripts and tools are on the <a href="/app/keys">Keys page</a>: each carries at most your role in{' '}
              {session.workspace.name}, and stops working when you leave it.
            </p>
          </section>
        </div>
      </div>
      <SecondFactorsSection />
    </Page>
  );
}
