// A link's options beyond its URL, as the API takes them and as they are stored: the redirect's
// status, query forwarding, targets by rule and an A/B split. Pure: no I/O. What the redirect
// evaluates is their compiled form (redirect-rules.ts); a link without options has none (null).

import { ERRORS, type ErrorCode } from '../errors.ts';
import { codePoints, parseDateTime } from './field-values.ts';
import type { TargetPolicy } from './target-policy.ts';
import { appSchemeProblem } from './app-schemes.ts';
import { checkTargetUrl, URL_MAX_LENGTH } from './url-rules.ts';
import { isWebUrl } from './app-page.ts';

export const REDIRECT_STATUSES = [301, 302, 307, 308] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

/** What a device condition names: an OS (ios, android) or a device type (as analytics counts them). */
export const DEVICE_CONDITIONS = ['ios', 'android', 'mobile', 'tablet', 'desktop'] as const;
export type DeviceCondition = (typeof DEVICE_CONDITIONS)[number];

export const TARGETS_MAX = 20;
export const SPLIT_MAX = 10;
/** Values in one condition's list (countries, languages, devices). */
export const CONDITION_VALUES_MAX = 50;
export const QUERY_NAME_MAX_LENGTH = 100;
export const QUERY_VALUE_MAX_LENGTH = 200;

/** A rule's condition: every part given must hold. */
export interface TargetCondition {
  readonly device?: readonly DeviceCondition[];
  /** ISO 3166-1 alpha-2 codes, upper case. */
  readonly country?: readonly string[];
  /** Language tags, lower case: `pt` matches pt and pt-BR, `pt-br` only pt-BR. */
  readonly language?: readonly string[];
  /** The request's query has this parameter (with this value, if one is given). */
  readonly query?: { readonly name: string; readonly value?: string };
  /** From this time on (RFC 3339, as given, normalised to UTC). */
  readonly from?: string;
  /** Before this time. */
  readonly until?: string;
}

export interface TargetRule {
  readonly when: TargetCondition;
  readonly url: string;
}

export interface SplitVariant {
  readonly url: string;
  /** Percent of the visitors; a split's weights sum to 100. */
  readonly weight: number;
}

/** What link-preview crawlers are shown instead of the redirect (preview-page.ts). */
export interface LinkPreview {
  readonly title?: string;
  readonly description?: string;
  /** An http(s) URL, checked like a link target. */
  readonly image?: string;
}

/** App URLs for phones (app-page.ts): a custom scheme (myapp://path) or an https universal or app link. */
export interface DeepLinks {
  readonly ios?: string;
  readonly android?: string;
}

export const PREVIEW_TITLE_MAX_LENGTH = 200;
export const PREVIEW_DESCRIPTION_MAX_LENGTH = 500;

export interface LinkOptions {
  readonly redirectStatus?: RedirectStatus;
  /** The request's query merged into the target's; absent: the deployment's default (FORWARD_QUERY). */
  readonly forwardQuery?: boolean;
  readonly targets?: readonly TargetRule[];
  readonly split?: readonly SplitVariant[];
  readonly preview?: LinkPreview;
  readonly deepLink?: DeepLinks;
  /** The scrypt hash of the link's password (core/link-passwords.ts): never shown, never taken from a request. */
  readonly passwordHash?: string;
  /** In a Redis entry, in the hash's place: its tag (link-passwords.ts passTagOf); never in Postgres or a request. */
  readonly passTag?: string;
  /** The most redirects the link gives, across every instance (links/click-limits.ts); then 410. */
  readonly clickLimit?: number;
  /**
   * Where the link sends its visitors once it has expired or its click limit is used up, before the
   * domain's expired fallback: its own "this offer has ended" page. Checked like its URL.
   */
  readonly expiredUrl?: string;
}

export const CLICK_LIMIT_MAX = 1_000_000_000;

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/** `options` with the password hash `hash` (a new one, or the link's own), or without one. */
export function withPasswordHash(options: LinkOptions | null, hash: string | undefined): LinkOptions | null {
  if (hash === undefined) return options;
  return { ...options, passwordHash: hash };
}

