// Links and the rules for creating one. Pure: no I/O.

import type { ErrorCode } from '../errors.ts';
import { aliasProblem, type ShortCode } from './codes.ts';
import { DEFAULT_DOMAIN_ID } from './domains.ts';
import { checkLinkOptions, type LinkOptions, type LinkOptionsInput } from './link-options.ts';
import type { TargetPolicy } from './target-policy.ts';
import { codePoints, parseDateTime } from './field-values.ts';
import { checkTargetUrl } from './url-rules.ts';

export interface Link {
  /** The short domain it is on (core/domains.ts); its code is unique there. */
  readonly domainId: number;
  readonly code: ShortCode;
  readonly url: string;
  readonly expiresAt: Date | null;
  /** Before this time the link answers LINK_NOT_YET_ACTIVE instead of its redirect; null: at once. */
  readonly startsAt: Date | null;
  readonly disabled: boolean;
  /** What a blocklist made of it once its target was listed (links/safety.ts); null: nothing. */
  readonly safety: LinkSafety | null;
  /** The list that named its target, when `safety` is set. */
  readonly safetyList: string | null;
  /** Deleted links keep their row (their code is never handed out again) and answer 404. */
  readonly deleted: boolean;
  /** 0 when created, one more at each change: of two states of a link, the newer has the higher. */
  readonly version: number;
  /** Options beyond its URL (link-options.ts); null: a plain link. */
  readonly options: LinkOptions | null;
}

/**
 * What is done to a link whose target a blocklist names (BLOCKLIST_ACTION): `blocked`, its redirect
 * answers 451 LINK_BLOCKED (a page saying why, for a browser); `flagged`, a browser is shown a warning
 * page naming the target and the list, with a link on, before it goes.
 */
export const LINK_SAFETIES = ['blocked', 'flagged'] as const;
export type LinkSafety = (typeof LINK_SAFETIES)[number];

/** The workspace of links created without a key, and of every key and link from before workspaces. */
export const DEFAULT_WORKSPACE_ID = 1;

/** The body of POST /links once its JSON shape has been checked. */
export interface CreateLinkBody {
  url: string;
  alias?: string | undefined;
  expiresAt?: string | null | undefined;
  startsAt?: string | null | undefined;
  title?: string | null | undefined;
  tags?: string[] | undefined;
  /** The host of the short domain; absent: the default domain. */
  domain?: string | undefined;
  options?: LinkOptionsInput | null | undefined;
}

export interface LinkRequest {
  readonly domainId: number;
  readonly url: string;
  readonly alias: ShortCode | undefined;
  readonly expiresAt: Date | null;
  readonly startsAt: Date | null;
  /** For people: shown in lists and searched; null without one. */
  readonly title: string | null;
  readonly tags: readonly string[];
  readonly options: LinkOptions | null;
}

export const TITLE_MAX_LENGTH = 200;
export const TAGS_MAX = 10;
export const TAG_MAX_LENGTH = 40;
// Controls, and line and paragraph separators. Commas and "|" separate tags in CSV files.
const TITLE_FORBIDDEN = /[\p{Cc}\p{Zl}\p{Zp}]/u;
const TAG_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp},|]/u;

/** `password`: a new one for the caller to hash into the options (link-options.ts OptionsVerdict). */
export type LinkRequestVerdict =
  { ok: true; request: LinkRequest; password?: string | true } | { ok: false; code: ErrorCode; field?: string; message?: string };

/** Links may expire at most this far ahead; later means "never", which is null. */
const MAX_EXPIRY_MS = 100 * 365 * 24 * 3600 * 1000;

/** `domainId`: the domain `body.domain` names, which the caller looked up. */
export function checkLinkRequest(
  body: CreateLinkBody,
  policy: TargetPolicy,
  now: number,
  domainId = DEFAULT_DOMAIN_ID,
): LinkRequestVerdict {
  const target = checkTargetUrl(body.url, policy);
  if (!target.ok) return target;
  let alias: ShortCode | undefined;
  if (body.alias !== undefined) {
    const problem = aliasProblem(body.alias);
    if (problem !== undefined) return { ok: false, code: problem };
    alias = body.alias as ShortCode;
  }
  let expiresAt: Date | null = null;
  if (body.expiresAt !== undefined && body.expiresAt !== null) {
    const at = checkExpiresAt(body.expiresAt, now);
    if (!(at instanceof Date)) return { ok: false, code: at };
    expiresAt = at;
  }
  let startsAt: Date | null = null;
  if (body.startsAt !== undefined && body.startsAt !== null) {
    const at = checkStartsAt(body.startsAt, now);
    if (!(at instanceof Date)) return { ok: false, code: at, field: 'startsAt' };
    startsAt = at;
  }
  const order = scheduleProblem(startsAt, expiresAt);
  if (order !== undefined) return { ok: false, code: order, field: 'startsAt' };
  const title = checkTitle(body.title ?? null);
  if (!title.ok) return title;
  const tags = checkTags(body.tags ?? []);
  if (!tags.ok) return tags;
  const options = checkLinkOptions(body.options, policy, now);
  if (!options.ok) return options;
  const request: LinkRequest = {
    domainId,
    url: target.url,
    alias,
    expiresAt,
    startsAt,
    title: title.value,
    tags: tags.value,
    options: options.options,
  };
  return options.password === undefined ? { ok: true, request } : { ok: true, request, password: options.password };
}

