// What the Redis tier stores, and under which names. Pure: no I/O.
//
//   key    <prefix>link:<link key>    the code, or <domain id>:<code> off the default domain
//   value  ""                         no link has this code (a negative entry, short TTL)
//          "<s><version>.<expiresAtMs, or nothing>[.<startsAtMs>][~<list>] <url>[ <options JSON>]", <s> the state:
//          a redirects, d disabled, x deleted (a tombstone: answers 404, keeps older states out),
//          b blocked and f flagged by the blocklist <list> (core/link.ts LinkSafety; a release before
//          them reads either as a miss and asks Postgres, which it reads without them);
//          the options never hold a password's hash, only its tag (withoutKey); a link without a
//          start is written as before starts existed (a release before them reads a start as a miss)
//
// Why the value holds the state and the version, not the answer: docs/architecture.md#what-redis-holds.

import { splitKey, type LinkKey } from '../core/domains.ts';
import type { Link } from '../core/link.ts';
import type { LinkOptions } from '../core/link-options.ts';
import { passTagOf } from '../core/link-passwords.ts';

/** A code Redis knows: its link, or null when Redis knows that no link has it. */
export type Known = Link | null;

export function redisLinkKey(prefix: string, key: string): string {
  return `${prefix}link:${key}`;
}

export function invalidationChannel(prefix: string): string {
  return `${prefix}invalidate`;
}

/**
 * Options as Redis may hold them: a password's scrypt hash replaced by its tag, all the redirect
 * needs (a pass names the tag); the hash itself is read from Postgres alone (links/password-routes.ts).
 */
export function withoutKey(options: LinkOptions): LinkOptions {
  if (options.passwordHash === undefined) return options;
  const { passwordHash, ...rest } = options;
  return { ...rest, passTag: passTagOf(passwordHash) };
}

export function encodeKnown(link: Known): string {
  if (link === null) return '';
  const expires = link.expiresAt === null ? '' : link.expiresAt.getTime();
  const starts = link.startsAt === null ? '' : `.${link.startsAt.getTime()}`;
  const state = link.deleted ? 'x' : link.disabled ? 'd' : link.safety === 'blocked' ? 'b' : link.safety === 'flagged' ? 'f' : 'a';
  const list = link.safety === null || link.deleted || link.disabled ? '' : `~${link.safetyList ?? ''}`;
  const value = `${state}${link.version}.${expires}${starts}${list} ${link.url}`;
  return link.options === null ? value : `${value} ${JSON.stringify(withoutKey(link.options))}`;
}

/** The URL is visible ASCII (RFC 3986 characters, a stored link's as written to Location): anything else is no entry of ours. */
const LINK_VALUE = /^([adxbf])(\d{1,10})\.(\d{0,16})(?:\.(\d{1,16}))?(?:~([a-z0-9_-]{0,64}))? ([\x21-\x7e]+)(?: (\{.*))?$/s;

/** The stored entry, or undefined when there is none or it is not in a format this version reads. */
export function decodeKnown(key: LinkKey, value: string | null): Known | undefined {
  if (value === null) return undefined;
  if (value === '') return null;
  const match = LINK_VALUE.exec(value);
  if (match === null) return undefined;
  const [, flag, version = '', expires = '', starts, list, url = '', options] = match;
  const { domainId, code } = splitKey(key);
  let parsed: LinkOptions | null = null;
  if (options !== undefined) {
    try {
      parsed = withoutKey(JSON.parse(options) as LinkOptions);
    } catch {
      return undefined;
    }
  }
  return {
    domainId,
    code,
    url,
    expiresAt: expires === '' ? null : new Date(Number(expires)),
    startsAt: starts === undefined ? null : new Date(Number(starts)),
    disabled: flag === 'd',
    safety: flag === 'b' ? 'blocked' : flag === 'f' ? 'flagged' : null,
    safetyList: flag === 'b' || flag === 'f' ? (list ?? '') : null,
    deleted: flag === 'x',
    version: Number(version),
    options: parsed,
  };
}

/**
 * Writes a link's value unless Redis holds the same or a newer version of it (a negative entry is
 * older than any link). KEYS[1] the key; ARGV: the value, its version, the TTL in milliseconds.
 * Concurrent instances may write two states of a link in any order; Redis ends with the newer.
 */
export const SET_NEWER = `
local current = redis.call('GET', KEYS[1])
if current and current ~= '' then
  -- Any one-letter state (a, d, x, and states of later versions): the version decides, never the state.
  local version = tonumber(string.match(current, '^%a(%d+)%.'))
  if version and version >= tonumber(ARGV[2]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1
`;

/**
 * An invalidation message: the sending instance, how many invalidations it has sent so far (this
 * one included), then the keys of the links whose redirect may have changed (core/domains.ts). No
 * keys is a heartbeat, which repeats the count: a receiver that sees the count jump knows it missed
 * an invalidation. Keys never contain spaces.
 */
export function encodeInvalidation(instance: string, seq: number, codes: readonly string[]): string {
  return codes.length === 0 ? `${instance} ${seq}` : `${instance} ${seq} ${codes.join(' ')}`;
}

/** The message's parts; a sequence number of NaN when it is not in this version's format. */
export function decodeInvalidation(message: string): { instance: string; seq: number; codes: string[] } {
  const [instance = '', seq = '', ...codes] = message.split(' ');
  return { instance, seq: /^\d{1,15}$/.test(seq) ? Number(seq) : Number.NaN, codes };
}

/** The messages one instance sends: each invalidation numbered, from 1; heartbeats repeat the last number. */
export class Outbox {
  readonly instance: string;
  #sent = 0;

  constructor(instance: string) {
    this.instance = instance;
  }

  message(codes: readonly string[]): string {
    if (codes.length > 0) this.#sent++;
    return encodeInvalidation(this.instance, this.#sent, codes);
  }
}

/**
 * What one instance has heard of another's invalidations. Messages may arrive out of order (a
 * heartbeat may overtake the invalidation it counts; on a cluster, publishes go through different
 * nodes), so an invalidation that was announced but has not arrived counts as missed only once it
 * is overdue. Before the first message heard, nothing is known to be missing.
 */
export class Ledger {
  /** Every invalidation up to this number has arrived. */
  #received: number;
  /** Numbers that arrived above #received. */
  readonly #early = new Set<number>();
  /** The highest number any message of the sender has named. */
  #announced: number;
  /** Since when #announced has been above #received. */
  #missingSince: number | undefined = undefined;
  lastHeard: number;

  constructor(seq: number, now: number) {
    this.#received = seq;
    this.#announced = seq;
    this.lastHeard = now;
  }

  hear(seq: number, isInvalidation: boolean, now: number): void {
    this.lastHeard = now;
    if (isInvalidation && seq > this.#received) {
      this.#early.add(seq);
      while (this.#early.delete(this.#received + 1)) this.#received++;
    }
    if (seq > this.#announced) this.#announced = seq;
    if (this.#announced <= this.#received) this.#missingSince = undefined;
    else this.#missingSince ??= now;
  }

  /** Whether an invalidation has been missing for `graceMs`; if so, it is given up on. */
  overdue(now: number, graceMs: number): boolean {
    if (this.#missingSince === undefined || now - this.#missingSince < graceMs) return false;
    this.#received = this.#announced;
    this.#early.clear();
    this.#missingSince = undefined;
    return true;
  }
}
