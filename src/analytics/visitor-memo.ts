// The visitors of a day: each distinct (peer, X-Forwarded-For) pair read into an address once (by
// TRUST_PROXY's rule), placed once (geo.ts) and hashed under the day's seeds once, kept as numbers.
// No address is kept: only its place and its hashes.

import { hash32 } from '../core/hll.ts';
import type { AddressOf } from '../edge/client-address.ts';
import type { Geo, Place } from './geo.ts';
import type { Seeds } from './salts.ts';
import { NOWHERE } from './value-tables.ts';

// What analytics keeps of a client address, for a day, VISITOR_STRIDE numbers a visitor in one
// Int32Array (10,000 visitors in 160 KB, not objects spread over the heap: one cache line read
// per click instead of a Map value's object): its place's id in the tables of generation
// V_TABLES (0: none yet), and its hashes under the day's seeds. Its place is kept beside.
export const V_PLACE = 0;
export const V_TABLES = 1;
export const V_A = 2;
export const V_B = 3;
export const VISITOR_STRIDE = 4;

/** Distinct (peer, X-Forwarded-For) pairs remembered (a Map entry and its key each, and 16 bytes of numbers); past it the memo starts over. */
const VISITORS_MAX = 131_072;
export class VisitorMemo {
  readonly #addressOf: AddressOf;
  readonly #geo: Geo | null;
  /** Peer -> X-Forwarded-For -> the visitor's index, under `seeds`. */
  #byPeer = new Map<string | undefined, Map<string | undefined, number>>();
  #count = 0;
  /** The seeds the visitors are hashed under; a new day's start the memo over. */
  seeds: Seeds | null = null;
  /** Per visitor index: VISITOR_STRIDE numbers (V_PLACE ...), and its place. */
  readonly data = new Int32Array(VISITORS_MAX * VISITOR_STRIDE);
  readonly places: Place[] = [];

  constructor(addressOf: AddressOf, geo: Geo | null) {
    this.#addressOf = addressOf;
    this.#geo = geo;
  }

  /** The index of the visitor of a peer and X-Forwarded-For: its address read, placed and hashed once a day. */
  index(peer: string | undefined, forwardedFor: string | undefined, seeds: Seeds): number {
    if (this.#count >= VISITORS_MAX) this.forget(seeds);
    let byForwarded = this.#byPeer.get(peer);
    if (byForwarded === undefined) {
      byForwarded = new Map();
      this.#byPeer.set(peer, byForwarded);
    }
    let visitor = byForwarded.get(forwardedFor);
    if (visitor === undefined) {
      const address = this.#addressOf(peer, forwardedFor);
      visitor = this.#count++;
      this.places[visitor] = this.#geo === null ? NOWHERE : this.#geo.place(address);
      const v = visitor * VISITOR_STRIDE;
      this.data[v + V_TABLES] = 0;
      this.data[v + V_A] = hash32(address, seeds.a);
      this.data[v + V_B] = hash32(address, seeds.b);
      byForwarded.set(forwardedFor, visitor);
    }
    return visitor;
  }

  /** Starts over under `seeds`. */
  forget(seeds: Seeds): void {
    this.#byPeer = new Map();
    this.#count = 0;
    this.seeds = seeds;
  }
}
