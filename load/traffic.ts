// Traffic for the load suite, all computed before a run starts: autocannon then only walks a list
// of prebuilt request buffers, so the load generator spends nothing per request on choosing one.

import type { Request } from 'autocannon';
import { BASE62_ALPHABET } from '../src/core/base62.ts';

/** A small seeded PRNG (mulberry32): the same seed gives the same traffic on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Ranks 0..n-1 drawn with P(rank k) ∝ 1 / (k + 1)^s: a few links get most clicks, a long tail
 * gets a few each, as campaign traffic does. Inverse CDF by binary search over a precomputed table.
 */
export function zipfSampler(n: number, s: number, random: () => number): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** s;
    cdf[k] = sum;
  }
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] as number) < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** `count` distinct codes of `length` base62 characters, none of them in `existing`. */
export function randomCodes(count: number, length: number, random: () => number, existing: ReadonlySet<string>): string[] {
  const seen = new Set<string>();
  while (seen.size < count) {
    let code = '';
    for (let i = 0; i < length; i++) code += BASE62_ALPHABET[Math.floor(random() * 62)];
    if (!existing.has(code)) seen.add(code);
  }
  return [...seen];
}

/** `count` GET paths of codes drawn by Zipf rank (rank 0 is the hottest). */
export function zipfPaths(codes: readonly string[], count: number, s: number, seed: number): string[] {
  const rank = zipfSampler(codes.length, s, seededRandom(seed));
  return Array.from({ length: count }, () => `/${codes[rank()] as string}`);
}

export const get = (path: string): Request => ({ method: 'GET', path });

/** GETs for the short domain `host`. Spelt "Host": wrk adds the URL's own unless its headers have one spelt so. */
export const getOn =
  (host: string) =>
  (path: string): Request => ({ method: 'GET', path, headers: { Host: host } });

/** A GET of each code. */
export function codePaths(codes: readonly string[]): Request[] {
  return codes.map((code) => get(`/${code}`));
}

/** The same requests in every round. */
export const fixed = (requests: readonly Request[]) => (): readonly Request[] => requests;

export function post(path: string, body: unknown): Request {
  return { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/**
 * A unique target URL of exactly 80 characters for i below 10^8, like a tracked campaign link.
 * (Its id had 4 digits of room until this head was shortened, so from i = 10,000 on it was 81 and
 * 82 characters: 81.9 on average over the memory probe's million links.)
 */
export function targetUrl(i: number): string {
  const head = `https://shop.example.com/campaign/spring-sale/landing?utm_source=sms&id=`;
  return head + String(i).padStart(80 - head.length, '0');
}

/**
 * Splits `requests` into one list per connection, so that each connection walks its own slice
 * (autocannon would otherwise build every request buffer once per connection, and every
 * connection would send the same sequence at the same time).
 */
export function perConnection(requests: readonly Request[], connections: number): Request[][] {
  const slices: Request[][] = Array.from({ length: connections }, () => []);
  requests.forEach((request, i) => slices[i % connections]?.push(request));
  return slices.filter((slice) => slice.length > 0);
}

/**
 * The options of the links with rules (the rules scenario, load/instructions.ts --ruled): each rule reads
 * one fact of the request, and the split the visitor's hash.
 */
export const RULED_OPTIONS = {
  targets: [
    { when: { device: ['ios'] }, url: 'https://apps.apple.com/app/id1234567890' },
    { when: { device: ['android'] }, url: 'https://play.google.com/store/apps/details?id=com.example.app' },
    { when: { country: ['DE', 'AT', 'CH'], language: ['de'] }, url: 'https://example.com/de/landing' },
  ],
  split: [
    { url: 'https://example.com/landing?variant=a', weight: 50 },
    { url: 'https://example.com/landing?variant=b', weight: 50 },
  ],
};
