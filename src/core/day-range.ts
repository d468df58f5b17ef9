// UTC days as 'YYYY-MM-DD', and the range of days a stats read may ask for.

const DAY_MS = 86_400_000;
const DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/;
/** 0001-01-01: Postgres has no year 0 (ISO's 1 BC), which Date.parse accepts. */
const FIRST_DAY_MS = Date.parse('0001-01-01T00:00:00Z');

/** Most days one stats read may span (a year, leap day included). */
export const STATS_MAX_DAYS = 366;
/** Days shown when the caller does not say (`from` defaults to `to` minus 29 days). */
const STATS_DEFAULT_DAYS = 30;

/** The UTC day of `ms` (epoch milliseconds). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Milliseconds from `ms` to the next UTC midnight (never 0). */
export function msToNextUtcDay(ms: number): number {
  return DAY_MS - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** Epoch milliseconds of a 'YYYY-MM-DD' that is a real calendar day, else undefined. */
function parseDay(day: string): number | undefined {
  if (!DAY_SHAPE.test(day)) return undefined;
  const ms = Date.parse(`${day}T00:00:00Z`);
  // Date.parse rolls 2025-02-30 over to March; a day that does not print back is not real.
  return Number.isFinite(ms) && ms >= FIRST_DAY_MS && utcDay(ms) === day ? ms : undefined;
}

export interface DayRange {
  readonly from: string;
  readonly to: string;
}

/**
 * The days a stats query asks for: `to` defaults to today (UTC), `from` to 29 days before `to`.
 * Undefined when either is not a real 'YYYY-MM-DD', `from` is after `to`, or the range is longer
 * than STATS_MAX_DAYS (answer 400 STATS_RANGE_INVALID).
 */
export function statsRange(from: string | undefined, to: string | undefined, nowMs: number): DayRange | undefined {
  const toMs = to === undefined ? parseDay(utcDay(nowMs)) : parseDay(to);
  if (toMs === undefined) return undefined;
  const fromMs = from === undefined ? toMs - (STATS_DEFAULT_DAYS - 1) * DAY_MS : parseDay(from);
  if (fromMs === undefined || fromMs < FIRST_DAY_MS || fromMs > toMs || (toMs - fromMs) / DAY_MS >= STATS_MAX_DAYS) return undefined;
  return { from: utcDay(fromMs), to: utcDay(toMs) };
}
