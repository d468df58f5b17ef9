// A budget of attempts per key (a client and what it tries), in fixed windows, shared by every
// instance through Redis when the tier is on (counters.ts). An attempt is reserved before it is
// judged, atomically, so a burst of concurrent attempts gets no more judgements than the budget;
// an attempt that succeeds is given back: only failures use the budget up.

import type { Counter } from './counters.ts';

export type Reservation = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

export class AttemptBudget {
  readonly #counter: Counter;
  readonly #max: number;
  readonly #windowMs: number;

  /** `max` attempts a key per `windowMs`. */
  constructor(counter: Counter, max: number, windowMs: number) {
    this.#counter = counter;
    this.#max = max;
    this.#windowMs = windowMs;
  }

  /** Reserves one attempt of `key`, or says how long until one is left. */
  async take(key: string): Promise<Reservation> {
    const { current, ttl } = await this.#counter.add(key, 1, this.#max, this.#windowMs);
    return current <= this.#max ? { ok: true } : { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(ttl / 1000)) };
  }

  /** Gives back an attempt that take() reserved (it succeeded, or was never judged). */
  async giveBack(key: string): Promise<void> {
    await this.#counter.refund(key, 1);
  }
}
