// A link's options compiled for the redirect (link-options.ts): built once when the link enters
// the cache, then evaluated per request from what the request view gives (edge/visitor.ts), each
// fact read only by a rule that needs it. Pure: no I/O. A link whose options change nothing (none,
// or only the deployment's defaults) compiles to null and stays a plain, prebuilt redirect.

import type { Device } from './dimensions.ts';
import { SPLIT_MAX, TARGETS_MAX, type DeepLinks, type LinkOptions, type RedirectStatus, type TargetCondition } from './link-options.ts';
import type { HtmlPage } from './html-page.ts';
import { passTagOf } from './link-passwords.ts';
import { previewPage } from './preview-page.ts';
import { URL_MAX_LENGTH } from './url-rules.ts';

/** The deployment's defaults (REDIRECT_STATUS, FORWARD_QUERY). */
export interface RuleDefaults {
  readonly redirectStatus: RedirectStatus;
  readonly forwardQuery: boolean;
}

/** What a User-Agent says to a device condition. */
export interface DeviceFacts {
  /** 'ios', 'android', or '' for any other OS. */
  readonly os: 'ios' | 'android' | '';
  readonly type: Device;
}

/** What rules may ask of a request; the redirect's view answers each on demand, once. */
export interface Visitor {
  device(): DeviceFacts;
  /** ISO 3166-1 alpha-2, upper case, or 'unknown'. */
  country(): string;
  /** The most preferred language tag of Accept-Language (highest quality, the first of equals), lower case; '' without one. */
  language(): string;
  /** The request's query, without "?"; '' without one. */
  query(): string;
  /** The same for the same visitor (address and User-Agent) and link, on every instance and day: 0 to 99. */
  bucket(): number;
}

type Test = (visitor: Visitor, now: number) => boolean;

/**
 * What chose a redirect's target, as analytics logs it (the `target` dimension): 0 a plain link's
 * (not counted under the dimension), TARGET_URL the link's own URL, TARGET_RULE + i its rule i,
 * TARGET_VARIANT + j its split's variant j.
 */
export const TARGET_URL = 1;
export const TARGET_RULE = 2;
export const TARGET_VARIANT = TARGET_RULE + TARGETS_MAX;
const TARGET_END = TARGET_VARIANT + SPLIT_MAX;

/** The `target` dimension's value of each logged number (analytics/visits.ts); '' for 0. */
export const TARGET_VALUES: readonly string[] = Array.from({ length: TARGET_END }, (_, raw) =>
  raw === 0
    ? ''
    : raw === TARGET_URL
      ? 'url'
      : raw < TARGET_VARIANT
        ? `rule ${raw - TARGET_RULE + 1}`
        : `variant ${String.fromCharCode(65 + raw - TARGET_VARIANT)}`,
);

/** A link's compiled rules: the cache entry of a link with options. */
export class LinkRules {
  readonly status: RedirectStatus;
  readonly url: string;
  readonly forwardQuery: boolean;
  readonly #targets: readonly { readonly test: Test; readonly url: string }[];
  /** Variant i takes buckets below #cumulative[i]. */
  readonly #splitUrls: readonly string[];
  readonly #cumulative: readonly number[];
  /**
   * What link-preview crawlers get instead of the redirect; null: they are redirected like people.
   * A protected link's preview names no target: a crawler is no one the password was given to.
   */
  readonly preview: HtmlPage | null;
  /** The apps of phone visitors (app-page.ts); null: none. */
  readonly deepLink: DeepLinks | null;
  /** The tag of the link's password (link-passwords.ts): a visitor without a pass for it gets the password page; null: none. */
  readonly passTag: string | null;
  /**
   * Whether the answer depends on who asks (a User-Agent, a cookie, an address, a bucket): such an
   * answer is private to its visitor, never one a shared cache may hand to another.
   */
  readonly personal: boolean;
  /** The most redirects the link gives (links/click-limits.ts); null: no limit. */
  readonly clickLimit: number | null;
  /** Where the link sends visitors once its click limit is used up (link-options.ts expiredUrl); null: the domain's fallback. */
  readonly expiredUrl: string | null;
  /**
   * The blocklist that named its target after it was made, when the deployment warns rather than
   * blocks (core/link.ts LinkSafety 'flagged'): every visitor gets the warning page
   * (core/warning-page.ts) instead of the redirect; null: none.
   */
  readonly warning: string | null;
  constructor(url: string, options: LinkOptions, defaults: RuleDefaults, warning: string | null = null) {
    this.url = url;
    this.status = options.redirectStatus ?? defaults.redirectStatus;
    this.forwardQuery = options.forwardQuery ?? defaults.forwardQuery;
    this.#targets = (options.targets ?? []).map((rule) => ({ test: compileCondition(rule.when), url: rule.url }));
    const split = options.split ?? [];
    this.#splitUrls = split.map((variant) => variant.url);
    let sum = 0;
    this.#cumulative = split.map((variant) => (sum += variant.weight));
    this.passTag = options.passwordHash === undefined ? (options.passTag ?? null) : passTagOf(options.passwordHash);
    this.preview = options.preview === undefined ? null : previewPage(options.preview, this.passTag === null ? url : null);
    this.deepLink = options.deepLink ?? null;
    this.clickLimit = options.clickLimit ?? null;
    this.expiredUrl = options.expiredUrl ?? null;
    this.warning = warning;
    this.personal =
      this.#targets.length > 0 || this.#splitUrls.length > 0 || this.preview !== null || this.deepLink !== null || this.passTag !== null;
  }

