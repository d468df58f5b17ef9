import { useState } from 'preact/hooks';
import { useApp } from '../../auth/context.ts';
import { ErrorMessage, Field } from '../../shared/Field.tsx';
import { useAnnounce } from '../../shared/Status.tsx';
import { useFormSubmit, type FormErrors } from '../../shared/use-form-submit.ts';
import { changePassword } from '../api.ts';
import { newPasswordProblem, PASSWORD_HINT, personFieldIn, personMessage } from '../fields.ts';

type Place = 'currentPassword' | 'newPassword' | 'confirm';

/** A new password (PUT /auth/password), given the current one; your other sessions are closed. */
export function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const [values, setValues] = useState<Record<Place, string>>({ currentPassword: '', newPassword: '', confirm: '' });

  const { busy, errors, formError, submit, clear } = useFormSubmit<Place>(
    async () => {
      await changePassword(api, values.currentPassword, values.newPassword);
      setValues({ currentPassword: '', newPassword: '', confirm: '' });
      announce('Password changed: your other sessions are signed out');
      onChanged();
    },
    {
      check: () => {
        const problems: FormErrors<Place> = {};
        if (values.currentPassword === '') problems.currentPassword = 'Enter your current password.';
        const weak = newPasswordProblem(values.newPassword);
        if (weak !== null) problems.newPassword = weak;
        else if (values.confirm !== values.newPassword) problems.confirm = 'The two new passwords differ: type the same one twice.';
        return Object.keys(problems).length > 0 ? problems : null;
      },
      placeOf: (error) => personFieldIn(error, ['currentPassword', 'newPassword'], { password: 'newPassword' }),
      messageOf: personMessage,
      controlOf: (place) => `password-${place}`,
    },
  );
  const field = (place: Place, label: string, autoComplete: string, hint?: string) => (
    <Field id={`password-${place}`} label={label} hint={hint} error={errors[place]}>
      {(control) => (
        <input
          {...control}
          type="password"
          name={place}
          autoComplete={autoComplete}
          value={values[place]}
          onInput={(event) => {
            const value = event.currentTarget.value;
            setValues((shown) => ({ ...shown, [place]: value }));
            clear(place);
          }}
        />
      )}
    </Field>
  );

  return (
    <section class="panel" aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form class="form" onSubmit={submit} noValidate>
        {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
        {field('currentPassword', 'Current password', 'current-password')}
        {field('newPassword', 'New password', 'new-password', PASSWORD_HINT)}
        {field('confirm', 'New password again', 'new-password')}
        <p class="hint">Changing it signs you out everywhere else.</p>
        <button type="submit" class="button-primary" aria-disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}
