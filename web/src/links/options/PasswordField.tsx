import { PASSWORD_MAX, PASSWORD_MIN } from '../builder/limits.ts';
import { OptionText } from './OptionText.tsx';
import type { OptionProps } from './props.ts';

/** The password visitors type before they are sent on: a new one, the link's own kept, or none. */
export function PasswordField({ id, draft, errors, onChange }: OptionProps<'password' | 'hasPassword' | 'removePassword'>) {
  return (
    <>
      <OptionText
        id={id('password')}
        type="password"
        label={draft.hasPassword ? 'New password' : 'Password'}
        hint={
          draft.hasPassword
            ? 'The link has a password. Leave this empty to keep it, or type a new one.'
            : `Visitors must type it before they are sent on: ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`
        }
        value={draft.password}
        errors={errors}
        onInput={(password) => onChange({ password })}
      />
      {draft.hasPassword && (
        <label class="check">
          <input type="checkbox" checked={draft.removePassword} onChange={(e) => onChange({ removePassword: e.currentTarget.checked })} />{' '}
          Remove the password
        </label>
      )}
    </>
  );
}
