// Enriched clicks added up for Postgres: per UTC day and link, per dimension and value, clicks by
// people, by bots, and the people's visitor sketch; and visits to paths that named no link, per
// day, domain and path. visits.ts keeps a turn's clicks as numbers in a log (ClickLog); fold()
// turns the log into rows of click_rollups, column by column as the statement takes them, at most
// `valuesMax` values per link, day and dimension (the rest counted under OTHER). Rows of two folds
// (in chunks of their own) may name the same value: Postgres adds them up (analytics/store.ts). Taken out whole by the click
// flusher, and put back if Postgres could not take them.

import { splitKey, type LinkKey } from '../core/domains.ts';
import { dimensionId, OTHER } from '../core/dimensions.ts';

/** The target dimension is a link's own: not added up per workspace (its rule 1 is another link's rule 1). */
const LINK_ONLY_ID = dimensionId('target');
import { compactSorted } from '../core/hll.ts';

/** More than a log's clicks (visits.ts LOG_MAX): a click's index and its element share one number. */
const INDEX_SPAN = 2 ** 21;

/** Rows per chunk: one statement's. A link's day is never split. */
export const CHUNK_ROWS = 20_000;

/**
 * Rows of click_rollups, column by column, of one fold: a link's day, dimension and value once. The sketches are kept as their elements, in one array
 * of the chunk's (4 bytes an element, where a literal would take a string of its own per row); the
 * statement's literal is made when the chunk is written (sketchLiteral).
 */
export class RollupRows {
  readonly domainIds: number[] = [];
  readonly codes: string[] = [];
  readonly days: string[] = [];
  readonly dimensions: number[] = [];
  readonly values: string[] = [];
  readonly clicks: number[] = [];
  readonly bots: number[] = [];
  /** Clicks (people and bots) the rows count, each once: what is lost if the chunk is. */
  clickTotal = 0;
  /** Its rows are in the workspaces' rollups already (a write that stopped after them put the chunk back). */
  workspacesAdded = false;
  /** Where each row's sketch ends in #elements (it starts where the row before's ends). */
  readonly #sketchEnds: number[] = [];
  #elements = new Int32Array(1024);
  #n = 0;

  get length(): number {
    return this.codes.length;
  }

