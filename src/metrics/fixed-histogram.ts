// A histogram for the hot path: fixed buckets in a typed array, one comparison loop per
// observation, no labels, no objects. prom-client's Histogram hashes its labels and walks an
// object per observe(); this one is read only when /metrics is scraped (metrics/metrics.ts).

export class FixedHistogram {
  /** Upper bounds, ascending; an observation above the last one lands in +Inf. */
  readonly bounds: Float64Array;
  /** Observations per bucket, not cumulative; the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.bounds = Float64Array.from(bounds);
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }

  /** [upper bound, observations at or below it] per bucket, +Inf last: what Prometheus reads. */
  cumulative(): [le: number, count: number][] {
    const out: [number, number][] = [];
    let running = 0;
    for (let i = 0; i < this.counts.length; i++) {
      running += this.counts[i] as number;
      out.push([i < this.bounds.length ? (this.bounds[i] as number) : Infinity, running]);
    }
    return out;
  }
}
