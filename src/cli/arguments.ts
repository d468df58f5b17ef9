// Parsers of option values, for commander (a bad value is a usage error, exit 2, before any request),
// and the small shapes the commands make of them.

import { InvalidArgumentError } from 'commander';

/** A whole number from `min` to `max`. */
export function integerIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max) {
      throw new InvalidArgumentError(`It must be a whole number from ${min} to ${max}.`);
    }
    return number;
  };
}

/** A repeatable option's values, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A date-time, or `none` for null (no expiry, no start). */
export function dateTimeOrNone(value: string): string | null {
  return value === 'none' ? null : value;
}

/** A UTC day, YYYY-MM-DD. */
export function day(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('It must be a day, YYYY-MM-DD.');
  return value;
}

/** The `domain` query of a link's routes: absent for the default domain. */
export function onDomain(domain: string | undefined): { domain?: string } {
  return domain === undefined ? {} : { domain };
}
