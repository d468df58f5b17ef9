// Where a link may point. A short link hides its target, so it must not be a way to send people
// to a router's admin page (private and loopback addresses, in any notation), to a domain the
// operator blocked, or to another shortener (a chain of redirects that hides the real target and
// outlives our checks). Pure: decides on the hostname the WHATWG URL parser produced, which has
// already turned 2130706433, 0x7f.1, 0177.0.0.1 and full-width digits into 127.0.0.1, IPv6 into
// its compressed form, and IDN into punycode. No DNS lookup: a public name that resolves to a
// private address is not caught (the redirect is followed by the visitor, not by this service).

import ipaddr from 'ipaddr.js';
import type { ErrorCode } from '../errors.ts';
import { KNOWN_SHORTENERS } from './shorteners.ts';

export interface TargetPolicy {
  /** The hostname of this service's short links: never a target (a subdomain may be another service). */
  readonly selfHost: string;
  /**
   * Every other host this deployment serves, asked at the time of the check (the default domain's
   * other names, every verified workspace domain): never a target either. Absent: BASE_URL's alone.
   */
  readonly servesHost?: (host: string) => boolean;
  /** Loopback, private, link-local, unique-local and other non-public addresses and names. */
  readonly allowPrivate: boolean;
  /** Domains refused with all their subdomains: lowercase, punycode, no trailing dot. */
  readonly blockedDomains: ReadonlySet<string>;
  /** Links to other URL shorteners. */
  readonly allowShorteners: boolean;
}

/** The policy the configuration asks for; `servesHost`: whether the deployment serves a host (resolve/hosts.ts). */
export function targetPolicyOf(
  config: {
    readonly baseUrl: string;
    readonly allowPrivateTargets: boolean;
    readonly allowShortenerTargets: boolean;
    readonly blockedDomains: ReadonlySet<string>;
    /** API_HOSTS: the deployment's API names, served too (`*` names none). */
    readonly apiHosts?: readonly string[];
  },
  servesHost?: (host: string) => boolean,
): TargetPolicy {
  const apiNames = new Set((config.apiHosts ?? []).filter((host) => host !== '*'));
  const serves = apiNames.size === 0 ? servesHost : (host: string) => apiNames.has(host) || (servesHost !== undefined && servesHost(host));
  return {
    selfHost: new URL(config.baseUrl).hostname.replace(/\.$/, ''),
    ...(serves === undefined ? {} : { servesHost: serves }),
    allowPrivate: config.allowPrivateTargets,
    blockedDomains: config.blockedDomains,
    allowShorteners: config.allowShortenerTargets,
  };
}

/** Names that never lead to the public internet (RFC 6761, RFC 8375, and common private suffixes). */
const PRIVATE_SUFFIXES = new Set([
  'localhost',
  'local',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'home.arpa',
  'localdomain',
  'test',
  'invalid',
]);

/** Why a link may not point at `hostname` (as `URL#hostname` gives it), or undefined if it may. */
export function targetHostProblem(hostname: string, policy: TargetPolicy): ErrorCode | undefined {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  // "evil.example.." or ".evil.example": an empty label, which no comparison below would match.
  if (host === '' || host.startsWith('.') || host.endsWith('.') || host.includes('..')) return 'URL_INVALID';
  if (host === policy.selfHost || policy.servesHost?.(host) === true) return 'URL_SELF_REFERENCE';
  if (!policy.allowPrivate && isPrivateHost(host)) return 'URL_PRIVATE_ADDRESS';
  if (policy.blockedDomains.size > 0 && inDomains(host, policy.blockedDomains)) return 'URL_DOMAIN_BLOCKED';
  if (!policy.allowShorteners && inDomains(host, KNOWN_SHORTENERS)) return 'URL_SHORTENER_NOT_ALLOWED';
  return undefined;
}

/** An IP literal outside public unicast space, or a name that cannot be public. */
function isPrivateHost(host: string): boolean {
  const literal = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIpLiteral(literal)) return !isPublicAddress(ipaddr.parse(literal));
  // A single label ("intranet", "router") is resolved through the visitor's search domains.
  if (!host.includes('.')) return true;
  return inDomains(host, PRIVATE_SUFFIXES);
}

function isPublicAddress(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv6') {
    const v6 = address as ipaddr.IPv6;
    // ::ffff:127.0.0.1 reaches 127.0.0.1; so may the deprecated IPv4-compatible ::127.0.0.1
    // (::/96, which ipaddr.js calls unicast), on stacks that still map it. Other embeddings (NAT64,
    // 6to4, Teredo) are not unicast and are refused with everything else outside public space.
    if (v6.isIPv4MappedAddress()) return isPublicAddress(v6.toIPv4Address());
    if (v6.parts.slice(0, 6).every((part) => part === 0)) {
      const [high = 0, low = 0] = v6.parts.slice(6);
      return isPublicAddress(ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]));
    }
  }
  return address.range() === 'unicast';
}

/** Whether `ip`, an address a name resolved to, is in public unicast space (where a webhook may connect). */
export function isPublicIp(ip: string): boolean {
  return isIpLiteral(ip) && isPublicAddress(ipaddr.parse(ip));
}

/**
 * ipaddr.isValid, asked only of text shaped like an address: on a name it builds and throws an
 * Error to say no. That was 7 % of the service's CPU samples under the create scenario (the
 * largest single function) and 10 µs a check under `--liftoff-only`, against 0.3 µs now (100,000
 * checks of a name, 2026-12-07): the shape checks parse without throwing.
 */
function isIpLiteral(text: string): boolean {
  return (ipaddr.IPv4.isIPv4(text) || ipaddr.IPv6.isIPv6(text)) && ipaddr.isValid(text);
}

/** Whether `host` is one of `domains` or a subdomain of one: one set lookup per label. */
function inDomains(host: string, domains: ReadonlySet<string>): boolean {
  let rest = host;
  for (;;) {
    if (domains.has(rest)) return true;
    const dot = rest.indexOf('.');
    if (dot === -1) return false;
    rest = rest.slice(dot + 1);
  }
}

/** A domain as written by an operator, in the form `targetHostProblem` compares; undefined if it is none. */
export function normaliseDomain(raw: string): string | undefined {
  const text = raw.trim().replace(/^\*\./, '');
  if (text === '' || /[/:@?#\s]/.test(text)) return undefined;
  const url = URL.parse(`http://${text}/`);
  if (url === null) return undefined;
  const host = url.hostname.replace(/\.$/, '');
  return host === '' || host.startsWith('.') || host.endsWith('.') || host.includes('..') ? undefined : host;
}
