// A budget of 404s per client, so that guessing codes is slow and costs us nothing. Each client
// (an IPv4 address, an IPv6 /64: see client-address.ts) has a bucket of NOT_FOUND_LIMIT_PER_MINUTE
// 404s that refills continuously. Only 404s spend it: a campaign's million clicks from one
// carrier-grade NAT cost nothing, a scanner behind it is slowed. With the bucket empty, a code
// that is not in the LRU is answered 429 at once, before any lookup; a cached link still redirects.
//
// The buckets live in a bounded LRU (NOT_FOUND_LIMIT_CLIENTS): a client forgotten for lack of room
// starts again with a full bucket, which an attacker with that many addresses has anyway.

import { LRUCache } from 'lru-cache';

interface Bucket {
  tokens: number;
  at: number;
}

export class NotFoundLimit {
  readonly #buckets: LRUCache<string, Bucket>;
  readonly #capacity: number;
  readonly #perMs: number;
  /** Seconds until an empty bucket holds one 404 again: the 429's Retry-After. */
  readonly retryAfterSeconds: number;

  constructor(perMinute: number, maxClients: number) {
    this.#capacity = perMinute;
    this.#perMs = perMinute / 60_000;
    this.retryAfterSeconds = Math.max(1, Math.ceil(60 / perMinute));
    this.#buckets = new LRUCache({ max: maxClients });
  }

  /** Whether `client` has no 404 left: its misses are answered 429 without a lookup. */
  exhausted(client: string, now: number): boolean {
    const bucket = this.#buckets.get(client);
    return bucket !== undefined && this.#refill(bucket, now) < 1;
  }

  /** Spends one 404 of `client`; false if it had none left. */
  take(client: string, now: number): boolean {
    const bucket = this.#buckets.get(client);
    if (bucket === undefined) {
      this.#buckets.set(client, { tokens: this.#capacity - 1, at: now });
      return true;
    }
    if (this.#refill(bucket, now) < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  #refill(bucket: Bucket, now: number): number {
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.at) * this.#perMs);
    bucket.at = now;
    return bucket.tokens;
  }
}
