// What a link and its options share of a field's value: how its length is counted, and how a time
// is read. Pure: no I/O.

/** An RFC 3339 date-time with its offset (`T` and `Z` in either case, as RFC 3339 allows). */
export const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** Characters as Postgres counts them (char_length): code points, not UTF-16 units. */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** An RFC 3339 date-time with an explicit zone; impossible dates (Feb 30) are refused. */
export function parseDateTime(text: string): Date | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
