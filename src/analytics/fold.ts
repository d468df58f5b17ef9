// The fold: a turn's clicks, kept by visits.ts as numbers in a log (ClickLog, a record of STRIDE
// int32s per click), added up into rows of click_rollups (rollups.ts RollupRows): per slot (a
// link's day), per dimension and value, clicks by people, by bots, and the people's sketch
// elements in order. It sorts the log by slot once, then reads each slot's records once into
// columns, and yields often, so that a fold of a full log never holds the event loop for long.

import type { ShortCode } from '../core/codes.ts';
import { splitKey, type LinkKey } from '../core/domains.ts';
import { CHUNK_ROWS, RollupRows, type RollupBatch } from './rollups.ts';

/** More than a log's clicks (visits.ts LOG_MAX): a click's index and its element share one number. */
const INDEX_SPAN = 2 ** 21;

// Where each field of a click stands in its record of the log.
/** The (day, link) slot. */
export const SLOT = 0;
export const AGENT = 1;
export const PLACE = 2;
export const REFERRER = 3;
export const LANGUAGE = 4;
/** 1: a QR code's. */
export const SOURCE = 5;
/** The visitor's sketch element; -1: a bot; 0: a person, visitors not kept. */
export const ELEMENT = 6;
/** What chose a link's target (core/redirect-rules.ts TARGET_URL ...); 0: a plain link's. */
export const TARGET = 7;
export type Field = typeof AGENT | typeof PLACE | typeof REFERRER | typeof LANGUAGE | typeof SOURCE | typeof TARGET;
/** Int32s per click: a record fills half a cache line, so a click read for one dimension is there for the next. */
export const STRIDE = 8;

/** Clicks as numbers, a record of STRIDE each: the slot, what the dimensions read (ids into visits.ts's tables), the sketch element. */
export class ClickLog {
  n = 0;
  data: Int32Array;

  constructor(capacity: number) {
    this.data = new Int32Array(capacity * STRIDE);
  }
}

/** How a dimension reads its value off a click: `of[field]` (the field itself when `of` is null), a `values` index. */
export interface DimensionReader {
  /** Its id in the rollups (core/dimensions.ts); 0: the link's own row. */
  readonly id: number;
  readonly field: Field;
  readonly of: Int32Array | null;
  /** Value id -> value; id 0 is OTHER (''). */
  readonly values: readonly string[];
  /** A value id whose clicks get no row (a plain link's under `target`); -1: none. */
  readonly skipped: number;
}

/** The (day, link) of each slot of a log. */
export interface Slots {
  readonly keys: readonly string[];
  readonly days: readonly string[];
}

/**
 * Adds the log's clicks to `batch` as rows: per slot (a link's day), for each dimension, a row per
 * value with its clicks, bots and sketch; the values past `valuesMax` counted under OTHER. Yields
 * after each slot, so that the caller may let the event loop turn (foldInSlices).
 */
export function* fold(
  log: ClickLog,
  slots: Slots,
  dimensions: readonly DimensionReader[],
  valuesMax: number,
  batch: RollupBatch,
): Generator<void, void, void> {
  if (log.n === 0) return;
  yield* new Fold(log, slots, dimensions, valuesMax, batch).run();
}

/** One fold of a log: its clicks in slot order, and the scratch every slot reuses. */
class Fold {
  readonly #data: Int32Array;
  readonly #n: number;
  readonly #slots: Slots;
  readonly #dimensions: readonly DimensionReader[];
  readonly #valuesMax: number;
  readonly #batch: RollupBatch;
  /** Where each slot's clicks start in #order (a counting sort: each slot's stand together). */
  readonly #starts: Int32Array;
  readonly #order: Int32Array;
  /** Scratch: a slot's clicks by element, each value's cell, each click's cell and the cells' sketches. */
  readonly #byElement: Float64Array;
  readonly #cellOfValue: Int32Array[];
  #cellOfClick = new Int32Array(256);
  #elements = new Int32Array(256);
  readonly #cells = new Cells();
  /** The slot's clicks, field by field, in element order: read once from the log (one cache line a click), then in sequence. */
  #columns = Array.from({ length: STRIDE }, () => new Int32Array(256));
  /** Chunks of its own: within a chunk, a (link, day, dimension, value) is one row (rollup-store.ts relies on it). */
  #rows = new RollupRows();