/**
 * Every URL a link can send a visitor to, with the field that holds it: its url, its rules' and its
 * split's, its apps' web (https) links, and its own expired fallback. What a blocklist is checked against (links/blocklist-refusal.ts)
 * and what the links' index of target domains is made of (core/blocklist/entries.ts targetDomains).
 */
export function linkTargets(url: string, options: LinkOptions | null): { readonly field: string; readonly url: string }[] {
  const targets = [{ field: 'url', url }];
  if (options === null) return targets;
  options.targets?.forEach((rule, i) => targets.push({ field: `options.targets[${i}].url`, url: rule.url }));
  options.split?.forEach((variant, i) => targets.push({ field: `options.split[${i}].url`, url: variant.url }));
  for (const os of ['ios', 'android'] as const) {
    const app = options.deepLink?.[os];
    if (app !== undefined && isWebUrl(app)) targets.push({ field: `options.deepLink.${os}`, url: app });
  }
  if (options.expiredUrl !== undefined) targets.push({ field: 'options.expiredUrl', url: options.expiredUrl });
  return targets;
}

/** Options as the API shows them: the hash is never shown, only that there is a password. */
export function shownOptions(options: LinkOptions | null): (Omit<LinkOptions, 'passwordHash' | 'passTag'> & { password?: true }) | null {
  if (options === null || (options.passwordHash === undefined && options.passTag === undefined)) return options;
  const { passwordHash: _, passTag: __, ...rest } = options;
  return { ...rest, password: true };
}

/** The options of a create or a change, as the API's JSON schema lets them through (every field checked here again). */
export interface LinkOptionsInput {
  redirectStatus?: unknown;
  forwardQuery?: unknown;
  targets?: unknown;
  split?: unknown;
  preview?: unknown;
  deepLink?: unknown;
  password?: unknown;
  clickLimit?: unknown;
  expiredUrl?: unknown;
}

/**
 * The options as stored (but the password's hash), and the password asked for: a new one to hash,
 * `true` to keep the link's own (a change only), undefined for none.
 */
export type OptionsVerdict =
  { ok: true; options: LinkOptions | null; password?: string | true } | { ok: false; code: ErrorCode; field: string; message?: string };

class Refused extends Error {
  readonly code: ErrorCode;
  readonly field: string;
  constructor(code: ErrorCode, field: string, message?: string) {
    super(message);
    this.code = code;
    this.field = field;
  }
}

const COUNTRY = /^[A-Z]{2}$/;
const LANGUAGE = /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/;
// Printable ASCII but the characters that end or split a query's parameter.
const QUERY_TEXT = /^[\x21-\x22\x24-\x25\x27-\x3c\x3e-\x7e]*$/;

/** Options as stored: checked, normalised, and null when they ask for nothing. */
export function checkLinkOptions(input: LinkOptionsInput | null | undefined, policy: TargetPolicy, now: number): OptionsVerdict {
  if (input === null || input === undefined) return { ok: true, options: null };
  try {
    const options: {
      redirectStatus?: RedirectStatus;
      forwardQuery?: boolean;
      targets?: TargetRule[];
      split?: SplitVariant[];
      preview?: LinkPreview;
      deepLink?: DeepLinks;
      clickLimit?: number;
      expiredUrl?: string;
    } = {};
    if (input.redirectStatus !== undefined && input.redirectStatus !== null) options.redirectStatus = checkStatus(input.redirectStatus);
    if (input.forwardQuery !== undefined && input.forwardQuery !== null) {
      if (typeof input.forwardQuery !== 'boolean')
        throw new Refused('BODY_INVALID', 'options.forwardQuery', 'options.forwardQuery must be true, false or null.');
      options.forwardQuery = input.forwardQuery;
    }
    if (input.targets !== undefined && input.targets !== null) {
      const targets = checkTargets(input.targets, policy, now);
      if (targets.length > 0) options.targets = targets;
    }
    if (input.split !== undefined && input.split !== null) {
      const split = checkSplit(input.split, policy);
      if (split.length > 0) options.split = split;
    }
    if (input.preview !== undefined && input.preview !== null) options.preview = checkPreview(input.preview, policy);
    if (input.deepLink !== undefined && input.deepLink !== null) options.deepLink = checkDeepLinks(input.deepLink, policy);
    if (input.clickLimit !== undefined && input.clickLimit !== null) {
      const limit = input.clickLimit;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > CLICK_LIMIT_MAX)
        throw new Refused('CLICK_LIMIT_INVALID', 'options.clickLimit');
      options.clickLimit = limit;
    }
    if (input.expiredUrl !== undefined && input.expiredUrl !== null)
      options.expiredUrl = checkUrl(input.expiredUrl, policy, 'options.expiredUrl');
    const stored = Object.keys(options).length === 0 ? null : options;
    if (input.password === undefined || input.password === null || input.password === false) return { ok: true, options: stored };
    return { ok: true, options: stored, password: checkPassword(input.password) };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return err.message === ''
      ? { ok: false, code: err.code, field: err.field }
      : { ok: false, code: err.code, field: err.field, message: err.message };
  }
}

