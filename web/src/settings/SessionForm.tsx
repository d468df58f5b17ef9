import { useState } from 'preact/hooks';
import { useApp } from '../auth/context.ts';
import { updateWorkspace, type WorkspaceSettings } from '../people/api.ts';
import { ErrorMessage, Field } from '../shared/Field.tsx';
import { useAnnounce } from '../shared/Status.tsx';
import { useFormSubmit, type FormErrors } from '../shared/use-form-submit.ts';
import { settingsFieldIn, settingsMessage } from './fields.ts';
import { hoursText } from './hours.ts';

type Place = 'sessionHours';
type Unit = 'hours' | 'days';
const HOURS_MAX = 8760;

/** How long a session in the workspace lasts at most, in hours or days; empty for the service's own length. */
export function SessionForm({ settings, onSaved }: { settings: WorkspaceSettings; onSaved: (saved: WorkspaceSettings) => void }) {
  const { api } = useApp();
  const announce = useAnnounce();
  const hours = settings.sessionHours;
  const [unit, setUnit] = useState<Unit>(hours !== null && hours % 24 === 0 ? 'days' : 'hours');
  const [amount, setAmount] = useState(hours === null ? '' : String(unit === 'days' ? hours / 24 : hours));
  const wanted = (): number | null => (amount.trim() === '' ? null : Number(amount) * (unit === 'days' ? 24 : 1));

  const { busy, errors, formError, submit, clear } = useFormSubmit<Place>(
    async () => {
      const saved = await updateWorkspace(api, { sessionHours: wanted() });
      onSaved(saved);
      announce('Session length saved');
    },
    {
      check: () => {
        const value = wanted();
        const problems: FormErrors<Place> = {};
        if (value !== null && (!Number.isInteger(value) || value < 1 || value > HOURS_MAX))
          problems.sessionHours = 'Enter a whole number from 1 hour to 365 days, or leave it empty.';
        return Object.keys(problems).length > 0 ? problems : null;
      },
      placeOf: (error) => settingsFieldIn(error, ['sessionHours']),
      messageOf: settingsMessage,
      controlOf: () => 'settings-sessionHours',
    },
  );

  return (
    <form class="form panel" onSubmit={submit} noValidate aria-labelledby="settings-sessions-heading">
      <h2 id="settings-sessions-heading">Sessions</h2>
      {formError !== null && <ErrorMessage>{formError}</ErrorMessage>}
      <Field
        id="settings-sessionHours"
        label="Sign people out after"
        hint={`Counted from signing in, however busy the session. Empty: the service’s length, ${hoursText(settings.defaults.sessionHours)}; a longer one is cut to it.`}
        error={errors.sessionHours ?? null}
      >
        {(control) => (
          <div class="amount-row">
            <input
              {...control}
              class="input-short"
              type="number"
              name="sessionLength"
              min={1}
              step={1}
              inputMode="numeric"
              value={amount}
              onInput={(event) => {
                setAmount(event.currentTarget.value);
                clear('sessionHours');
              }}
            />
            <select
              id="settings-sessionUnit"
              name="sessionUnit"
              aria-label="Unit"
              value={unit}
              onChange={(event) => setUnit(event.currentTarget.value as Unit)}
            >
              <option value="hours">hours</option>
              <option value="days">days</option>
            </select>
          </div>
        )}
      </Field>
      <button type="submit" class="button-primary" aria-disabled={busy}>
        {busy ? 'Saving…' : 'Save session length'}
      </button>
    </form>
  );
}
