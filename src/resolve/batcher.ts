// Collects the keys asked for in one turn of the event loop and fetches them in one call.
// Shaped like ioredis lib/autoPipelining.ts: one pending batch, taken out before it runs,
// flushed by setImmediate(fn, arg) without a closure. A key asked for twice before the flush is
// fetched once. Keys already being fetched are not shared here: the resolver shares whole
// lookups, and must be able to start a fresh one when a code changes mid-fetch.

export type BatchFetch<K, V> = (keys: K[]) => Promise<Map<K, V>>;

export class KeyBatcher<K, V> {
  readonly #fetch: BatchFetch<K, V>;
  readonly #maxBatch: number;
  /** Told of each batch sent, with its size (metrics). */
  readonly #sent: ((size: number) => void) | undefined;
  /** Keys waiting for the next flush, with the settle functions of their shared promise. */
  #pending: Map<K, PromiseWithResolvers<V | undefined>> | null = null;

  constructor(fetch: BatchFetch<K, V>, maxBatch: number, sent?: (size: number) => void) {
    this.#fetch = fetch;
    this.#maxBatch = maxBatch;
    this.#sent = sent;
  }

  /** The value of `key`, or undefined if the fetch did not return it. */
  load(key: K): Promise<V | undefined> {
    let batch = this.#pending;
    if (batch === null) {
      batch = this.#pending = new Map();
      setImmediate(flushBatcher, this);
    }
    const pending = batch.get(key);
    if (pending !== undefined) return pending.promise;
    const settle = Promise.withResolvers<V | undefined>();
    batch.set(key, settle);
    if (batch.size >= this.#maxBatch) this.flush();
    return settle.promise;
  }

  /** Sends the pending batch now. Never throws: whatever goes wrong rejects the batch's promises. */
  flush(): void {
    const batch = this.#pending;
    if (batch === null) return;
    this.#pending = null;
    let fetched: Promise<Map<K, V>>;
    try {
      this.#sent?.(batch.size);
      fetched = this.#fetch([...batch.keys()]);
    } catch (err) {
      rejectAll(batch, err);
      return;
    }
    fetched.then(
      (values) => resolveAll(batch, values),
      (err: unknown) => rejectAll(batch, err),
    );
  }
}

/** Settles every key of `batch` with its value; a `values` that is no Map rejects them instead. */
function resolveAll<K, V>(batch: Map<K, PromiseWithResolvers<V | undefined>>, values: Map<K, V>): void {
  if (!(values instanceof Map)) return rejectAll(batch, new TypeError('a batch fetch resolved with something other than a Map'));
  for (const [key, settle] of batch) settle.resolve(values.get(key));
}

function rejectAll<K, V>(batch: Map<K, PromiseWithResolvers<V | undefined>>, err: unknown): void {
  for (const settle of batch.values()) settle.reject(err);
}

function flushBatcher<K, V>(batcher: KeyBatcher<K, V>): void {
  batcher.flush();
}