export function isRedirectStatus(value: unknown): value is RedirectStatus {
  return (REDIRECT_STATUSES as readonly unknown[]).includes(value);
}

function checkStatus(value: unknown): RedirectStatus {
  if (!isRedirectStatus(value)) throw new Refused('REDIRECT_STATUS_INVALID', 'options.redirectStatus');
  return value;
}

function checkUrl(raw: unknown, policy: TargetPolicy, field: string): string {
  if (typeof raw !== 'string') throw new Refused('URL_INVALID', field, `${field} must be an absolute http(s) URL.`);
  const verdict = checkTargetUrl(raw, policy);
  if (!verdict.ok) throw new Refused(verdict.code, field, ERRORS[verdict.code].message.replace(/^url\b/, field));
  return verdict.url;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkTargets(raw: unknown, policy: TargetPolicy, now: number): TargetRule[] {
  if (!Array.isArray(raw) || raw.length > TARGETS_MAX)
    throw new Refused('TARGET_RULE_INVALID', 'options.targets', `options.targets must be a list of at most ${TARGETS_MAX} rules.`);
  return raw.map((rule: unknown, i) => {
    const at = `options.targets[${i}]`;
    if (!isObject(rule) || !isObject(rule.when))
      throw new Refused('TARGET_RULE_INVALID', at, `${at} must be an object with "when" (the condition) and "url".`);
    const unknown = Object.keys(rule).find((k) => k !== 'when' && k !== 'url');
    if (unknown !== undefined) throw new Refused('TARGET_RULE_INVALID', `${at}.${unknown}`, `${at} has an unknown field "${unknown}".`);
    return { when: checkCondition(rule.when, `${at}.when`, now), url: checkUrl(rule.url, policy, `${at}.url`) };
  });
}

function list(raw: unknown, field: string, what: string): string[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > CONDITION_VALUES_MAX || !raw.every((v) => typeof v === 'string'))
    throw new Refused('TARGET_RULE_INVALID', field, `${field} must be a list of 1 to ${CONDITION_VALUES_MAX} ${what}.`);
  return [...new Set(raw)];
}

