// A blocklist's entries in the form a link's target is compared in: domains as the URL parser
// writes a host (lower case, punycode, no trailing dot) and URLs as the service stores a target, so
// that a match is a few Set lookups. The Public Suffix List ships inside tldts: no I/O here.

import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { getDomain, getPublicSuffix } from 'tldts';
import type { ErrorCode } from '../../errors.ts';
import type { TargetPolicy } from '../target-policy.ts';
import { checkTargetUrl } from '../url-rules.ts';

/** An entry as compared, or why the text is none. */
export type DomainVerdict = { readonly entry: string } | { readonly malformed: string };
/** `irrelevant`: a well-formed URL that no link can have as its target. */
export type UrlVerdict = DomainVerdict | { readonly irrelevant: string };

// The list's private section too: under github.io or blogspot.com, each site is someone else's.
// The input is a hostname already (no URL to take apart), and may be an IP address.
const SUFFIX_OPTIONS = { allowPrivateDomains: true, extractHostname: false } as const;

// What the URL parser would take as the end of a host, or as no part of one: domainToASCII
// parses a whole host, so that `evil.example/path` would come back as `evil.example`.
const NOT_IN_A_NAME = /[\s/\\:@?#%*^|$!"'<>[\]{}`]/;
// The URL parser reads a host ending in a number as an IPv4 address ("123" is 0.0.0.123).
const ENDS_IN_NUMBER = /(?:^|\.)(?:\d+|0x[0-9a-f]*)$/i;
const LABELS = /^[a-z0-9_-]{1,63}(?:\.[a-z0-9_-]{1,63})*$/;
const NAME_MAX_LENGTH = 253;

/** A domain of a list (IDN, any case, one trailing dot allowed), or an IP address, as a URL's host compares. */
export function normaliseListDomain(raw: string): DomainVerdict {
  const name = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  const address = ipLiteral(name);
  if (address !== undefined) return { entry: address };
  if (name === '' || NOT_IN_A_NAME.test(name)) return { malformed: 'not a domain name' };
  if (ENDS_IN_NUMBER.test(name)) return { malformed: 'ends in a number, as no domain name does (nor a dotted IPv4 address)' };
  const ascii = domainToASCII(name);
  if (ascii.length > NAME_MAX_LENGTH || !LABELS.test(ascii)) return { malformed: 'not a domain name' };
  if (getPublicSuffix(ascii, SUFFIX_OPTIONS) === ascii) return { malformed: 'a public suffix: it would block every site under it' };
  return { entry: ascii };
}

/** An IPv4 address in dotted decimal, or an IPv6 one (bracketed or not), as a URL's hostname has it. */
function ipLiteral(name: string): string | undefined {
  if (isDottedIpv4(name)) return name;
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (!bare.includes(':') || !ipaddr.IPv6.isValid(bare)) return undefined;
  return URL.parse(`http://[${bare}]/`)?.hostname;
}

const DOTTED_IPV4 = /^(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}$/;

/**
 * `1.2.3.4`, as a URL's hostname writes an IPv4 address. Not ipaddr's isValidFourPartDecimal: on a
 * name it builds and throws an Error to say no, and 200,000 names took 2.3 s to normalise instead
 * of 0.2 s (normaliseListDomain in a loop, Node 24, 2026-12-07).
 */
function isDottedIpv4(text: string): boolean {
  return DOTTED_IPV4.test(text) && text.split('.').every((part) => Number(part) <= 255);
}

// A list's URLs are read as the service reads a link's target, without the deployment's own
// refusals (private addresses, shorteners, its own hosts): a list may well name such hosts.
const ANY_HOST: TargetPolicy = { selfHost: '', allowPrivate: true, blockedDomains: new Set(), allowShorteners: true };

const URL_PROBLEMS: Partial<Record<ErrorCode, UrlVerdict>> = {
  URL_NOT_ABSOLUTE: { malformed: 'not an absolute http(s) URL' },
  URL_CONTROL_CHARACTERS: { malformed: 'control or invisible characters' },
  URL_TOO_LONG: { malformed: 'longer than 2,048 characters once normalised' },
  URL_SCHEME_NOT_ALLOWED: { irrelevant: 'not http(s): no link points there' },
  URL_CREDENTIALS_NOT_ALLOWED: { irrelevant: 'a user name or password in it: no link holds one' },
};

/** A URL of a list, normalised exactly as a link's target is (url-rules.ts), so that equal means the same. */
export function normaliseListUrl(raw: string): UrlVerdict {
  const verdict = checkTargetUrl(raw, ANY_HOST);
  if (verdict.ok) return { entry: verdict.url };
  return URL_PROBLEMS[verdict.code] ?? { malformed: 'not a valid URL' };
}

/** The host of `url`, then each parent domain up to its registrable domain; [] when `url` has no host. */
export function hostKeys(url: string): string[] {
  return domainKeys(URL.parse(url)?.hostname ?? '');
}

/**
 * `hostname` (as URL#hostname writes it), then its parents up to and including its registrable
 * domain and never above: a list holds no public suffix (normaliseListDomain refuses them), so no
 * entry can sit higher, and the walk costs a lookup per label whatever the lists' size. An IP
 * address is its own and only key.
 */
export function domainKeys(hostname: string): string[] {
  const host = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (host === '') return [];
  if (host.startsWith('[') || isDottedIpv4(host)) return [host];
  const registrable = getDomain(host, SUFFIX_OPTIONS) ?? host;
  const keys = [host];
  let rest = host;
  while (rest.length > registrable.length) {
    const dot = rest.indexOf('.');
    if (dot === -1) break;
    rest = rest.slice(dot + 1);
    keys.push(rest);
  }
  return keys;
}

/**
 * The keys links are indexed by (links.target_domains, migrations/0021_link_safety.sql): the
 * registrable domain of each host `urls` name (an IP address as itself), without repeats. Every
 * entry that can match a URL (domainKeys) has that URL's key as its own indexKey, so that the
 * links an entry may match are those whose keys hold the entry's.
 */
export function targetDomains(urls: Iterable<string>): string[] {
  const keys = new Set<string>();
  for (const url of urls) {
    const hostname = URL.parse(url)?.hostname ?? '';
    if (hostname !== '') keys.add(indexKey(hostname));
  }
  return [...keys];
}

/** The index key of a domain entry or of a host: its registrable domain, or itself (an IP address, a name under no known suffix). */
export function indexKey(hostname: string): string {
  const keys = domainKeys(hostname);
  return keys[keys.length - 1] ?? hostname;
}
