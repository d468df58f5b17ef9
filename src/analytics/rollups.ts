// Enriched clicks added up for Postgres: per UTC day and link, per dimension and value, clicks by
// people, by bots, and the people's visitor sketch; and visits to paths that named no link, per
// day, domain and path. visits.ts keeps a turn's clicks as numbers in a log (ClickLog); fold()
// turns the log into rows of click_rollups (fold.ts), column by column as the statement takes them, at most
// `valuesMax` values per link, day and dimension (the rest counted under OTHER). Rows of two folds
// (in chunks of their own) may name the same value: Postgres adds them up (analytics/rollup-store.ts). Taken out whole by the click
// flusher, and put back if Postgres could not take them.

import { dimensionId, OTHER } from '../core/dimensions.ts';
import { compactSorted } from '../core/hll.ts';

/** The target dimension is a link's own: not added up per workspace (its rule 1 is another link's rule 1). */
const LINK_ONLY_ID = dimensionId('target');

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
 * its own bound), the sketches merged. Made in the service once per flush, not in each chunk's
 * statement, where adding them up is most of a busy chunk's time in Postgres
 * (docs/performance.md#click-analytics-what-they-cost-the-hot-path).
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