function checkCondition(when: Record<string, unknown>, at: string, now: number): TargetCondition {
  const condition: {
    device?: DeviceCondition[];
    country?: string[];
    language?: string[];
    query?: { name: string; value?: string };
    from?: string;
    until?: string;
  } = {};
  for (const [name, value] of Object.entries(when)) {
    const field = `${at}.${name}`;
    switch (name) {
      case 'device': {
        const devices = list(value, field, `of ${DEVICE_CONDITIONS.join(', ')}`);
        if (!devices.every((d) => (DEVICE_CONDITIONS as readonly string[]).includes(d)))
          throw new Refused('TARGET_RULE_INVALID', field, `${field} may name only ${DEVICE_CONDITIONS.join(', ')}.`);
        condition.device = devices as DeviceCondition[];
        break;
      }
      case 'country': {
        const countries = list(value, field, 'ISO 3166-1 alpha-2 country codes such as "DE"').map((c) => c.toUpperCase());
        if (!countries.every((c) => COUNTRY.test(c)))
          throw new Refused('TARGET_RULE_INVALID', field, `${field} must hold ISO 3166-1 alpha-2 country codes such as "DE".`);
        condition.country = [...new Set(countries)];
        break;
      }
      case 'language': {
        const languages = list(value, field, 'language tags such as "de" or "pt-BR"').map((l) => l.toLowerCase());
        if (!languages.every((l) => LANGUAGE.test(l)))
          throw new Refused('TARGET_RULE_INVALID', field, `${field} must hold language tags such as "de" or "pt-BR".`);
        condition.language = [...new Set(languages)];
        break;
      }
      case 'query': {
        const problem = `${field} must be {"name": …, "value": …} (value optional): 1 to ${QUERY_NAME_MAX_LENGTH} and at most ${QUERY_VALUE_MAX_LENGTH} printable ASCII characters, without "#", "&" or "=".`;
        if (!isObject(value) || Object.keys(value).some((k) => k !== 'name' && k !== 'value'))
          throw new Refused('TARGET_RULE_INVALID', field, problem);
        const { name: param, value: wanted } = value;
        if (typeof param !== 'string' || param.length === 0 || param.length > QUERY_NAME_MAX_LENGTH || !QUERY_TEXT.test(param))
          throw new Refused('TARGET_RULE_INVALID', field, problem);
        if (wanted !== undefined && (typeof wanted !== 'string' || wanted.length > QUERY_VALUE_MAX_LENGTH || !QUERY_TEXT.test(wanted)))
          throw new Refused('TARGET_RULE_INVALID', field, problem);
        condition.query = wanted === undefined ? { name: param } : { name: param, value: wanted };
        break;
      }
      case 'from':
      case 'until': {
        const time = typeof value === 'string' ? parseDateTime(value) : undefined;
        if (time === undefined) throw new Refused('TARGET_RULE_INVALID', field, `${field} must be an RFC 3339 date-time with a time zone.`);
        condition[name] = time.toISOString();
        break;
      }
      default:
        throw new Refused(
          'TARGET_RULE_INVALID',
          field,
          `${at} has an unknown condition "${name}" (device, country, language, query, from, until).`,
        );
    }
  }
  if (Object.keys(condition).length === 0)
    throw new Refused('TARGET_RULE_INVALID', at, `${at} must name at least one condition (device, country, language, query, from, until).`);
  if (condition.from !== undefined && condition.until !== undefined && condition.from >= condition.until)
    throw new Refused('TARGET_RULE_INVALID', `${at}.until`, `${at}.until must be after ${at}.from.`);
  if (condition.until !== undefined && Date.parse(condition.until) <= now)
    throw new Refused('TARGET_RULE_INVALID', `${at}.until`, `${at}.until is in the past: the rule would never match.`);
  return condition;
}

// Controls, and line and paragraph separators, as a link's title refuses them (link.ts).
const TEXT_FORBIDDEN = /[\p{Cc}\p{Zl}\p{Zp}]/u;

