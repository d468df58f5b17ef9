import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api/errors.ts';
import { useAuth } from '../../auth/context.ts';
import { ErrorMessage, Field } from '../../shared/Field.tsx';
import { useFormSubmit } from '../../shared/use-form-submit.ts';
import { personMessage } from '../fields.ts';
import { completeWithCode, completeWithPasskey, passkeyProblem, type SecondFactorStep as Step } from './api.ts';
import './second-factors.css';

type Mode = 'code' | 'recovery';

/**
 * The second step of a sign-in, after a right password (POST /auth/sign-in/second-factor): a code of the authenticator
 * app, a passkey, or a recovery code, whichever the person has. `onRestart`: the ticket ran out, back to the password.
 */
export function SecondFactorStep({ step, onRestart }: { step: Step; onRestart: (message: string) => void }) {
  const { api, signedIn } = useAuth();
  const hasApp = step.methods.includes('totp');
  const hasCodes = step.methods.includes('recovery-code');
  const passkey = step.methods.includes('passkey') && browserSupportsWebAuthn();
  const [mode, setMode] = useState<Mode>(hasApp ? 'code' : 'recovery');
  const [value, setValue] = useState('');
  const [passkeyError, setPasskeyError] = useState<string | null>(null);
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const typed = hasApp || hasCodes;

  useLayoutEffect(() => field.current?.focus(), [mode]);

  const failed = (error: unknown): string => {
    if (error instanceof ApiError && error.code === 'SECOND_FACTOR_TICKET_INVALID') {
      onRestart('The sign-in took longer than five minutes: enter your password again.');
      return '';
    }
    if (error instanceof ApiError && error.code === 'SECOND_FACTOR_INVALID')
      return mode === 'code'
        ? 'This code is not right, or was used already: enter the one the app shows now.'
        : 'This recovery code is not right, or was used already.';
    return passkeyProblem(error) ?? personMessage(error);
  };

  const { busy, errors, formError, submit, clear } = useFormSubmit<'value'>(
    async () => {
      const proof = mode === 'code' ? { code: value.replace(/\s/g, '') } : { recoveryCode: value.trim() };
      signedIn(await completeWithCode(api, step.ticket, proof));
    },
    {
      check: () =>
        value.trim() === ''
          ? { value: mode === 'code' ? 'Enter the six digits the app shows.' : 'Enter one of your recovery codes.' }
          : null,
      placeOf: (error) => (error instanceof ApiError && error.code === 'SECOND_FACTOR_INVALID' ? 'value' : null),
      messageOf: failed,
      controlOf: () => 'second-factor-value',
    },
  );

  const usePasskey = async () => {
    if (passkeyBusy) return;
    setPasskeyBusy(true);
    setPasskeyError(null);
    try {
      signedIn(await completeWithPasskey(api, step.ticket));
    } catch (error) {
      const message =
        error instanceof ApiError && error.code === 'SECOND_FACTOR_INVALID'
          ? 'This passkey did not check out: try another.'
          : failed(error);
      if (message !== '') setPasskeyError(message);
    } finally {
      setPasskeyBusy(false);
    }
  };

  const other = (next: Mode) => {
    setMode(next);
    setValue('');
    clear('value');
  };

  return (
    <section class="second-step" aria-labelledby="second-step-heading">
      <h2 id="second-step-heading">Confirm it is you</h2>
      <p>Your password is right. Now confirm with {passkey && typed ? 'your passkey or a code' : passkey ? 'your passkey' : 'a code'}.</p>
      {passkey && (
        <div class="second-step-passkey">
          {passkeyError !== null && <ErrorMessage>{passkeyError}</ErrorMessage>}
          <button type="button" class={typed ? '' : 'button-primary'} onClick={() => void usePasskey()} aria-disabled={passkeyBusy}>
            {passkeyBusy ? 'Waiting for the passkey…' : 'Use a passkey'}
          </button>
        </div>
      )}
      {typed && (
        <form class="form" onSubmit={submit} noValidate>
          {formError !== null && formError !== '' && <ErrorMessage>{formError}</ErrorMessage>}
          {mode === 'code' ? (
            <Field
              id="second-factor-value"
              label="Code from your authenticator app"
              hint="Six digits; a new one every 30 seconds."
              error={errors.value}
            >
              {(control) => (
                <input
                  {...control}
                  ref={field}
                  class="input-short code-input"
                  type="text"
                  name="code"
                  inputMode="numeric"
                  autoComplete="one-time-code"
                  maxLength={7}
                  spellcheck={false}
                  value={value}
                  onInput={(event) => {
                    setValue(event.currentTarget.value);
                    clear('value');
                  }}
                />
              )}
            </Field>
          ) : (
            <Field
              id="second-factor-value"
              label="Recovery code"
              hint="One of the ten codes you saved, such as abcde-12345. Each works once."
              error={errors.value}
            >
              {(control) => (
                <input
                  {...control}
                  ref={field}
                  class="code-input"
                  type="text"
                  name="recoveryCode"
                  autoComplete="off"
                  autoCapitalize="none"
                  spellcheck={false}
                  maxLength={40}
                  value={value}
                  onInput={(event) => {
                    setValue(event.currentTarget.value);
                    clear('value');
                  }}
                />
              )}
            </Field>
          )}
          <button type="submit" class="button-primary" aria-disabled={busy}>
            {busy ? 'Checking…' : 'Verify'}
          </button>
        </form>
      )}
      <p class="second-step-others">
        {mode === 'code' && hasCodes && (
          <button type="button" class="button-link" onClick={() => other('recovery')}>
            Use a recovery code instead
          </button>
        )}
        {mode === 'recovery' && hasApp && (
          <button type="button" class="button-link" onClick={() => other('code')}>
            Use the authenticator app instead
          </button>
        )}
        <button type="button" class="button-link" onClick={() => onRestart('')}>
          Start again
        </button>
      </p>
    </section>
  );
}
