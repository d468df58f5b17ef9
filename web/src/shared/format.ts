// Pure helpers that turn API values into text people read, and form input back into API values.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dayOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const count = new Intl.NumberFormat();

export function formatDateTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function formatDate(iso: string): string {
  return dateOnly.format(new Date(iso));
}

/** A stats day (YYYY-MM-DD, a UTC day) as a date. */
export function formatDay(day: string): string {
  return dayOnly.format(new Date(`${day}T00:00:00Z`));
}

export function formatCount(n: number): string {
  return count.format(n);
}

export function plural(n: number, one: string, many: string): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The value of an `<input type=datetime-local>` (local wall time) for an ISO instant. */
export function toDateTimeLocal(iso: string | null): string {
  if (iso === null) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * An `<input type=datetime-local>` value, read in the browser's time zone, as an ISO instant with its zone (`Z`),
 * which the API requires; null when empty. An unparsable value is passed through for the API to refuse.
 */
export function fromDateTimeLocal(value: string): string | null {
  if (value.trim() === '') return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toISOString();
}

/** Tags typed as "spring, sale, 2026": trimmed, empty ones dropped; the API checks the rest. */
export function parseTags(value: string): string[] {
  return value
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/** A UTC day as YYYY-MM-DD, `offset` days from `date`. */
export function utcDay(date: Date, offset = 0): string {
  const d = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + offset));
  return d.toISOString().slice(0, 10);
}

export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
}
