// A function's results remembered per string: for what the same few strings ask again and again
// (User-Agents, Referers, Accept-Languages, networks). Bounded without per-hit LRU bookkeeping:
// past `max` keys the memo starts over, and the common keys are back after one computation each.
// Keys longer than `maxKeyLength` are computed each time rather than kept, so that made-up ones
// cannot fill it with megabytes.

export class Memo<V> {
  readonly #compute: (key: string) => V;
  readonly #max: number;
  readonly #maxKeyLength: number;
  #values = new Map<string, V>();

  constructor(compute: (key: string) => V, max: number, maxKeyLength = 512) {
    this.#compute = compute;
    this.#max = max;
    this.#maxKeyLength = maxKeyLength;
  }

  get(key: string): V {
    let value = this.#values.get(key);
    if (value === undefined) {
      value = this.#compute(key);
      this.set(key, value);
    }
    return value;
  }

  /** The value of `key` if it is kept. */
  peek(key: string): V | undefined {
    return this.#values.get(key);
  }

  set(key: string, value: V): void {
    if (key.length > this.#maxKeyLength) return;
    if (this.#values.size >= this.#max) this.#values.clear();
    this.#values.set(key, value);
  }
}
