// lru-cache options that bound a cache by its count of entries without `max`. Given `max`,
// lru-cache allocates and fills its index arrays for all of it when the cache is made: the link
// LRU's million took 170 ms and 52 MB of every start (link-cache.ts, which has a size bound in
// bytes already, counts its entries itself), and the smaller caches (100,000 unknown codes, 100,000
// clients' 404 budgets and create windows, the credentials) took another 110 ms of a first start on
// one core (docs/performance.md#start-up). Counted as a size instead, they grow with what they hold
// and evict the least recently used entry at the bound, as `max` would.

/** Every entry weighs one. */
const ONE = (): number => 1;

/** At most `entries` entries, the least recently used leaving first. */
export function upTo(entries: number): { readonly maxSize: number; readonly sizeCalculation: () => number } {
  return { maxSize: entries, sizeCalculation: ONE };
}
