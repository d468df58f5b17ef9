import { Field } from '../../shared/Field.tsx';
import type { OptionErrors } from './props.ts';

interface OptionTextProps {
  id: string;
  label: string;
  hint?: string;
  value: string;
  type?: 'text' | 'url' | 'datetime-local' | 'password';
  inputMode?: 'numeric';
  errors: OptionErrors;
  onInput: (value: string) => void;
}

/** One typed value of an option, with its error. */
export function OptionText({ id, label, hint, value, type = 'text', inputMode, errors, onInput }: OptionTextProps) {
  // Preact's types pair each input type with its own attributes: one element for the three here.
  const inputType: string = type;
  return (
    <Field id={id} label={label} hint={hint} error={errors[id]}>
      {(control) => (
        <input
          {...control}
          type={inputType as 'text'}
          autoComplete={type === 'password' ? 'new-password' : 'off'}
          spellcheck={false}
          inputMode={inputMode}
          value={value}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}