function checkPreview(raw: unknown, policy: TargetPolicy): LinkPreview {
  const problem = `options.preview must be {"title", "description", "image"} (at least one): a title of at most ${PREVIEW_TITLE_MAX_LENGTH} and a description of at most ${PREVIEW_DESCRIPTION_MAX_LENGTH} characters without control characters, an image's http(s) URL.`;
  if (!isObject(raw)) throw new Refused('PREVIEW_INVALID', 'options.preview', problem);
  const unknown = Object.keys(raw).find((k) => k !== 'title' && k !== 'description' && k !== 'image');
  if (unknown !== undefined) throw new Refused('PREVIEW_INVALID', `options.preview.${unknown}`, problem);
  const preview: { title?: string; description?: string; image?: string } = {};
  for (const [name, max] of [
    ['title', PREVIEW_TITLE_MAX_LENGTH],
    ['description', PREVIEW_DESCRIPTION_MAX_LENGTH],
  ] as const) {
    const value = raw[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new Refused('PREVIEW_INVALID', `options.preview.${name}`, problem);
    const text = value.trim();
    if (text === '') continue;
    if (codePoints(text) > max || TEXT_FORBIDDEN.test(text)) throw new Refused('PREVIEW_INVALID', `options.preview.${name}`, problem);
    preview[name] = text;
  }
  if (raw.image !== undefined && raw.image !== null && raw.image !== '')
    preview.image = checkUrl(raw.image, policy, 'options.preview.image');
  if (Object.keys(preview).length === 0) throw new Refused('PREVIEW_INVALID', 'options.preview', problem);
  return preview;
}

/** A scheme and the rest of an app URL: printable ASCII, no spaces. */
const APP_URL = /^([a-zA-Z][a-zA-Z0-9+.-]*):[\x21-\x7e]+$/;
function checkDeepLinks(raw: unknown, policy: TargetPolicy): DeepLinks {
  const problem =
    'options.deepLink must be {"ios", "android"} (at least one): each an app URL (myapp://path, at most 2048 printable ASCII characters) or an https universal or app link.';
  if (!isObject(raw)) throw new Refused('DEEP_LINK_INVALID', 'options.deepLink', problem);
  const unknown = Object.keys(raw).find((k) => k !== 'ios' && k !== 'android');
  if (unknown !== undefined) throw new Refused('DEEP_LINK_INVALID', `options.deepLink.${unknown}`, problem);
  const links: { ios?: string; android?: string } = {};
  for (const platform of ['ios', 'android'] as const) {
    const value = raw[platform];
    if (value === undefined || value === null || value === '') continue;
    const field = `options.deepLink.${platform}`;
    if (typeof value !== 'string' || value.length > URL_MAX_LENGTH) throw new Refused('DEEP_LINK_INVALID', field, problem);
    const match = APP_URL.exec(value.trim());
    if (match === null) throw new Refused('DEEP_LINK_INVALID', field, problem);
    const scheme = (match[1] as string).toLowerCase();
    if (scheme === 'http' || scheme === 'https') links[platform] = checkUrl(value, policy, field);
    else {
      const refused = appSchemeProblem(scheme);
      if (refused !== undefined) throw new Refused('DEEP_LINK_INVALID', field, `${field} ${refused}`);
      links[platform] = value.trim();
    }
  }
  if (Object.keys(links).length === 0) throw new Refused('DEEP_LINK_INVALID', 'options.deepLink', problem);
  return links;
}

function checkPassword(raw: unknown): string | true {
  if (raw === true) return true;
  if (typeof raw !== 'string' || codePoints(raw) < PASSWORD_MIN_LENGTH || codePoints(raw) > PASSWORD_MAX_LENGTH || /[\p{Cc}]/u.test(raw))
    throw new Refused('PASSWORD_INVALID', 'options.password');
  return raw;
}

function checkSplit(raw: unknown, policy: TargetPolicy): SplitVariant[] {
  if (!Array.isArray(raw)) throw new Refused('SPLIT_INVALID', 'options.split');
  if (raw.length === 0) return [];
  if (raw.length < 2 || raw.length > SPLIT_MAX) throw new Refused('SPLIT_INVALID', 'options.split');
  let sum = 0;
  const variants = raw.map((variant: unknown, i) => {
    const at = `options.split[${i}]`;
    if (!isObject(variant) || Object.keys(variant).some((k) => k !== 'url' && k !== 'weight'))
      throw new Refused('SPLIT_INVALID', at, `${at} must be {"url": …, "weight": …}.`);
    const { weight } = variant;
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 1 || weight > 99)
      throw new Refused('SPLIT_INVALID', `${at}.weight`, `${at}.weight must be a whole number from 1 to 99.`);
    sum += weight;
    return { url: checkUrl(variant.url, policy, `${at}.url`), weight };
  });
  if (sum !== 100) throw new Refused('SPLIT_INVALID', 'options.split', `The weights of options.split sum to ${sum}, not 100.`);
  return variants;
}
