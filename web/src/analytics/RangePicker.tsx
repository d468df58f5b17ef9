import { useState } from 'preact/hooks';
import { isDay } from '../shared/format.ts';
import { lastDays, type DayRange } from './analytics.ts';

type Preset = '7' | '30' | '90' | 'custom';

const PRESETS: { value: Preset; label: string }[] = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: 'custom', label: 'Custom' },
];

/** The two date fields of a custom range. */
const RANGE_ENDS = [
  { end: 'from', label: 'From' },
  { end: 'to', label: 'To' },
] as const;

/** The period shown first: the last 30 days. */
export function defaultRange(): DayRange {
  return lastDays(30);
}

/** The period a stats view shows: the last 7, 30 or 90 UTC days, or two dates of one's own (one picker per page). */
export function RangePicker({ onChange }: { onChange: (range: DayRange) => void }) {
  const [preset, setPreset] = useState<Preset>('30');
  const [custom, setCustom] = useState<DayRange>(defaultRange);
  const [customError, setCustomError] = useState<string | null>(null);

  const choose = (value: Preset) => {
    setPreset(value);
    if (value !== 'custom') onChange(lastDays(Number(value)));
  };

  const applyCustom = (event: Event) => {
    event.preventDefault();
    if (!isDay(custom.from) || !isDay(custom.to)) return setCustomError('Choose both dates.');
    if (custom.from > custom.to) return setCustomError('The first day must not be after the last day.');
    setCustomError(null);
    onChange({ ...custom });
  };

  return (
    <>
      <fieldset class="segmented">
        <legend>Period</legend>
        {PRESETS.map((p) => (
          <label key={p.value}>
            <input type="radio" name="period" value={p.value} checked={preset === p.value} onChange={() => choose(p.value)} />
            <span>{p.label}</span>
          </label>
        ))}
      </fieldset>
      {preset === 'custom' && (
        <form class="custom-range" onSubmit={applyCustom} noValidate>
          {RANGE_ENDS.map(({ end, label }) => (
            <div class="field" key={end}>
              <label for={`stats-${end}`}>{label}</label>
              <input
                id={`stats-${end}`}
                type="date"
                value={custom[end]}
                aria-invalid={customError !== null || undefined}
                aria-describedby={customError !== null ? 'stats-range-error' : undefined}
                onInput={(event) => setCustom({ ...custom, [end]: event.currentTarget.value })}
              />
            </div>
          ))}
          <button type="submit">Show</button>
          {customError !== null && (
            <p id="stats-range-error" class="field-error" role="alert">
              {customError}
            </p>
          )}
        </form>
      )}
    </>
  );
}
