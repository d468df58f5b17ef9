// Short domains and link keys. Pure: no I/O.
//
// A link is named by (domain, code). In memory (the LRU, the resolver, Redis keys, invalidation
// messages, click counts) that pair is one string, its key: the code alone on the default domain,
// so that a deployment with one domain keeps the keys it always had (and instances of the release
// before share Redis with this one), and "<domain id>:<code>" on any other (":" is never in a code).

import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import type { ShortCode } from './codes.ts';

/** The domain whose host is BASE_URL's: every link from before domains, and every link created without one. */
export const DEFAULT_DOMAIN_ID = 0;

/** (domain, code) as one string. */
export type LinkKey = string & { readonly __brand: 'LinkKey' };

export function linkKey(domainId: number, code: ShortCode): LinkKey {
  return (domainId === DEFAULT_DOMAIN_ID ? code : `${domainId}:${code}`) as LinkKey;
}

/** The key of a link (or of anything that names one). */
export function keyOf(link: { readonly domainId: number; readonly code: ShortCode }): LinkKey {
  return linkKey(link.domainId, link.code);
}

/** What linkKey put together. */
export function splitKey(key: LinkKey): { domainId: number; code: ShortCode } {
  const colon = key.indexOf(':');
  if (colon === -1) return { domainId: DEFAULT_DOMAIN_ID, code: key as string as ShortCode };
  return { domainId: Number(key.slice(0, colon)), code: key.slice(colon + 1) as ShortCode };
}

/** The prefix of the keys of a domain's links: the key of `code` is prefix + code. */
export function keyPrefix(domainId: number): string {
  return domainId === DEFAULT_DOMAIN_ID ? '' : `${domainId}:`;
}

/** RFC 1035 labels as browsers resolve them: letters, digits and hyphens, not at either end. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const HOST_MAX_LENGTH = 253;

export type DomainHostVerdict = { ok: true; host: string } | { ok: false; message: string };

/**
 * A host name an admin gives for a short domain, as stored: lowercase ASCII with IDN labels in
 * punycode, no port, no trailing dot. Refused: IP addresses, single labels (no public name has
 * one), anything with a scheme, a path or a port.
 */
export function checkDomainHost(input: string): DomainHostVerdict {
  const trimmed = input.trim();
  if (trimmed.length === 0) return { ok: false, message: 'Give a host name, such as go.example.com.' };
  if (/[/:@?#\s]/.test(trimmed)) {
    return { ok: false, message: 'Give the host name alone (go.example.com): no scheme, port, path or spaces.' };
  }
  const bare = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  if (isIP(bare) !== 0 || /^[\d.]+$/.test(bare)) return { ok: false, message: 'A short domain is a host name, not an IP address.' };
  const host = domainToASCII(bare);
  if (host === '') return { ok: false, message: 'This is not a valid host name (IDN labels are taken and stored as punycode).' };
  if (host.length > HOST_MAX_LENGTH) return { ok: false, message: `A host name has at most ${HOST_MAX_LENGTH} characters.` };
  const labels = host.split('.');
  if (labels.length < 2) return { ok: false, message: 'Give a full host name with a dot, such as go.example.com.' };
  if (!labels.every((label) => LABEL.test(label))) {
    return { ok: false, message: 'Each part of a host name is 1–63 letters, digits or hyphens, with no hyphen at either end.' };
  }
  return { ok: true, host };
}

/**
 * The stored host a client names in the API (`domain`, `?domain=`): as checkDomainHost stores it,
 * or, for what it refuses (an IP, a single label such as BASE_URL's `localhost`), lowercased.
 */
export function storedHostOf(input: string): string {
  const checked = checkDomainHost(input);
  return checked.ok ? checked.host : input.trim().toLowerCase();
}

/**
 * A request's Host as the domain table is keyed: lowercase, without its port and trailing dot. No
 * IDN conversion: a client sends the ASCII form (RFC 9110 7.2), and anything else serves nothing.
 */
export function requestHostName(raw: string): string {
  let end = raw.length;
  if (raw.charCodeAt(0) === 0x5b /* [ */) {
    const close = raw.indexOf(']');
    end = close === -1 ? end : close + 1;
  } else {
    const colon = raw.indexOf(':');
    if (colon !== -1) end = colon;
  }
  if (end > 0 && raw.charCodeAt(end - 1) === 0x2e /* . */) end--;
  return raw.slice(0, end).toLowerCase();
}

/** Host names that always reach the default domain: a client on this machine (health checks, tests, the operator's curl). */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Where a domain sends what is not a link of its; null: the service's own answer. */
export interface DomainFallbacks {
  readonly rootRedirect: string | null;
  readonly notFoundRedirect: string | null;
  readonly expiredRedirect: string | null;
}

/** pending: not served, its host held for the workspace; verified: served; failing: served, its record lost. */
export type DomainStatus = 'pending' | 'verified' | 'failing';

/** Where a domain stands with its DNS record (core/domain-verification.ts). */
export interface DomainVerification {
  /** What the TXT record `_shortener.<host>` must hold; null for the default domain. */
  readonly token: string | null;
  readonly status: DomainStatus;
  /** When the record was last found. */
  readonly verifiedAt: Date | null;
  readonly lastCheckedAt: Date | null;
  /** Checks in a row that did not find it. */
  readonly failures: number;
}

export interface DomainRecord extends DomainFallbacks {
  readonly id: number;
  /** null for the default domain. */
  readonly host: string | null;
  /** null for the default domain, which every workspace shares. */
  readonly workspaceId: number | null;
  readonly createdAt: Date;
  readonly verification: DomainVerification;
}
