// How one cell of an imported file is written, read back: expiries, short codes, tag lists. Pure: no I/O.

import { parseDateTime } from '../core/field-values.ts';

// The shapes the exports write: RFC 3339; a space instead of the T (SQL dumps); "+0000" (Bitly's API) or
// "+00" (Postgres) offsets; no zone at all (Kutt on SQLite, YOURLS).
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?) ?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;
// JSON null flattened to text, or a SQL NULL the caller did not tell apart from text: no date is called that.
const NO_DATE = /^(?:null)?$/i;

export type ExpiryReading = { ok: true; expiresAt: string | undefined } | { ok: false; problem: string };

/**
 * An expiry cell as an RFC 3339 date-time with a zone, or undefined when the cell is empty.
 * A date-time without a zone is read as UTC only when the format says so (`zonelessIsUtc`);
 * elsewhere it is refused, as guessing a zone could move the expiry by hours.
 */
export function readExpiry(cell: string, zonelessIsUtc: boolean): ExpiryReading {
  const text = cell.trim();
  if (NO_DATE.test(text)) return { ok: true, expiresAt: undefined };
  const m = DATE_TIME.exec(text);
  if (m === null) return { ok: false, problem: `${JSON.stringify(text)} is not a date (expected e.g. 2027-06-30T23:59:59Z)` };
  const [, date = '', time = '', zone] = m;
  if (zone === undefined && !zonelessIsUtc) {
    return { ok: false, problem: `${JSON.stringify(text)} has no time zone (write e.g. ${date}T${time}Z)` };
  }
  const expiresAt = `${date}T${time}${rfc3339Zone(zone ?? 'Z')}`;
  // The shape alone lets February 30 or 24:00 through; the API's own parser does not.
  if (parseDateTime(expiresAt) === undefined) return { ok: false, problem: `${JSON.stringify(text)} is not a date` };
  return { ok: true, expiresAt };
}

function rfc3339Zone(zone: string): string {
  if (zone === 'Z' || zone === 'z') return 'Z';
  const digits = zone.slice(1).replace(':', '').padEnd(4, '0');
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2)}`;
}

/** The YOURLS plugin writes keyword "kw" as "/kw/". */
export function codeBetweenSlashes(cell: string): string {
  return cell.replace(/^\/|\/$/g, '');
}

/** Shlink writes a short code as a URL path: "café" as "caf%C3%A9". */
export function codePercentDecoded(cell: string): string {
  try {
    return decodeURIComponent(cell);
  } catch {
    return cell; // a lone "%": the code as written, which the alias check refuses
  }
}

/** The code in a short link written https://bit.ly/3AbC, bit.ly/3AbC or as the bare 3AbC. */
export function codeInShortLink(cell: string): string {
  if (!cell.includes('/')) return cell;
  const absolute = /^[a-z][a-z\d+.-]*:\/\//i.test(cell) ? cell : `https://${cell}`;
  // The whole path, not its last segment: Shlink's "promo/summer" must not turn into someone else's "summer".
  return URL.canParse(absolute) ? codePercentDecoded(codeBetweenSlashes(new URL(absolute).pathname)) : cell;
}

export const tagsByPipe = (cell: string): string[] => cell.split('|');
export const tagsByComma = (cell: string): string[] => cell.split(',');
/** People type "a,b"; a "|" means a list written by a program, whose tags may hold commas. */
export const tagsByPipeOrComma = (cell: string): string[] => cell.split(cell.includes('|') ? '|' : ',');

/**
 * Undoes our export's guard: the ' it puts before =, +, -, @, tab or CR so that a spreadsheet shows
 * the text, and before a ' of the text itself (so that a title "'=x" comes back as it was).
 */
export function withoutFormulaEscape(cell: string): string {
  return /^'[=+\-@\t\r']/.test(cell) ? cell.slice(1) : cell;
}