  constructor(log: ClickLog, slots: Slots, dimensions: readonly DimensionReader[], valuesMax: number, batch: RollupBatch) {
    this.#data = log.data;
    this.#n = log.n;
    this.#slots = slots;
    this.#dimensions = dimensions;
    this.#valuesMax = valuesMax;
    this.#batch = batch;
    this.#starts = new Int32Array(slots.keys.length + 1);
    this.#order = new Int32Array(log.n);
    this.#byElement = new Float64Array(log.n);
    this.#cellOfValue = dimensions.map((dimension) => new Int32Array(dimension.values.length).fill(-1));
    batch.chunks.push(this.#rows);
  }

  *run(): Generator<void, void, void> {
    yield* this.#sortBySlot();
    const starts = this.#starts;
    for (let s = 0; s < this.#slots.keys.length; s++) {
      const from = starts[s] as number;
      const to = starts[s + 1] as number;
      if (to === from) continue;
      if (to - from === 1) this.#single(s, from);
      else yield* this.#slot(s, from, to);
      if (this.#rows.length >= CHUNK_ROWS) {
        this.#rows = new RollupRows();
        this.#batch.chunks.push(this.#rows);
      }
      yield;
    }
  }

  /** The clicks in slot order (a counting sort). The event loop may turn every 65,536 clicks of these passes over the whole log. */
  *#sortBySlot(): Generator<void, void, void> {
    const data = this.#data;
    const n = this.#n;
    const starts = this.#starts;
    const slotCount = this.#slots.keys.length;
    for (let i = 0; i < n; i++) {
      (starts[(data[i * STRIDE + SLOT] as number) + 1] as number)++;
      if ((i & 0xffff) === 0xffff) yield;
    }
    for (let s = 0; s < slotCount; s++) starts[s + 1] = (starts[s + 1] as number) + (starts[s] as number);
    const order = this.#order;
    const next = starts.slice(0, slotCount);
    for (let i = 0; i < n; i++) {
      const s = data[i * STRIDE + SLOT] as number;
      order[next[s] as number] = i;
      next[s] = (next[s] as number) + 1;
      if ((i & 0xffff) === 0xffff) yield;
    }
  }

  /** Most slots of a long tail: one click, one row per dimension with the same counts and sketch. */
  #single(s: number, from: number): void {
    const data = this.#data;
    const rows = this.#rows;
    const i = (this.#order[from] as number) * STRIDE;
    const element = data[i + ELEMENT] as number;
    const { domainId, code } = splitKey(this.#slots.keys[s] as LinkKey);
    const day = this.#slots.days[s] as string;
    const [clicks, bots] = element < 0 ? [0, 1] : [1, 0];
    const sketchEnd = element > 0 ? i + ELEMENT + 1 : i + ELEMENT;
    for (const dimension of this.#dimensions) {
      const source = data[i + dimension.field] as number;
      const value = dimension.of === null ? source : (dimension.of[source] as number);
      if (value === dimension.skipped) continue;
      rows.push(domainId, code, day, dimension.id, dimension.values[value] as string, clicks, bots, data, i + ELEMENT, sketchEnd);
    }
    rows.clickTotal++;
  }

  /** The rows of slot `s`, whose clicks are order[from, to); yields after each dimension (a busy link's slot holds many). */
  *#slot(s: number, from: number, to: number): Generator<void, void, void> {
    const k = to - from;
    this.#spread(from, to);
    const { domainId, code } = splitKey(this.#slots.keys[s] as LinkKey);
    const day = this.#slots.days[s] as string;
    for (let d = 0; d < this.#dimensions.length; d++) {
      this.#dimension(d, k, domainId, code, day);
      yield;
    }
  }

  /** Slot clicks order[from, to) sorted by sketch element, then spread field by field to the columns. */
  #spread(from: number, to: number): void {
    const k = to - from;
    if (k > this.#cellOfClick.length) {
      this.#cellOfClick = new Int32Array(2 * k);
      this.#elements = new Int32Array(2 * k);
      this.#columns = Array.from({ length: STRIDE }, () => new Int32Array(2 * k));
    }
    const data = this.#data;
    const order = this.#order;
    const byElement = this.#byElement;
    // Sorted by sketch element, once: every cell's elements are then gathered in order.
    for (let j = from; j < to; j++) {
      const i = order[j] as number;
      byElement[j] = ((data[i * STRIDE + ELEMENT] as number) + 1) * INDEX_SPAN + i;
    }
    const sorted = byElement.subarray(from, to).sort();
    for (let j = from; j < to; j++) order[j] = (sorted[j - from] as number) % INDEX_SPAN;
    // Click by click, each record read once (a cache line), its fields spread to the columns.
    const columns = this.#columns;
    const agents = columns[AGENT] as Int32Array;
    const places = columns[PLACE] as Int32Array;
    const referrers = columns[REFERRER] as Int32Array;
    const languages = columns[LANGUAGE] as Int32Array;
    const sources = columns[SOURCE] as Int32Array;
    const targets = columns[TARGET] as Int32Array;
    const clickElements = columns[ELEMENT] as Int32Array;
    for (let j = 0; j < k; j++) {
      const i = (order[from + j] as number) * STRIDE;
      agents[j] = data[i + AGENT] as number;
      places[j] = data[i + PLACE] as number;
      referrers[j] = data[i + REFERRER] as number;
      languages[j] = data[i + LANGUAGE] as number;
      sources[j] = data[i + SOURCE] as number;
      targets[j] = data[i + TARGET] as number;
      clickElements[j] = data[i + ELEMENT] as number;
    }
  }

