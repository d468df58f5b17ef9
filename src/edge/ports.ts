// What the edge tells the features above it and asks of them, as narrow interfaces: analytics
// counts and records clicks, links grant the redirects of links with a click limit, analytics
// places an address in a country. Each feature plugs its part in (plugin.ts RedirectPorts); the
// edge imports none of them, and a port nobody plugs costs nothing.

import type { LinkKey } from '../core/domains.ts';

/**
 * Where a link's slot in the analytics log is kept between its clicks: on the click counter's
 * record of the link, found by the lookup that counts the click, so that a click costs one Map
 * lookup for both (analytics/visits.ts).
 */
export interface SlotHolder {
  slot: number;
  slots: object | null;
}

/** Counts the clicks of links, per key; called once per click, so it must cost next to nothing. */
export interface ClickCounts {
  /** One click of the link `key` from `userAgent`; the link's holder, or undefined if the click was not counted. */
  count(key: string, userAgent: string | undefined): SlotHolder | undefined;
}

/** What the redirect tells click analytics; each call must cost next to nothing. */
export interface VisitRecorder {
  /** A 302 of the link `key` (core/domains.ts), with the link's SlotHolder (if it has one) and the request's fields as they came. */
  record(
    key: string,
    holder: SlotHolder | undefined,
    userAgent: string | undefined,
    referer: string | undefined,
    language: string | undefined,
    peer: string | undefined,
    forwardedFor: string | undefined,
    qr: boolean,
    /** What chose the target of a link with rules (core/redirect-rules.ts TARGET_URL ...); 0: a plain link. */
    target: number,
  ): void;
  /** A request for `path` on domain `domainId` that named no link. */
  orphan(domainId: number, path: string): void;
}

/** Grants the redirects of links with a click limit, across every instance (links/click-limits.ts). */
export interface ClickGrants {
  /** Whether one more redirect of `key` stays within `limit`; rejects when the count cannot be asked for. */
  take(key: LinkKey, limit: number): Promise<boolean>;
}

/** ISO 3166-1 alpha-2 of an address, or 'unknown' (analytics/geo.ts). */
export type CountryOf = (address: string) => string;