  /** A row whose sketch is `elements[from, to)`, sorted (a register's elements together, its greatest rank last). */
  push(
    domainId: number,
    code: string,
    day: string,
    dimension: number,
    value: string,
    clicks: number,
    bots: number,
    elements: Int32Array,
    from: number,
    to: number,
  ): void {
    this.domainIds.push(domainId);
    this.codes.push(code);
    this.days.push(day);
    this.dimensions.push(dimension);
    this.values.push(value);
    this.clicks.push(clicks);
    this.bots.push(bots);
    if (this.#n + (to - from) > this.#elements.length) {
      const larger = new Int32Array(2 * (this.#n + (to - from)));
      larger.set(this.#elements.subarray(0, this.#n));
      this.#elements = larger;
    }
    this.#n = compactSorted(elements, from, to, this.#elements, this.#n);
    this.#sketchEnds.push(this.#n);
  }

  /** Row `row`'s sketch as an integer[] literal ('{65,130}'): compacted when it was pushed. */
  sketchLiteral(row: number): string {
    return `{${this.sketch(row).join(',')}}`;
  }

  /** Row `row`'s sketch: its elements, sorted, one per register (a view, not a copy). */
  sketch(row: number): Int32Array {
    const from = row === 0 ? 0 : (this.#sketchEnds[row - 1] as number);
    return this.#elements.subarray(from, this.#sketchEnds[row]);
  }
}

/** A workspace's day, dimension and value, added up over the links' rows. */
interface WorkspaceCell {
  clicks: number;
  bots: number;
  /** The links' sketches appended (sorted and merged when long, and at the end). */
  elements: Int32Array;
  n: number;
}

/** Past this many elements, a cell's sketch is merged (one element per register: 4,096 at most). */
const CELL_ELEMENTS_MAX = 16_384;

/**
 * Rows of workspace_rollups, column by column: the links' rows of some chunks added up per
 * workspace, day, dimension and value (their values before Postgres bounds them: each workspace has
 * its own bound), the sketches merged. Made in the service once per flush: Postgres added them up
 * in every chunk's statement before, and that was most of a busy chunk's time (README).
 */
export class WorkspaceRows {
  readonly workspaceIds: number[] = [];
  readonly days: string[] = [];
  readonly dimensions: number[] = [];
  readonly values: string[] = [];
  readonly clicks: number[] = [];
  readonly bots: number[] = [];
  readonly sketches: string[] = [];

  get length(): number {
    return this.workspaceIds.length;
  }

  /**
   * Adds up the rows of `chunks`; `workspaceOf` names a link's workspace (undefined: the link is
   * gone, and so are its rows, as Postgres leaves out a gone link's).
   */
  static of(chunks: readonly RollupRows[], workspaceOf: (domainId: number, code: string) => number | undefined): WorkspaceRows {
    // Workspace -> day -> dimension -> value -> cell; a chunk's rows of one link stand together.
    const cells = new Map<number, Map<string, Map<string, WorkspaceCell>[]>>();
    for (const chunk of chunks) {
      let domainId = -1;
      let code = '';
      let day = '';
      let byDimension: Map<string, WorkspaceCell>[] | null = null;
      for (let row = 0; row < chunk.length; row++) {
        if (chunk.domainIds[row] !== domainId || chunk.codes[row] !== code || chunk.days[row] !== day) {
          domainId = chunk.domainIds[row] as number;
          code = chunk.codes[row] as string;
          day = chunk.days[row] as string;
          const workspaceId = workspaceOf(domainId, code);
          byDimension = workspaceId === undefined ? null : dayOf(cells, workspaceId, day);
        }
        if (byDimension === null) continue;
        const dimension = chunk.dimensions[row] as number;
        if (dimension === LINK_ONLY_ID) continue;
        const byValue = (byDimension[dimension] ??= new Map());
        const value = chunk.values[row] as string;
        let cell = byValue.get(value);
        if (cell === undefined) {
          cell = { clicks: 0, bots: 0, elements: new Int32Array(16), n: 0 };
          byValue.set(value, cell);
        }
        cell.clicks += chunk.clicks[row] as number;
        cell.bots += chunk.bots[row] as number;
        append(cell, chunk.sketch(row));
      }
    }
    const rows = new WorkspaceRows();
    for (const [workspaceId, byDay] of cells) {
      for (const [day, byDimension] of byDay) {
        for (const [dimension, byValue] of byDimension.entries()) {
          if (byValue === undefined) continue;
          for (const [value, cell] of byValue) {
            merge(cell);
            rows.workspaceIds.push(workspaceId);
            rows.days.push(day);
            rows.dimensions.push(dimension);
            rows.values.push(value);
            rows.clicks.push(cell.clicks);
            rows.bots.push(cell.bots);
            rows.sketches.push(`{${cell.elements.subarray(0, cell.n).join(',')}}`);
          }
        }
      }
    }
    return rows;
  }
}

function dayOf(
  cells: Map<number, Map<string, Map<string, WorkspaceCell>[]>>,
  workspaceId: number,
  day: string,
): Map<string, WorkspaceCell>[] {
  let byDay = cells.get(workspaceId);
  if (byDay === undefined) {
    byDay = new Map();
    cells.set(workspaceId, byDay);
  }
  let byDimension = byDay.get(day);
  if (byDimension === undefined) {
    byDimension = [];
    byDay.set(day, byDimension);
  }
  return byDimension;
}

/** Appends a sketch's elements to the cell's, merging them first when they would pass CELL_ELEMENTS_MAX. */
function append(cell: WorkspaceCell, sketch: Int32Array): void {
  if (sketch.length === 0) return;
  if (cell.n + sketch.length > CELL_ELEMENTS_MAX) merge(cell);
  if (cell.n + sketch.length > cell.elements.length) {
    const larger = new Int32Array(Math.max(2 * cell.elements.length, cell.n + sketch.length));
    larger.set(cell.elements.subarray(0, cell.n));
    cell.elements = larger;
  }
  cell.elements.set(sketch, cell.n);
  cell.n += sketch.length;
}

/** The cell's elements sorted, one per register (its greatest rank). */
function merge(cell: WorkspaceCell): void {
  if (cell.n < 2) return;
  cell.elements.subarray(0, cell.n).sort();
  cell.n = compactSorted(cell.elements, 0, cell.n, cell.elements, 0);
}

/** Day -> domain id -> path -> visits. */
export type Orphans = Map<string, Map<number, Map<string, number>>>;

/** What a flush writes of the analytics. */
export class RollupBatch {
  /** Chunks of about CHUNK_ROWS rows. */
  readonly chunks: RollupRows[] = [];
  readonly orphans: Orphans = new Map();

  /** Clicks (people and bots) the chunks count: what is lost if the batch is. */
  get clicks(): number {
    let clicks = 0;
    for (const chunk of this.chunks) clicks += chunk.clickTotal;
    return clicks;
  }

  /** Rows in all the chunks. */
  get rows(): number {
    let rows = 0;
    for (const chunk of this.chunks) rows += chunk.length;
    return rows;
  }

  get empty(): boolean {
    return this.rows === 0 && this.orphans.size === 0;
  }

  /** A request for `path` on domain `domainId` that named no link; at most `valuesMax` paths per domain and day (the rest under OTHER). */
  orphan(day: string, domainId: number, path: string, valuesMax: number, visits = 1): void {
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
    else if (byPath.size < valuesMax || path === OTHER) byPath.set(path, visits);
    else byPath.set(OTHER, (byPath.get(OTHER) ?? 0) + visits);
  }

  /** What a write that stopped at chunk `from` leaves: the chunks from there on, and the orphan visits unless they were written. */
  remainder(from: number, orphans: boolean): RollupBatch {
    const rest = new RollupBatch();
    rest.chunks.push(...this.chunks.slice(from));
    if (orphans) for (const [day, byDomain] of this.orphans) rest.orphans.set(day, byDomain);
    return rest;
  }

  /** Adds what `other` holds: its chunks as they are, its orphan visits within the bound. */
  add(other: RollupBatch, valuesMax: number): void {
    this.chunks.push(...other.chunks);
    for (const [day, byDomain] of other.orphans) {
      for (const [domainId, byPath] of byDomain) for (const [path, visits] of byPath) this.orphan(day, domainId, path, valuesMax, visits);
    }
  }
}

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
  const n = log.n;
  if (n === 0) return;
  const slotCount = slots.keys.length;
  // The clicks in slot order (a counting sort): each slot's stand together.
  const starts = new Int32Array(slotCount + 1);
  const data = log.data;
  // The event loop may turn every 65,536 clicks of these passes over the whole log too.
  for (let i = 0; i < n; i++) {
    (starts[(data[i * STRIDE + SLOT] as number) + 1] as number)++;
    if ((i & 0xffff) === 0xffff) yield;
  }
  for (let s = 0; s < slotCount; s++) starts[s + 1] = (starts[s + 1] as number) + (starts[s] as number);
  const order = new Int32Array(n);
  const next = starts.slice(0, slotCount);
  for (let i = 0; i < n; i++) {
    const s = data[i * STRIDE + SLOT] as number;
    order[next[s] as number] = i;
    next[s] = (next[s] as number) + 1;
    if ((i & 0xffff) === 0xffff) yield;
  }
  // Scratch, reused by every slot: its clicks by element, each value's cell, then each click's cell and the cells' sketches.
  const byElement = new Float64Array(n);
  const cellOfValue = dimensions.map((dimension) => new Int32Array(dimension.values.length).fill(-1));
  let cellOfClick = new Int32Array(256);
  let elements = new Int32Array(256);
  const cells = new Cells();
  // Chunks of its own: within a chunk, a (link, day, dimension, value) is one row (analytics/store.ts relies on it).
  let rows = new RollupRows();
  batch.chunks.push(rows);
  // The slot's clicks, field by field, in element order: read once from the log (one cache line a click), then in sequence.
  let columns = Array.from({ length: STRIDE }, () => new Int32Array(256));
  for (let s = 0; s < slotCount; s++) {
    const from = starts[s] as number;
    const to = starts[s + 1] as number;
    const k = to - from;
    if (k === 0) continue;
    if (k === 1) {
      // Most slots of a long tail: one click, one row per dimension with the same counts and sketch.
      const i = (order[from] as number) * STRIDE;
      const element = data[i + ELEMENT] as number;
      const { domainId, code } = splitKey(slots.keys[s] as LinkKey);
      const day = slots.days[s] as string;
      const [clicks, bots] = element < 0 ? [0, 1] : [1, 0];
      const sketchEnd = element > 0 ? i + ELEMENT + 1 : i + ELEMENT;
      for (let d = 0; d < dimensions.length; d++) {
        const dimension = dimensions[d] as DimensionReader;
        const source = data[i + dimension.field] as number;
        const value = dimension.of === null ? source : (dimension.of[source] as number);
        if (value === dimension.skipped) continue;
        rows.push(domainId, code, day, dimension.id, dimension.values[value] as string, clicks, bots, data, i + ELEMENT, sketchEnd);
      }
      rows.clickTotal++;
    } else {
      yield* slot(s, from, to);
    }
    if (rows.length >= CHUNK_ROWS) {
      rows = new RollupRows();
      batch.chunks.push(rows);
    }
    yield;
  }

  /** The rows of slot `s`, whose clicks are order[from, to); yields after each dimension (a busy link's slot holds many). */
  function* slot(s: number, from: number, to: number): Generator<void, void, void> {
    const k = to - from;
    if (k > cellOfClick.length) {
      cellOfClick = new Int32Array(2 * k);
      elements = new Int32Array(2 * k);
      columns = Array.from({ length: STRIDE }, () => new Int32Array(2 * k));
    }
    // Sorted by sketch element, once: every cell's elements are then gathered in order.
    if (k > 1) {
      for (let j = from; j < to; j++) {
        const i = order[j] as number;
        byElement[j] = ((data[i * STRIDE + ELEMENT] as number) + 1) * INDEX_SPAN + i;
      }
      const sorted = byElement.subarray(from, to).sort();
      for (let j = from; j < to; j++) order[j] = (sorted[j - from] as number) % INDEX_SPAN;
    }
    // Click by click, each record read once (a cache line), its fields spread to the columns.
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
    const { domainId, code } = splitKey(slots.keys[s] as LinkKey);
    const day = slots.days[s] as string;
    for (let d = 0; d < dimensions.length; d++) {
      const dimension = dimensions[d] as DimensionReader;
      const byValue = cellOfValue[d] as Int32Array;
      const { of } = dimension;
      const column = columns[dimension.field] as Int32Array;
      const max = dimension.id === 0 ? Number.POSITIVE_INFINITY : valuesMax;
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
      // The people's elements grouped by cell (a counting sort: still in order), then each cell's sketch.
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
        rows.push(
          domainId,
          code,
          day,
          dimension.id,
          dimension.values[value] as string,
          cells.clicks[cell] as number,
          cells.bots[cell] as number,
          elements,
          start,
          start + (cells.elements[cell] as number),
        );
        if (dimension.id === 0) rows.clickTotal += (cells.clicks[cell] as number) + (cells.bots[cell] as number);
      }
      // Values past the bound point at OTHER's cell: forget those too.
      if (overflowed) {
        for (let j = 0; j < k; j++) {
          const source = column[j] as number;
          byValue[of === null ? source : (of[source] as number)] = -1;
        }
      }
      yield;
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