  /** The rows of dimension `d` of the slot spread to the columns (k clicks). */
  #dimension(d: number, k: number, domainId: number, code: ShortCode, day: string): void {
    const dimension = this.#dimensions[d] as DimensionReader;
    const byValue = this.#cellOfValue[d] as Int32Array;
    const { of } = dimension;
    const column = this.#columns[dimension.field] as Int32Array;
    const clickElements = this.#columns[ELEMENT] as Int32Array;
    const cellOfClick = this.#cellOfClick;
    const cells = this.#cells;
    const max = dimension.id === 0 ? Number.POSITIVE_INFINITY : this.#valuesMax;
    cells.clear();
    let overflowed = false;
    for (let j = 0; j < k; j++) {
      const source = column[j] as number;
      const value = of === null ? source : (of[source] as number);
      let cell = byValue[value] as number;
      if (cell === -1) {
        const kept = cells.count < max || value === 0 ? value : 0;
        overflowed ||= kept !== value;
        cell = byValue[kept] as number;
        if (cell === -1) {
          cell = cells.make(kept);
          byValue[kept] = cell;
        }
        byValue[value] = cell;
      }
      cellOfClick[j] = cell;
      const element = clickElements[j] as number;
      if (element < 0) cells.bots[cell] = (cells.bots[cell] as number) + 1;
      else {
        cells.clicks[cell] = (cells.clicks[cell] as number) + 1;
        if (element > 0) cells.elements[cell] = (cells.elements[cell] as number) + 1;
      }
    }
    this.#rowsOf(dimension, byValue, k, domainId, code, day);
    // Values past the bound point at OTHER's cell: forget those too.
    if (overflowed) {
      for (let j = 0; j < k; j++) {
        const source = column[j] as number;
        byValue[of === null ? source : (of[source] as number)] = -1;
      }
    }
  }

  /** The people's elements grouped by cell (a counting sort: still in order), then a row per cell with its sketch. */
  #rowsOf(dimension: DimensionReader, byValue: Int32Array, k: number, domainId: number, code: ShortCode, day: string): void {
    const cells = this.#cells;
    const clickElements = this.#columns[ELEMENT] as Int32Array;
    const cellOfClick = this.#cellOfClick;
    const elements = this.#elements;
    const rows = this.#rows;
    const ends = cells.elementEnds();
    for (let j = k - 1; j >= 0; j--) {
      const element = clickElements[j] as number;
      if (element <= 0) continue;
      const cell = cellOfClick[j] as number;
      const at = (ends[cell] as number) - 1;
      ends[cell] = at;
      elements[at] = element;
    }
    for (let cell = 0; cell < cells.count; cell++) {
      const value = cells.values[cell] as number;
      byValue[value] = -1;
      if (value === dimension.skipped) continue;
      const start = ends[cell] as number;
      const clicks = cells.clicks[cell] as number;
      const bots = cells.bots[cell] as number;
      rows.push(
        domainId,
        code,
        day,
        dimension.id,
        dimension.values[value] as string,
        clicks,
        bots,
        elements,
        start,
        start + (cells.elements[cell] as number),
      );
      if (dimension.id === 0) rows.clickTotal += clicks + bots;
    }
  }
}

/** Longest the event loop waits for a fold between two turns. */
const SLICE_MS = 5;

/** Runs a fold to its end, letting the event loop turn every SLICE_MS (a fold of a full log takes the CPU for a second). */
export async function foldInSlices(steps: Generator<void, void, void>): Promise<void> {
  let sliceStart = performance.now();
  while (steps.next().done !== true) {
    if (performance.now() - sliceStart < SLICE_MS) continue;
    await new Promise((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  }
}

/** `from`'s numbers in an array twice as long. */
function grown(from: Int32Array): Int32Array<ArrayBuffer> {
  const to = new Int32Array(2 * from.length);
  to.set(from);
  return to;
}

/** One slot's cells of one dimension: value id, counts, and how many sketch elements. */
class Cells {
  count = 0;
  values = new Int32Array(64);
  clicks = new Int32Array(64);
  bots = new Int32Array(64);
  elements = new Int32Array(64);
  #ends = new Int32Array(64);

  clear(): void {
    this.count = 0;
  }

  make(value: number): number {
    const cell = this.count++;
    if (cell === this.values.length) {
      this.values = grown(this.values);
      this.clicks = grown(this.clicks);
      this.bots = grown(this.bots);
      this.elements = grown(this.elements);
      this.#ends = new Int32Array(this.values.length);
    }
    this.values[cell] = value;
    this.clicks[cell] = 0;
    this.bots[cell] = 0;
    this.elements[cell] = 0;
    return cell;
  }

  /** Where each cell's elements end, laid out one cell after another. */
  elementEnds(): Int32Array {
    let end = 0;
    for (let cell = 0; cell < this.count; cell++) {
      end += this.elements[cell] as number;
      this.#ends[cell] = end;
    }
    return this.#ends;
  }
}
