// Domain verification's rules. Pure: no I/O. A workspace proves it controls a host by publishing a
// TXT record `_shortener.<host>` that holds the token the API gave for it (as Vercel's `_vercel`,
// Netlify's `netlify-challenge` and Dub's `_dub` do); the records are read by
// domains/verification.ts, and what a check's outcome does to a domain is decided here.

import type { DomainStatus, DomainVerification } from './domains.ts';

/** The name of the TXT record that proves control of `host`. */
export function recordName(host: string): string {
  return `_shortener.${host}`;
}

/** What a DNS look-up of the record found: the token, other values or no record, or no answer at all. */
export type CheckOutcome = 'found' | 'absent' | 'unanswered';

/** Whether TXT records (each a list of strings, joined as RFC 7208 3.3 does) hold `token`. */
export function recordsHold(records: readonly (readonly string[])[], token: string): boolean {
  return records.some((chunks) => chunks.join('').trim() === token);
}

export interface CheckRules {
  /** Failed checks in a row a verified domain is still served through (status failing). */
  readonly grace: number;
}

/** A domain's verification after a check; unanswered (resolvers down) changes nothing but the time. */
export function afterCheck(
  before: Pick<DomainVerification, 'status' | 'failures' | 'verifiedAt'>,
  outcome: CheckOutcome,
  now: Date,
  { grace }: CheckRules,
): { status: DomainStatus; failures: number; verifiedAt: Date | null } {
  if (outcome === 'found') return { status: 'verified', failures: 0, verifiedAt: now };
  if (outcome === 'unanswered' || before.status === 'pending') return { ...before };
  const failures = before.failures + 1;
  return { status: failures > grace ? 'pending' : 'failing', failures, verifiedAt: before.verifiedAt };
}

/** Whether the redirect path serves a domain of this status. */
export function isServed(status: DomainStatus): boolean {
  return status !== 'pending';
}
