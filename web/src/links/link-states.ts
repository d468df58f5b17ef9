// A link's state as the list's filter offers it and a link's badge shows it, in the server's order
// of precedence (src/core/link.ts linkState), live states first.
import type { LINK_STATES as SERVER_LINK_STATES, LinkState } from '../../../src/core/link.ts';

export const LINK_STATES = [
  'active',
  'flagged',
  'scheduled',
  'limit_reached',
  'expired',
  'blocked',
  'disabled',
] as const satisfies typeof SERVER_LINK_STATES;

export const STATE_LABELS: Readonly<Record<LinkState, string>> = {
  active: 'Active',
  flagged: 'Flagged unsafe',
  blocked: 'Blocked',
  scheduled: 'Scheduled',
  limit_reached: 'Limit reached',
  expired: 'Expired',
  disabled: 'Disabled',
};

export function isLinkState(value: string): value is LinkState {
  return (LINK_STATES as readonly string[]).includes(value);
}

/** "3 of 3 clicks used" for a link with a click limit; undefined for one without (or whose count is unknown). */
export function clicksUsedWords(link: { clicksUsed: number | null; options: { clickLimit?: number | null } | null }): string | undefined {
  const limit = link.options?.clickLimit;
  if (typeof limit !== 'number' || link.clicksUsed === null) return undefined;
  const count = new Intl.NumberFormat('en-US');
  return `${count.format(Math.min(link.clicksUsed, limit))} of ${count.format(limit)} ${limit === 1 ? 'click' : 'clicks'} used`;
}

const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** How far `iso` is from `now`, in its largest whole unit: "in 3 days", "2 hours ago", "tomorrow", "now". */
export function fromNow(iso: string, now: number): string {
  const ms = new Date(iso).getTime() - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(ms) >= size) return relative.format(Math.round(ms / size), unit);
  }
  return relative.format(Math.round(ms / 1000), 'second');
}

/** A link's expiry in words: "expires in 3 days", "expired 2 days ago". */
export function expiryWords(expiresAt: string, now: number): string {
  return `${new Date(expiresAt).getTime() <= now ? 'expired' : 'expires'} ${fromNow(expiresAt, now)}`;
}

/** A link's start in words: "starts in 2 hours", "started 3 days ago". */
export function startWords(startsAt: string, now: number): string {
  return `${new Date(startsAt).getTime() <= now ? 'started' : 'starts'} ${fromNow(startsAt, now)}`;
}
