// What a domain's DNS and TLS check concludes from what it saw (check.ts looks). Pure: no I/O.
// A domain "points to" the service when its CNAME chain reaches the service's host name, or when
// every address it has is one of the service's (the root of a zone, which cannot be a CNAME).

import { isIP } from 'node:net';

/** Where the service says its domains should point (DOMAIN_TARGET_HOST, DOMAIN_TARGET_ADDRESSES). */
export interface Target {
  readonly host: string | null;
  /** The configured addresses, or else the target host's, as looked up now. */
  readonly addresses: readonly string[];
}

/** What the domain's DNS answered; `unanswered`: no server answered about its addresses. */
export interface DnsSeen {
  readonly cname: readonly string[];
  readonly a: readonly string[];
  readonly aaaa: readonly string[];
  readonly unanswered: boolean;
}

export interface DnsRecord {
  readonly type: 'CNAME' | 'A' | 'AAAA';
  readonly name: string;
  readonly value: string;
}

export const DNS_PROBLEMS = ['DNS_NO_TARGET', 'DNS_UNANSWERED', 'DNS_NO_RECORDS', 'DNS_ELSEWHERE'] as const;
export const TLS_PROBLEMS = [
  'TLS_NOT_CHECKED',
  'TLS_TIMEOUT',
  'TLS_REFUSED',
  'TLS_HANDSHAKE_FAILED',
  'TLS_EXPIRED',
  'TLS_NOT_YET_VALID',
  'TLS_WRONG_HOST',
  'TLS_UNTRUSTED',
] as const;
export type DnsProblem = (typeof DNS_PROBLEMS)[number];
export type TlsProblem = (typeof TLS_PROBLEMS)[number];

export interface Problem<Code extends string> {
  readonly code: Code;
  readonly message: string;
}

export interface DnsVerdict {
  readonly ok: boolean;
  /** "Points to edge.example.net", or the problem's message. */
  readonly summary: string;
  readonly problem: Problem<DnsProblem> | null;
  /** What to set: a CNAME to the target host and, for the root of a zone, A and AAAA records instead. */
  readonly records: readonly DnsRecord[];
}

/** The records that point `host` at the target. */
export function recordsToSet(host: string, target: Target): DnsRecord[] {
  const records: DnsRecord[] = [];
  if (target.host !== null && target.host !== host) records.push({ type: 'CNAME', name: host, value: target.host });
  for (const address of target.addresses) records.push({ type: isIP(address) === 6 ? 'AAAA' : 'A', name: host, value: address });
  return records;
}

/** Whether the DNS of `host` points at `target`, and what to set if not. */
export function dnsVerdict(host: string, target: Target, seen: DnsSeen): DnsVerdict {
  const records = recordsToSet(host, target);
  const problem = (code: DnsProblem, message: string): DnsVerdict => ({ ok: false, summary: message, problem: { code, message }, records });
  const name = target.host ?? target.addresses.join(', ');
  if (target.host === host) return { ok: true, summary: `${host} is the service’s own name`, problem: null, records };
  if (target.host === null && target.addresses.length === 0) {
    return problem(
      'DNS_NO_TARGET',
      'This service does not know its public address (DOMAIN_TARGET_HOST or DOMAIN_TARGET_ADDRESSES): ask its operator.',
    );
  }
  if (target.host !== null && seen.cname.includes(target.host))
    return { ok: true, summary: `Points to ${target.host}`, problem: null, records };
  const addresses = [...seen.a, ...seen.aaaa];
  if (addresses.length > 0 && addresses.every((address) => target.addresses.includes(address))) {
    return { ok: true, summary: `Points to ${name}`, problem: null, records };
  }
  if (seen.unanswered) return problem('DNS_UNANSWERED', `The DNS servers did not answer about ${host}; try again in a moment.`);
  if (seen.cname.length === 0 && addresses.length === 0) {
    return problem('DNS_NO_RECORDS', `${host} has no CNAME, A or AAAA record yet: set the record below.`);
  }
  const now = seen.cname.length > 0 ? `a CNAME to ${seen.cname[0]}` : addresses.join(', ');
  return problem('DNS_ELSEWHERE', `${host} points to ${now}, not to ${name}: change its record to the one below.`);
}

/** The certificate as the check shows it. */
export interface CertificateView {
  readonly subject: string | null;
  readonly altNames: readonly string[];
  readonly issuer: string | null;
  readonly validFrom: string;
  readonly validTo: string;
  readonly daysLeft: number;
}

/** What the TLS handshake gave: the certificate, and what Node said of its chain and of its names. */
export interface TlsSeen {
  readonly certificate: CertificateView;
  /** The chain's verification error (authorizationError), or null: signed by a trusted authority. */
  readonly chainError: string | null;
  /** Whether the certificate's names cover the host (tls.checkServerIdentity). */
  readonly covers: boolean;
}

export interface TlsVerdict {
  readonly ok: boolean;
  readonly summary: string;
  readonly problem: Problem<TlsProblem> | null;
  readonly certificate: CertificateView | null;
}

const DAY_MS = 86_400_000;

/** "12 March 2027". */
export function dayOf(date: Date): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(date);
}

/** Whole days from `now` to `until`; negative once past (-2: expired two days ago). */
export function daysLeft(until: Date, now: Date): number {
  return Math.trunc((until.getTime() - now.getTime()) / DAY_MS);
}

const days = (n: number) => `${n} ${n === 1 ? 'day' : 'days'}`;

/** Whether a certificate the handshake gave serves `host`: in date, for its name, from a trusted authority. */
export function tlsVerdict(host: string, seen: TlsSeen, now: Date): TlsVerdict {
  const { certificate } = seen;
  const problem = (code: TlsProblem, message: string): TlsVerdict => ({
    ok: false,
    summary: message,
    problem: { code, message },
    certificate,
  });
  const validTo = new Date(certificate.validTo);
  const validFrom = new Date(certificate.validFrom);
  if (validTo.getTime() < now.getTime()) return problem('TLS_EXPIRED', `The certificate expired on ${dayOf(validTo)}: renew it.`);
  if (validFrom.getTime() > now.getTime()) return problem('TLS_NOT_YET_VALID', `The certificate is valid only from ${dayOf(validFrom)}.`);
  if (!seen.covers) {
    const names = certificate.altNames.length > 0 ? certificate.altNames.join(', ') : (certificate.subject ?? 'no name');
    return problem('TLS_WRONG_HOST', `The certificate is for ${names}, not ${host}: serve one that covers ${host}.`);
  }
  if (seen.chainError !== null) {
    return problem('TLS_UNTRUSTED', `The certificate is not signed by an authority browsers trust (${seen.chainError}).`);
  }
  return { ok: true, summary: `Certificate valid until ${dayOf(validTo)} (${days(certificate.daysLeft)})`, problem: null, certificate };
}

/** A TLS connection that gave no certificate: nothing answered, in time or at all. */
export function tlsFailure(code: TlsProblem, message: string): TlsVerdict {
  return { ok: false, summary: message, problem: { code, message }, certificate: null };
}
