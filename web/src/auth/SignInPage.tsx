import { useState } from 'preact/hooks';
import { useAuth } from './context.ts';
import { KeySignInForm } from './KeySignInForm.tsx';
import { PasswordSignInForm } from './PasswordSignInForm.tsx';
import { SsoSignIn } from './SsoSignIn.tsx';
import { Page } from '../shared/Page.tsx';
import { PasskeySignIn } from '../people/second-factors/PasskeySignIn.tsx';
import type { SecondFactorStep as Step } from '../people/second-factors/api.ts';
import { SecondFactorStep } from '../people/second-factors/SecondFactorStep.tsx';

/** Signing in: with an email address and a password, or (for those who have one) with an API key. */
export function SignInPage({ message }: { message: string | null }) {
  const { options } = useAuth();
  // After a right password, for a person with a second factor: that step alone; its ticket running out comes back here.
  const [step, setStep] = useState<Step | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  if (step !== null) {
    const restart = (why: string) => {
      setStep(null);
      setNotice(why === '' ? null : why);
    };
    return (
      <div class="narrow">
        <Page title="Sign in">
          <SecondFactorStep step={step} onRestart={restart} />
        </Page>
      </div>
    );
  }
  return (
    <div class="narrow">
      <Page title="Sign in">
        {message !== null && (
          <p class="message message-info" role="status">
            {message}
          </p>
        )}
        <SsoSignIn />
        <PasswordSignInForm
          notice={notice}
          onSecondStep={(next) => {
            setNotice(null);
            setStep(next);
          }}
        />
        <PasskeySignIn />
        {options.mail ? (
          <p class="after-form">
            <a href="/app/forgot-password">Forgot your password?</a>
          </p>
        ) : (
          <p class="after-form muted">
            Forgot your password? This service sends no email: ask an admin of your workspace for a reset link.
          </p>
        )}
        <details class="options key-sign-in">
          <summary>Sign in with an API key</summary>
          <div class="options-body">
            <KeySignInForm />
          </div>
        </details>
      </Page>
    </div>
  );
}