/** A title as stored: trimmed, null when empty. */
export function checkTitle(title: string | null): { ok: true; value: string | null } | { ok: false; code: 'TITLE_INVALID' } {
  const trimmed = title?.trim() ?? '';
  if (trimmed.length === 0) return { ok: true, value: null };
  if (codePoints(trimmed) > TITLE_MAX_LENGTH || TITLE_FORBIDDEN.test(trimmed)) return { ok: false, code: 'TITLE_INVALID' };
  return { ok: true, value: trimmed };
}

/** Tags as stored: trimmed, the first spelling of each kept (compared without case). */
export function checkTags(tags: readonly string[]): { ok: true; value: string[] } | { ok: false; code: 'TAGS_INVALID' } {
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const raw of tags) {
    const tag = raw.trim();
    if (tag.length === 0 || codePoints(tag) > TAG_MAX_LENGTH || TAG_FORBIDDEN.test(tag)) return { ok: false, code: 'TAGS_INVALID' };
    const folded = tag.toLowerCase();
    if (seen.has(folded)) continue;
    seen.add(folded);
    kept.push(tag);
  }
  return kept.length > TAGS_MAX ? { ok: false, code: 'TAGS_INVALID' } : { ok: true, value: kept };
}

/**
 * What a link's `state` says, in the API and the list's filter, by precedence: disabled, then
 * blocked (a blocklist named its target), then expired, then limit_reached (its click limit used
 * up), then scheduled (its start still ahead), then flagged (a blocklist named its target: a
 * warning page first), else active. The first five are what its redirect answers instead of redirecting.
 */
export const LINK_STATES = ['active', 'flagged', 'scheduled', 'limit_reached', 'expired', 'blocked', 'disabled'] as const;
export type LinkState = (typeof LINK_STATES)[number];

/** `clicksUsed`: the redirects counted against its click limit (null: none counted, or it has no limit). */
export function linkState(
  link: Pick<Link, 'disabled' | 'safety' | 'expiresAt' | 'startsAt' | 'options'>,
  now: number,
  clicksUsed: number | null = null,
): LinkState {
  if (link.disabled) return 'disabled';
  if (link.safety === 'blocked') return 'blocked';
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now) return 'expired';
  const limit = link.options?.clickLimit;
  if (limit !== undefined && clicksUsed !== null && clicksUsed >= limit) return 'limit_reached';
  if (link.startsAt !== null && link.startsAt.getTime() > now) return 'scheduled';
  return link.safety === 'flagged' ? 'flagged' : 'active';
}

/** An expiry as given to a create or a change: a date, or why it is refused. */
export function checkExpiresAt(text: string, now: number): Date | 'EXPIRES_AT_INVALID' | 'EXPIRES_AT_IN_PAST' {
  const at = parseDateTime(text);
  if (at === undefined || at.getTime() - now > MAX_EXPIRY_MS) return 'EXPIRES_AT_INVALID';
  if (at.getTime() <= now) return 'EXPIRES_AT_IN_PAST';
  return at;
}

/**
 * A start as given to a create or a change: a date, or why it is refused. One in the past is taken
 * (the link is live at once), as an import of links that have started gives it.
 */
export function checkStartsAt(text: string, now: number): Date | 'STARTS_AT_INVALID' {
  const at = parseDateTime(text);
  return at === undefined || at.getTime() - now > MAX_EXPIRY_MS ? 'STARTS_AT_INVALID' : at;
}

/** A link must start before it expires: a start at or after its expiry would never redirect. */
export function scheduleProblem(startsAt: Date | null, expiresAt: Date | null): 'STARTS_AT_NOT_BEFORE_EXPIRY' | undefined {
  return startsAt !== null && expiresAt !== null && startsAt.getTime() >= expiresAt.getTime() ? 'STARTS_AT_NOT_BEFORE_EXPIRY' : undefined;
}

/** A link by what names it in the API: its domain and its code there. */
export interface LinkRef {
  readonly domainId: number;
  readonly code: ShortCode;
}

/** An Idempotency-Key of a create: the key, scoped to the API key that sent it (0: none). */
export interface IdempotencyKey {
  readonly scope: number;
  readonly key: string;
  /** SHA-256 of the request it came with. */
  readonly requestHash: Buffer;
}
