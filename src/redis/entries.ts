// What the Redis tier stores, and under which names. Pure: no I/O.
//
//   key   <prefix>link:<code>
//   value ""                                   no link has this code (a negative entry, short TTL)
//         "a<expiresAtMs> <url>"               a link that redirects until it expires
//         "a <url>"                            …that never expires
//         "d<expiresAtMs> <url>", "d <url>"    a disabled link
//
// The value holds what decides the answer (target, expiry, disabled) and not the answer itself,
// so that a link that expires while it sits in Redis answers 410 from then on. URLs are stored
// after normalisation (printable ASCII, no spaces), so the first space ends the header.

import type { ShortCode } from '../core/codes.ts';
import type { Link } from '../core/link.ts';

/** A code Redis knows: its link, or null when Redis knows that no link has it. */
export type Known = Link | null;

export function linkKey(prefix: string, code: string): string {
  return `${prefix}link:${code}`;
}

export function invalidationChannel(prefix: string): string {
  return `${prefix}invalidate`;
}

export function encodeKnown(link: Known): string {
  if (link === null) return '';
  return `${link.disabled ? 'd' : 'a'}${link.expiresAt === null ? '' : link.expiresAt.getTime()} ${link.url}`;
}

/** The stored entry, or undefined when there is none or it is not in a format this version reads. */
export function decodeKnown(code: ShortCode, value: string | null): Known | undefined {
  if (value === null) return undefined;
  if (value === '') return null;
  const flag = value[0];
  const space = value.indexOf(' ', 1);
  if ((flag !== 'a' && flag !== 'd') || space === -1 || space === value.length - 1) return undefined;
  let expiresAt: Date | null = null;
  if (space > 1) {
    const ms = Number(value.slice(1, space));
    if (!Number.isSafeInteger(ms)) return undefined;
    expiresAt = new Date(ms);
  }
  return { code, url: value.slice(space + 1), expiresAt, disabled: flag === 'd' };
}

/**
 * An invalidation message: the sending instance, its message number (consecutive, so that a
 * receiver can tell it missed one), then the codes whose redirect may have changed. No codes is a
 * heartbeat. Codes never contain spaces (core/codes.ts).
 */
export function encodeInvalidation(instance: string, seq: number, codes: readonly string[]): string {
  return codes.length === 0 ? `${instance} ${seq}` : `${instance} ${seq} ${codes.join(' ')}`;
}

/** The message's parts; a sequence number of NaN when it is not in this version's format. */
export function decodeInvalidation(message: string): { instance: string; seq: number; codes: string[] } {
  const [instance = '', seq = '', ...codes] = message.split(' ');
  return { instance, seq: /^\d{1,15}$/.test(seq) ? Number(seq) : Number.NaN, codes };
}

/** The messages one instance sends, numbered from 0. */
export class Outbox {
  readonly instance: string;
  #next = 0;

  constructor(instance: string) {
    this.instance = instance;
  }

  message(codes: readonly string[]): string {
    return encodeInvalidation(this.instance, this.#next++, codes);
  }
}
