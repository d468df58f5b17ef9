// A budget of 404s per client (an IPv4 address, an IPv6 /64: client-address.ts), so that guessing
// codes is slow and costs us nothing: a bucket of NOT_FOUND_LIMIT_PER_MINUTE 404s that refills
// continuously and only 404s spend, reserved before a lookup and given back if it finds a link, so
// with the bucket empty an uncached code is answered 429 before any lookup. Each instance keeps
// its own buckets, in a bounded LRU. docs/architecture.md#hostile-requests, docs/configuration.md.

import { LRUCache } from 'lru-cache';
import { upTo } from '../cache/bounded.ts';

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
    this.#buckets = new LRUCache({ ...upTo(maxClients) });
  }

  /** Spends one 404 of `client` (`now`: a monotonic clock, in ms); false if it had none left. */
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

  /** Gives back a 404 taken for a lookup that found a link. */
  refund(client: string): void {
    const bucket = this.#buckets.get(client);
    if (bucket !== undefined) bucket.tokens = Math.min(this.#capacity, bucket.tokens + 1);
  }

  #refill(bucket: Bucket, now: number): number {
    bucket.tokens = Math.min(this.#capacity, bucket.tokens + (now - bucket.at) * this.#perMs);
    bucket.at = now;
    return bucket.tokens;
  }
}
