// Enriched clicks added up in memory between two flushes: per UTC day and link, per dimension and
// value, clicks by people, by bots, and the people's visitor sketch; and visits to paths that
// named no link, per day, domain and path. Bounded on every side: at most `maxLinks` (day, link)
// pairs (clicks past it are dropped and counted), and at most `valuesMax` values per link, day and
// dimension, or paths per domain and day (the rest is counted under OTHER). Taken out whole by
// the click flusher, and put back if Postgres could not take it.

import { OTHER } from '../core/dimensions.ts';
import { Sketch } from '../core/hll.ts';

export interface Cell {
  clicks: number;
  bots: number;
  /** The people's sketch; null until one is counted. */
  visitors: Sketch | null;
}

/** One link's day: index 0 is the link's own cell (value ''), index d the values of dimension d. */
export type LinkDay = Map<string, Cell>[];

export interface RollupBounds {
  /** Most (day, link) pairs held. */
  readonly maxLinks: number;
  /** Most values per link, day and dimension, and paths per domain and day. */
  readonly valuesMax: number;
}

export class Rollups {
  readonly bounds: RollupBounds;
  /** Day -> link key -> its cells. */
  readonly links = new Map<string, Map<string, LinkDay>>();
  /** Day -> domain id -> path -> visits. */
  readonly orphans = new Map<string, Map<number, Map<string, number>>>();
  #pairs = 0;

  constructor(bounds: RollupBounds) {
    this.bounds = bounds;
  }

  get empty(): boolean {
    return this.#pairs === 0 && this.orphans.size === 0;
  }

  /** The cells of `key` on `day`, made if room is left; undefined when it is not. */
  linkDay(day: string, key: string): LinkDay | undefined {
    let byKey = this.links.get(day);
    if (byKey === undefined) {
      byKey = new Map();
      this.links.set(day, byKey);
    }
    let cells = byKey.get(key);
    if (cells === undefined) {
      if (this.#pairs >= this.bounds.maxLinks) return undefined;
      cells = [new Map()];
      byKey.set(key, cells);
      this.#pairs++;
    }
    return cells;
  }

  /**
   * Clicks on a link's day that share every value: `from` holds their counts and their people's
   * sketch; `values[d]` is their value of dimension d (undefined: not kept).
   */
  add(cells: LinkDay, from: Cell, values: readonly (string | undefined)[]): void {
    mergeCell(cells, 0, '', from, Number.POSITIVE_INFINITY);
    for (let d = 1; d < values.length; d++) {
      const value = values[d];
      if (value !== undefined) mergeCell(cells, d, value, from, this.bounds.valuesMax);
    }
  }

  /** A request for `path` on domain `domainId` that named no link. */
  orphan(day: string, domainId: number, path: string, visits = 1): void {
    let byDomain = this.orphans.get(day);
    if (byDomain === undefined) {
      byDomain = new Map();
      this.orphans.set(day, byDomain);
    }
    let byPath = byDomain.get(domainId);
    if (byPath === undefined) {
      byPath = new Map();
      byDomain.set(domainId, byPath);
    }
    const kept = byPath.get(path);
    if (kept !== undefined) byPath.set(path, kept + visits);
    else if (byPath.size < this.bounds.valuesMax || path === OTHER) byPath.set(path, visits);
    else byPath.set(OTHER, (byPath.get(OTHER) ?? 0) + visits);
  }

  /** Adds everything `other` holds (a batch Postgres could not take) within the bounds; returns the clicks left out. */
  merge(other: Rollups): number {
    let dropped = 0;
    for (const [day, byKey] of other.links) {
      for (const [key, cells] of byKey) {
        const into = this.linkDay(day, key);
        if (into === undefined) {
          const own = cells[0]?.get('');
          dropped += (own?.clicks ?? 0) + (own?.bots ?? 0);
          continue;
        }
        cells.forEach((values, d) => {
          for (const [value, cell] of values) mergeCell(into, d, value, cell, d === 0 ? Number.POSITIVE_INFINITY : this.bounds.valuesMax);
        });
      }
    }
    for (const [day, byDomain] of other.orphans) {
      for (const [domainId, byPath] of byDomain) for (const [path, visits] of byPath) this.orphan(day, domainId, path, visits);
    }
    return dropped;
  }
}

function cellOf(cells: LinkDay, d: number, value: string, valuesMax: number): Cell {
  let values = cells[d];
  if (values === undefined) {
    values = new Map();
    cells[d] = values;
  }
  let cell = values.get(value);
  if (cell === undefined) {
    const key = values.size < valuesMax || value === OTHER ? value : OTHER;
    cell = values.get(key);
    if (cell === undefined) {
      cell = { clicks: 0, bots: 0, visitors: null };
      values.set(key, cell);
    }
  }
  return cell;
}

function mergeCell(cells: LinkDay, d: number, value: string, from: Cell, valuesMax: number): void {
  const cell = cellOf(cells, d, value, valuesMax);
  cell.clicks += from.clicks;
  cell.bots += from.bots;
  if (from.visitors !== null) {
    cell.visitors ??= new Sketch();
    cell.visitors.merge(from.visitors);
  }
}
