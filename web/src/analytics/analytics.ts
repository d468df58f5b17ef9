// Pure helpers of the analytics views: which period is asked for, and how the API's dimension values read to people
// ("US" is "United States", "direct" is "No referrer"). No DOM: test/dashboard/dashboard-analytics.test.ts runs them in Node.
import type { Device } from '../../../src/core/dimensions.ts';
import { utcDay } from '../shared/format.ts';
import { DIMENSIONS, type Breakdown, type Dimension, type DimensionValue } from './api.ts';

export interface DayRange {
  from: string;
  to: string;
}

/** The last `days` UTC days, today included. */
export function lastDays(days: number, now = new Date()): DayRange {
  return { from: utcDay(now, 1 - days), to: utcDay(now) };
}

/** Values per dimension on screen; the CSV download has up to the API's most. */
export const SHOWN_VALUES = 10;
export const CSV_VALUES = 100;

interface DimensionText {
  /** The list's heading. */
  title: string;
  /** The header of its values' column. */
  column: string;
}

const DIMENSION_TEXT: Record<Dimension, DimensionText> = {
  referrer: { title: 'Referrers', column: 'Referrer' },
  country: { title: 'Countries', column: 'Country' },
  city: { title: 'Cities', column: 'City' },
  device: { title: 'Devices', column: 'Device' },
  browser: { title: 'Browsers', column: 'Browser' },
  os: { title: 'Operating systems', column: 'Operating system' },
  language: { title: 'Languages', column: 'Language' },
  source: { title: 'QR code or link', column: 'Source' },
  target: { title: 'Rules and A/B variants', column: 'Chosen by' },
};

export function dimensionText(dimension: Dimension): DimensionText {
  return DIMENSION_TEXT[dimension];
}

/** The dimensions an answer has (those switched off are absent), in the order the views show them. */
export function shownDimensions(breakdown: Breakdown): { dimension: Dimension; values: DimensionValue[] }[] {
  return DIMENSIONS.flatMap((dimension) => {
    const values = breakdown[dimension];
    // A plain link has no rules or variants: nothing to show rather than an empty list.
    return values === undefined || (dimension === 'target' && values.length === 0) ? [] : [{ dimension, values }];
  });
}

const DEVICES: Readonly<Record<string, string>> = {
  desktop: 'Desktop',
  mobile: 'Mobile',
  tablet: 'Tablet',
  bot: 'Bot',
  other: 'Other device',
} satisfies Record<Device, string>;

const SOURCES: Readonly<Record<string, string>> = { qr: 'QR code', link: 'Short URL' };

let regions: Intl.DisplayNames | undefined;
let languages: Intl.DisplayNames | undefined;

/** A name from Intl.DisplayNames, or the code itself when it names nothing the browser knows. */
function displayName(names: Intl.DisplayNames, code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/** What a value of a dimension reads as. */
export function valueLabel(dimension: Dimension, row: DimensionValue): string {
  if (row.other === true) return 'Others';
  const { value } = row;
  if (value === 'unknown') return 'Unknown';
  switch (dimension) {
    case 'referrer':
      return value === 'direct' ? 'No referrer' : value;
    case 'country':
      regions ??= new Intl.DisplayNames(undefined, { type: 'region', fallback: 'code' });
      return displayName(regions, value);
    case 'language':
      languages ??= new Intl.DisplayNames(undefined, { type: 'language', fallback: 'code' });
      return displayName(languages, value);
    case 'device':
      return DEVICES[value] ?? value;
    case 'source':
      return SOURCES[value] ?? value;
    case 'target':
      return value === 'url' ? 'The link’s own URL' : value.charAt(0).toUpperCase() + value.slice(1);
    default:
      return value;
  }
}

/** A value's code shown beside its name when the name alone could be ambiguous: a country's ISO code. */
export function valueCode(dimension: Dimension, row: DimensionValue): string | null {
  return dimension === 'country' && row.other !== true && /^[A-Z]{2}$/.test(row.value) ? row.value : null;
}

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

/** A relative standard error as people read it: 0.0163 is "±1.6%". */
export function formatError(relativeError: number): string {
  return `±${percent.format(relativeError)}`;
}

/** A value's share of the period's clicks (people and bots), 0 to 100, for its bar. */
export function sharePercent(row: { clicks: number; botClicks: number }, total: { clicks: number; botClicks: number }): number {
  const all = total.clicks + total.botClicks;
  if (all <= 0) return 0;
  return Math.min(100, Math.round(((row.clicks + row.botClicks) / all) * 1000) / 10);
}