  /**
   * Where `visitor` goes: the first target whose condition holds, else the split's variant for
   * the visitor, else the link's URL; with the request's query merged in when the link forwards it.
   */
  location(visitor: Visitor, now: number): string {
    return this.locationOf(this.target(visitor, now), visitor);
  }

  /** What chooses `visitor`'s target: TARGET_RULE + i (the first rule that holds), TARGET_VARIANT + j (the split's variant), or TARGET_URL. */
  target(visitor: Visitor, now: number): number {
    const targets = this.#targets;
    for (let i = 0; i < targets.length; i++) {
      if ((targets[i] as { readonly test: Test }).test(visitor, now)) return TARGET_RULE + i;
    }
    return this.#splitUrls.length === 0 ? TARGET_URL : TARGET_VARIANT + this.#variant(visitor);
  }

  /** The location of `target` (as target() chose it) for `visitor`. */
  locationOf(target: number, visitor: Visitor): string {
    const url =
      target === TARGET_URL
        ? this.url
        : target < TARGET_VARIANT
          ? (this.#targets[target - TARGET_RULE] as { readonly url: string }).url
          : (this.#splitUrls[target - TARGET_VARIANT] as string);
    if (!this.forwardQuery) return url;
    const query = visitor.query();
    return query === '' ? url : mergeQuery(url, query);
  }

  #variant(visitor: Visitor): number {
    const bucket = visitor.bucket();
    const cumulative = this.#cumulative;
    let i = 0;
    while (i < cumulative.length - 1 && bucket >= (cumulative[i] as number)) i++;
    return i;
  }
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * Whether every Location the link can answer with is visible ASCII, as every URL the API stores is
 * (normalised, percent-encoded): a value from elsewhere (a tampered cache entry) must never reach a
 * response head, where a CR, an LF, or a character whose low byte is one, would split it.
 */
export function locationsWritable(url: string, options: LinkOptions | null): boolean {
  if (!VISIBLE_ASCII.test(url)) return false;
  if (options === null) return true;
  for (const rule of options.targets ?? []) if (!VISIBLE_ASCII.test(rule.url)) return false;
  for (const variant of options.split ?? []) if (!VISIBLE_ASCII.test(variant.url)) return false;
  if (options.expiredUrl !== undefined && !VISIBLE_ASCII.test(options.expiredUrl)) return false;
  const apps = options.deepLink;
  return apps === undefined || [apps.ios, apps.android].every((app) => app === undefined || VISIBLE_ASCII.test(app));
}

/**
 * The compiled rules of a link, or null when its options change nothing: a plain redirect (302,
 * prebuilt). A deployment default other than 302 or forwarding the query makes every link a ruled one.
 */
export function compileRules(
  url: string,
  options: LinkOptions | null,
  defaults: RuleDefaults,
  warning: string | null = null,
): LinkRules | null {
  if (options === null && defaults.redirectStatus === 302 && !defaults.forwardQuery && warning === null) return null;
  const rules = new LinkRules(url, options ?? {}, defaults, warning);
  const plain =
    warning === null &&
    rules.status === 302 &&
    !rules.forwardQuery &&
    options?.targets === undefined &&
    options?.split === undefined &&
    rules.preview === null &&
    rules.deepLink === null &&
    rules.passTag === null &&
    rules.clickLimit === null;
  return plain ? null : rules;
}

function compileCondition(when: TargetCondition): Test {
  const tests: Test[] = [];
  if (when.device !== undefined) {
    const wanted = new Set<string>(when.device);
    tests.push((v) => {
      const facts = v.device();
      return (facts.os !== '' && wanted.has(facts.os)) || wanted.has(facts.type);
    });
  }
  if (when.country !== undefined) {
    const wanted = new Set(when.country);
    tests.push((v) => wanted.has(v.country()));
  }
  if (when.language !== undefined) {
    const wanted = when.language;
    tests.push((v) => languageMatches(wanted, v.language()));
  }
  if (when.query !== undefined) {
    const { name, value } = when.query;
    tests.push((v) => queryHas(v.query(), name, value));
  }
  if (when.from !== undefined) {
    const from = Date.parse(when.from);
    tests.push((_, now) => now >= from);
  }
  if (when.until !== undefined) {
    const until = Date.parse(when.until);
    tests.push((_, now) => now < until);
  }
  if (tests.length === 1) return tests[0] as Test;
  return (v, now) => tests.every((test) => test(v, now));
}

/** `pt` matches pt and pt-br; `pt-br` matches pt-br (and pt-br-x). */
export function languageMatches(wanted: readonly string[], tag: string): boolean {
  if (tag === '') return false;
  for (const range of wanted) {
    if (tag === range || (tag.startsWith(range) && tag.charCodeAt(range.length) === 0x2d) /* - */) return true;
  }
  return false;
}

/** The preferred language tag of an Accept-Language value: the highest quality, the first of equals; '' for none (`*` is none). */
export function preferredLanguage(acceptLanguage: string | undefined): string {
  if (acceptLanguage === undefined) return '';
  let best = '';
  let bestQ = 0;
  for (const range of acceptLanguage.split(',', 20)) {
    const semicolon = range.indexOf(';');
    const tag = (semicolon === -1 ? range : range.slice(0, semicolon)).trim().toLowerCase();
    let q = 1;
    if (semicolon !== -1) {
      const match = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(range.slice(semicolon + 1));
      q = match === null ? 0 : Number(match[1]);
    }
    if (q > bestQ && /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/.test(tag)) {
      best = tag;
      bestQ = q;
    }
  }
  return best;
}

/** Whether `query` has parameter `name` (with `value`, if given), both compared percent-decoded. */
export function queryHas(query: string, name: string, value: string | undefined): boolean {
  if (query === '') return false;
  const values = new URLSearchParams(query).getAll(name);
  return value === undefined ? values.length > 0 : values.includes(value);
}

/** Bytes a query keeps as they are (RFC 3986 query characters); any other is percent-encoded. */
const QUERY_BYTE = new Uint8Array(128);
for (const c of "-._~!$&'()*+,;=:@/?0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") QUERY_BYTE[c.charCodeAt(0)] = 1;
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * A request's query as it may go into a Location: RFC 3986 query characters kept, a "%" kept
 * before two hex digits, every other character (taken as the latin1 byte node:http read) encoded.
 */
export function safeQuery(query: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < query.length; i++) {
    const c = query.charCodeAt(i);
    if (c < 128 && QUERY_BYTE[c] === 1) continue;
    if (c === 0x25 && HEX.test(query.slice(i + 1, i + 3))) continue;
    out += query.slice(from, i) + '%' + (c & 0xff).toString(16).toUpperCase().padStart(2, '0');
    from = i + 1;
  }
  return from === 0 ? query : out + query.slice(from);
}

/**
 * The target with the request's query merged in: the request's parameters replace the target's
 * of the same name (every one of them), the others keep their order, and the fragment stays last.
 * A result longer than URL_MAX_LENGTH is not made: the target is answered as it is.
 */
export function mergeQuery(target: string, requestQuery: string): string {
  const query = safeQuery(requestQuery);
  const hash = target.indexOf('#');
  const fragment = hash === -1 ? '' : target.slice(hash);
  const base = hash === -1 ? target : target.slice(0, hash);
  const mark = base.indexOf('?');
  const path = mark === -1 ? base : base.slice(0, mark);
  const sent = query.split('&').filter((pair) => pair !== '');
  if (sent.length === 0) return target;
  const names = new Set(sent.map(nameOf));
  const kept =
    mark === -1
      ? []
      : base
          .slice(mark + 1)
          .split('&')
          .filter((pair) => pair !== '' && !names.has(nameOf(pair)));
  const merged = `${path}?${[...kept, ...sent].join('&')}${fragment}`;
  return merged.length > URL_MAX_LENGTH ? target : merged;
}

function nameOf(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = eq === -1 ? pair : pair.slice(0, eq);
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}
