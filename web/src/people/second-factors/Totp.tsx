import { useState } from 'preact/hooks';
import { ApiError } from '../../api/errors.ts';
import { useApp } from '../../auth/context.ts';
import { ErrorMessage, Field } from '../../shared/Field.tsx';
import { SecretValue } from '../../shared/SecretValue.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useFormSubmit } from '../../shared/use-form-submit.ts';
import { personMessage } from '../fields.ts';
import { confirmTotp, disableTotp, startTotp, type SecondFactors, type TotpEnrolment } from './api.ts';

interface TotpProps {
  factors: SecondFactors;
  onChanged: (codes?: string[] | null) => Promise<void>;
}

/** The authenticator app: set up (a QR code and its secret, confirmed with a code), or switched off with a code. */
export function Totp({ factors, onChanged }: TotpProps) {
  const { api } = useApp();
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);

  const start = async () => {
    if (starting) return;
    setStarting(true);
    setStartError(null);
    try {
      setEnrolment(await startTotp(api));
    } catch (error) {
      setStartError(personMessage(error));
    } finally {
      setStarting(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="totp-heading">
      <h3 id="totp-heading">Authenticator app</h3>
      <p class="hint">
        A six-digit code from an app on your phone (such as Google Authenticator, 1Password or Aegis), asked after your password.
      </p>
      {startError !== null && <ErrorMessage>{startError}</ErrorMessage>}
      {enrolment !== null ? (
        <ConfirmApp
          enrolment={enrolment}
          onDone={async (codes) => {
            setEnrolment(null);
            await onChanged(codes);
          }}
          onCancel={() => setEnrolment(null)}
        />
      ) : factors.totp.enabled ? (
        <>
          <p>
            <span class="badge badge-on">On</span> Codes from your app confirm your sign-ins.
          </p>
          <SwitchOff onDone={() => onChanged()} />
          <p class="hint">A new phone? Set the app up again: the old one works until the new one is confirmed.</p>
          <button type="button" onClick={() => void start()} aria-disabled={starting}>
            {starting ? 'Starting…' : 'Set up on another phone'}
          </button>
        </>
      ) : (
        <button type="button" class="button-primary" onClick={() => void start()} aria-disabled={starting}>
          {starting ? 'Starting…' : 'Set up an authenticator app'}
        </button>
      )}
    </section>
  );
}

/** Scan, then confirm with the first code: until then the app is not a factor. */
function ConfirmApp({
  enrolment,
  onDone,
  onCancel,
}: {
  enrolment: TotpEnrolment;
  onDone: (codes: string[] | null) => Promise<void>;
  onCancel: () => void;
}) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [code, setCode] = useState('');
  const { busy, errors, formError, submit, clear } = useFormSubmit<'code'>(
    async () => {
      const { recoveryCodes } = await confirmTotp(api, code.replace(/\s/g, ''));
      announce('Authenticator app set up');
      await onDone(recoveryCodes);
    },
    {
      check: () => (/^\d{6}$/.test(code.replace(/\s/g, '')) ? null : { code: 'Enter the six digits the app shows.' }),
      placeOf: (error) => (error instanceof ApiError && error.code === 'TOTP_CODE_WRONG' ? 'code' : null),
      messageOf: (error, place) => (place === 'code' ? 'This code is not right: enter the one the app shows now.' : personMessage(error)),
      controlOf: () => 'totp-code',
    },
  );
  const image = `data:image/svg+xml;base64,${btoa(enrolment.qrSvg)}`;
  return (
    <form class="form totp-setup" onSubmit={submit} noValidate>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <ol class="steps">
        <li>Scan this QR code with the app.</li>
        <li>Enter the code it shows.</li>
      </ol>
      <img class="totp-qr" src={image} width={200} height={200} alt="QR code of the authenticator app's secret: scan it with the app" />
      <details class="options">
        <summary>Cannot scan? Type the secret</summary>
        <div class="options-body">
          <SecretValue id="totp-secret" secret={enrolment.secret} what="the authenticator app's secret" />
        </div>
      </details>
      <Field id="totp-code" label="Code from the app" error={errors.code}>
        {(control) => (
          <input
            {...control}
            class="input-short code-input"
            type="text"
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={7}
            value={code}
            onInput={(event) => {
              setCode(event.currentTarget.value);
              clear('code');
            }}
          />
        )}
      </Field>
      <div class="button-row">
        <button type="submit" class="button-primary" aria-disabled={busy}>
          {busy ? 'Checking…' : 'Confirm'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Switching the app off needs one of its codes (the API also takes the password). */
function SwitchOff({ onDone }: { onDone: () => Promise<void> }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [code, setCode] = useState('');
  const { busy, errors, formError, submit, clear } = useFormSubmit<'code'>(
    async () => {
      await disableTotp(api, { code: code.replace(/\s/g, '') });
      setCode('');
      announce('Authenticator app switched off');
      await onDone();
    },
    {
      check: () => (/^\d{6}$/.test(code.replace(/\s/g, '')) ? null : { code: 'Enter the six digits the app shows.' }),
      placeOf: (error) => (error instanceof ApiError && error.code === 'TOTP_CODE_WRONG' ? 'code' : null),
      messageOf: (error, place) => (place === 'code' ? 'This code is not right: enter the one the app shows now.' : personMessage(error)),
      controlOf: () => 'totp-off-code',
    },
  );
  return (
    <details class="options">
      <summary>Switch the app off</summary>
      <form class="form options-body" onSubmit={submit} noValidate>
        {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
        <Field id="totp-off-code" label="Code from the app" error={errors.code}>
          {(control) => (
            <input
              {...control}
              class="input-short code-input"
              type="text"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={7}
              value={code}
              onInput={(event) => {
                setCode(event.currentTarget.value);
                clear('code');
              }}
            />
          )}
        </Field>
        <button type="submit" class="button-danger" aria-disabled={busy}>
          {busy ? 'Switching off…' : 'Switch off'}
        </button>
      </form>
    </details>
  );
}
