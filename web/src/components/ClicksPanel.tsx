import { useEffect, useState } from 'preact/hooks';
import type { LinkKey, Stats } from '../api.ts';
import { useApp } from '../context.ts';
import { errorMessage, isAbort } from '../errors.ts';
import { formatCount, formatDay, isDay, plural, utcDay } from '../format.ts';
import { ClicksChart } from './ClicksChart.tsx';
import { ErrorMessage } from './Field.tsx';

type Preset = '7' | '30' | '90' | 'custom';
interface Range {
  from: string;
  to: string;
}

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

function lastDays(days: number): Range {
  const now = new Date();
  return { from: utcDay(now, 1 - days), to: utcDay(now) };
}

/** Clicks per day of one link (GET /links/:code/stats), people and bots apart, as a chart, totals and a table. */
export function ClicksPanel({ linkKey }: { linkKey: LinkKey }) {
  const { code, domain } = linkKey;
  const { api } = useApp();
  const [preset, setPreset] = useState<Preset>('30');
  const [range, setRange] = useState<Range>(() => lastDays(30));
  const [custom, setCustom] = useState<Range>(() => lastDays(30));
  const [customError, setCustomError] = useState<string | null>(null);
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const abort = new AbortController();
    setError(null);
    api.getStats({ code, domain }, range.from, range.to, abort.signal).then(setStats, (caught: unknown) => {
      if (!isAbort(caught)) setError(errorMessage(caught));
    });
    return () => abort.abort();
  }, [api, code, domain, range.from, range.to, attempt]);

  const choose = (value: Preset) => {
    setPreset(value);
    if (value !== 'custom') setRange(lastDays(Number(value)));
  };

  const applyCustom = (event: Event) => {
    event.preventDefault();
    if (!isDay(custom.from) || !isDay(custom.to)) return setCustomError('Choose both dates.');
    if (custom.from > custom.to) return setCustomError('The first day must not be after the last day.');
    setCustomError(null);
    setRange({ ...custom });
  };

  const loading = stats === null || stats.from !== range.from || stats.to !== range.to;

  return (
    <section class="panel" aria-labelledby="clicks-heading">
      <h2 id="clicks-heading">Clicks</h2>
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
      {error !== null ? (
        <ErrorMessage onRetry={() => setAttempt(attempt + 1)}>The clicks could not be loaded: {error}</ErrorMessage>
      ) : stats === null ? (
        <p class="loading">Loading clicks…</p>
      ) : (
        <div class={loading ? 'stats stats-loading' : 'stats'} aria-busy={loading}>
          <p class="totals" aria-live="polite">
            <span>
              <strong>{formatCount(stats.total.clicks)}</strong> {stats.total.clicks === 1 ? 'click' : 'clicks'} by people
            </span>
            <span>
              <strong>{formatCount(stats.total.botClicks)}</strong> by bots
            </span>
            <span class="muted">
              {formatDay(stats.from)} – {formatDay(stats.to)} (UTC days)
            </span>
          </p>
          <ClicksChart daily={stats.daily} />
          <p class="hint">Clicks of the last few seconds may not be counted yet.</p>
          <details class="data-table">
            <summary>Clicks per day as a table</summary>
            <div class="table-scroll">
              <table>
                <caption class="visually-hidden">
                  Clicks per day from {formatDay(stats.from)} to {formatDay(stats.to)}: {plural(stats.total.clicks, 'click', 'clicks')} by
                  people, {formatCount(stats.total.botClicks)} by bots
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Day (UTC)</th>
                    <th scope="col" class="numeric">
                      People
                    </th>
                    <th scope="col" class="numeric">
                      Bots
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {stats.daily.map((d) => (
                    <tr key={d.day}>
                      <th scope="row">
                        <time dateTime={d.day}>{formatDay(d.day)}</time>
                      </th>
                      <td class="numeric">{formatCount(d.clicks)}</td>
                      <td class="numeric">{formatCount(d.botClicks)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </div>
      )}
    </section>
  );
}
