// Click analytics off the request path. The redirect hands each 302 to record(), a few field reads
// pushed onto arrays; once per event-loop turn enrich() turns them into numbers in a log (rollups.ts
// ClickLog), allocating nothing per click; fold() turns the log into rows when the click flusher
// takes it, and the click stream reads the same records. No address leaves this file: only its
// place, and a few bits of a salted hash in a sketch. What is kept: docs/api.md#click-analytics;
// what it costs: docs/performance.md#click-analytics-what-they-cost-the-hot-path.

import { msToNextUtcDay, utcDay } from '../core/day-range.ts';
import type { AnalyticsPart, Dimension } from '../core/dimensions.ts';
import { visitorElement } from '../core/hll.ts';
import type { AddressOf } from '../edge/client-address.ts';
import type { SlotHolder, VisitRecorder } from '../edge/ports.ts';
import type { Geo, Place } from './geo.ts';
import { Tables } from './value-tables.ts';
import { V_A, V_B, V_PLACE, V_TABLES, VISITOR_STRIDE, VisitorMemo } from './visitor-memo.ts';
import type { Logger } from 'pino';
import { RollupBatch } from './rollups.ts';
import type { VisitorSalts } from './salts.ts';
import type { LoggedClicks } from './click-events.ts';
import { AGENT, ClickLog, ELEMENT, fold, foldInSlices, LANGUAGE, PLACE, REFERRER, SLOT, SOURCE, STRIDE, TARGET } from './fold.ts';

/** Where the log's records go besides the rollups (analytics/click-stream.ts): each record once, in log order. */
export interface ClickSink {
  /** Reads `clicks` now (the log is reused after a fold). */
  add(clicks: LoggedClicks): void;
}

export interface RollupBounds {
  /** Most (day, link) pairs in a log: past it, the log is folded. */
  readonly maxLinks: number;
  /** Most values per link, day and dimension, and paths per domain and day. */
  readonly valuesMax: number;
}

export interface VisitsOptions {
  /** What is kept (ANALYTICS_DIMENSIONS); the city only when `geo` has cities. */
  readonly parts: ReadonlySet<AnalyticsPart>;
  /** null: no country nor city. */
  readonly geo: Geo | null;
  readonly salts: VisitorSalts;
  readonly bounds: RollupBounds;
  /** The client's address from the peer and X-Forwarded-For, by TRUST_PROXY's rule (edge/client-address.ts). */
  readonly addressOf: AddressOf;
  readonly log: Logger;
  /** The click stream; null or absent: none. */
  readonly sink?: ClickSink | null;
}

/** Most clicks waiting for their turn's enrichment; past it they are dropped (and counted). */
const TURN_MAX = 65_536;
/** Clicks the log holds before it is folded (32 bytes each). */
const LOG_MAX = 1 << 20; // rollups.ts INDEX_SPAN is more
/** Rows of folded clicks held for the flusher (about 70 bytes each, and 4 per sketch element); past it, logs are dropped (counted) until Postgres takes them. */
const ROWS_MAX = 1_000_000;

export class Visits implements VisitRecorder {
  readonly #options: VisitsOptions;
  readonly #dimensions: readonly Dimension[];
  readonly #visitors: boolean;
  readonly #keeps: { readonly referrer: boolean; readonly language: boolean; readonly source: boolean; readonly target: boolean };
  #tables = new Tables();
  // Its whole size at once: the pages of a fresh ArrayBuffer are the system's zero pages until written, so a log
  // costs memory as it fills, and never stops the event loop to be copied into a larger one.
  #log = new ClickLog(LOG_MAX);
  /** The log given up at the last fold, to be the next one once its fold is done. */
  #spare: ClickLog | null = null;
  /** The folds under way, one after the other. */
  #folding: Promise<void> | null = null;
  /** Day -> link key -> its slot in the log. */
  #slotIds = new Map<string, Map<string, number>>();
  #slotKeys: string[] = [];
  #slotDays: string[] = [];
  /** Folded, waiting for the flusher. */
  #batch = new RollupBatch();
  // One turn's clicks, column by column: no object per click.
  #keys: string[] = [];
  #holders: (SlotHolder | undefined)[] = [];
  #userAgents: (string | undefined)[] = [];
  #referers: (string | undefined)[] = [];
  #acceptLanguages: (string | undefined)[] = [];
  #peers: (string | undefined)[] = [];
  #forwardedFors: (string | undefined)[] = [];
  readonly #visitorMemo: VisitorMemo;
  /** The UTC day of the clicks enriched last, until #dayEnds (ms). */
  #day = '';
  #dayEnds = 0;
  #qr: boolean[] = [];
  #targets: number[] = [];
  #n = 0;
  #scheduled = false;
  #dropped = 0;
  readonly #sink: ClickSink | null;
  /** Records of the log handed to the sink already. */
  #handed = 0;
  /** Where each turn's records start in the log, and its time: kept only for a sink. */
  #turnStarts: number[] = [];
  #turnTimes: number[] = [];

  constructor(options: VisitsOptions) {
    this.#options = options;
    this.#sink = options.sink ?? null;
    const hasCities = options.geo?.hasCities ?? false;
    this.#dimensions = [...options.parts].filter(
      (part): part is Dimension =>
        part !== 'visitors' && ((part !== 'country' && part !== 'city') || options.geo !== null) && (part !== 'city' || hasCities),
    );
    this.#visitors = options.parts.has('visitors');
    this.#visitorMemo = new VisitorMemo(options.addressOf, options.geo);
    this.#keeps = {
      referrer: options.parts.has('referrer'),
      language: options.parts.has('language'),
      source: options.parts.has('source'),
      target: options.parts.has('target'),
    };
  }

  /** The dimensions this instance keeps. */
  get dimensions(): readonly Dimension[] {
    return this.#dimensions;
  }

  record(
    key: string,
    holder: SlotHolder | undefined,
    userAgent: string | undefined,
    referer: string | undefined,
    language: string | undefined,
    peer: string | undefined,
    forwardedFor: string | undefined,
    qr: boolean,
    target: number,
  ): void {
    const i = this.#n;
    if (i >= TURN_MAX) {
      this.#dropped++;
      return;
    }
    this.#keys[i] = key;
    this.#holders[i] = holder;
    this.#userAgents[i] = userAgent;
    this.#referers[i] = referer;
    this.#acceptLanguages[i] = language;
    this.#peers[i] = peer;
    this.#forwardedFors[i] = forwardedFor;
    this.#qr[i] = qr;
    this.#targets[i] = target;
    this.#n = i + 1;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(onTurn, this);
    }
  }

  orphan(domainId: number, path: string): void {
    this.#batch.orphan(utcDay(Date.now()), domainId, path, this.#options.bounds.valuesMax);
  }

  /** Logs the clicks recorded since the last call. */
  enrich(): void {
    this.#scheduled = false;
    const n = this.#n;
    if (n === 0) return;
    if (this.#log.n + n > LOG_MAX || this.#tables.full) this.#fold(true);
    const now = Date.now();
    if (now >= this.#dayEnds) {
      this.#day = utcDay(now);
      this.#dayEnds = now + msToNextUtcDay(now);
    }
    const day = this.#day;
    const seeds = this.#options.salts.seeds(day);
    const memo = this.#visitorMemo;
    if (seeds !== memo.seeds) memo.forget(seeds);
    const sink = this.#sink;
    if (sink !== null) this.#turn(now);
    const keeps = this.#keeps;
    const visitors = this.#visitors;
    const tables = this.#tables;
    const { agentBot, agentHash } = tables;
    const visitorData = memo.data;
    let log = this.#log;
    let slots = this.#slotsOf(day);
    for (let i = 0; i < n; i++) {
      const holder = this.#holders[i];
      let slot: number;
      if (holder !== undefined && holder.slots === slots) {
        slot = holder.slot;
      } else {
        slot = this.#slot(this.#keys[i] as string, day, holder);
        // A new slot may have folded the log: a new log, and new slots.
        if (sink !== null && this.#turnTimes.length === 0) this.#turn(now);
        log = this.#log;
        slots = this.#slotsOf(day);
      }
      const agent = tables.agent(this.#userAgents[i]);
      const visitor = memo.index(this.#peers[i], this.#forwardedFors[i], seeds);
      const v = visitor * VISITOR_STRIDE;
      const at = log.n++ * STRIDE;
      const data = log.data;
      data[at + SLOT] = slot;
      data[at + AGENT] = agent;
      if (visitorData[v + V_TABLES] !== tables.generation) {
        visitorData[v + V_PLACE] = tables.placeOf(memo.places[visitor] as Place);
        visitorData[v + V_TABLES] = tables.generation;
      }
      data[at + PLACE] = visitorData[v + V_PLACE] as number;
      data[at + REFERRER] = keeps.referrer ? tables.referrerOf(this.#referers[i]) : 0;
      data[at + LANGUAGE] = keeps.language ? tables.languageOf(this.#acceptLanguages[i]) : 0;
      data[at + SOURCE] = keeps.source && this.#qr[i] === true ? 1 : 0;
      data[at + TARGET] = keeps.target ? (this.#targets[i] as number) : 0;
      data[at + ELEMENT] =
        agentBot[agent] === 1
          ? -1
          : visitors
            ? visitorElement(visitorData[v + V_A] as number, visitorData[v + V_B] as number, agentHash[agent] as number)
            : 0;
    }
    // Let go of the turn's strings.
    this.#keys = [];
    this.#holders = [];
    this.#userAgents = [];
    this.#referers = [];
    this.#acceptLanguages = [];
    this.#peers = [];
    this.#forwardedFors = [];
    this.#qr = [];
    this.#targets = [];
    this.#n = 0;
  }

  /** The turn of `now` starts at the log's next record (unless a turn of the same ms is its last). */
  #turn(now: number): void {
    const last = this.#turnTimes.length - 1;
    if (last >= 0 && this.#turnTimes[last] === now) return;
    this.#turnStarts.push(this.#log.n);
    this.#turnTimes.push(now);
  }

  /** Hands the clicks enriched so far to the sink (a stream flush); nothing without a sink. */
  stream(): void {
    if (this.#sink === null) return;
    this.enrich();
    this.#hand();
  }

  /** The log's records not yet handed to the sink, handed. */
  #hand(): void {
    const sink = this.#sink;
    const log = this.#log;
    if (sink === null || this.#handed >= log.n) return;
    const clicks = {
      log,
      from: this.#handed,
      to: log.n,
      turnStarts: this.#turnStarts,
      turnTimes: this.#turnTimes,
      slots: { keys: this.#slotKeys, days: this.#slotDays },
      tables: this.#tables,
    };
    this.#handed = log.n;
    try {
      sink.add(clicks);
    } catch (err) {
      this.#options.log.error({ err, clicks: clicks.to - clicks.from }, 'the click stream could not take a flush of clicks');
    }
  }

  /**
   * The slot of `key` on `day` in the log, made if new (the log folded first when it holds
   * maxLinks links: the turn's ids stay good, the tables are kept); kept on `holder`.
   */
  #slot(key: string, day: string, holder: SlotHolder | undefined): number {
    let slots = this.#slotsOf(day);
    let slot = slots.get(key);
    if (slot === undefined) {
      if (this.#slotKeys.length >= this.#options.bounds.maxLinks) {
        this.#fold(false);
        slots = this.#slotsOf(day);
      }
      slot = this.#slotKeys.length;
      this.#slotKeys.push(key);
      this.#slotDays.push(day);
      slots.set(key, slot);
    }
    if (holder !== undefined) {
      holder.slot = slot;
      holder.slots = slots;
    }
    return slot;
  }

  #slotsOf(day: string): Map<string, number> {
    let slots = this.#slotIds.get(day);
    if (slots === undefined) {
      slots = new Map();
      this.#slotIds.set(day, slots);
    }
    return slots;
  }

  /**
   * Folds the log into the batch (or drops it, counted, when the batch holds too many rows) in
   * slices, after the folds under way; a new log and slots start at once, and the tables too when
   * they are full and `restartTables` (the fold reads the tables as they are now).
   */
  #fold(restartTables: boolean): void {
    this.#hand();
    this.#handed = 0;
    if (this.#sink !== null) {
      this.#turnStarts = [];
      this.#turnTimes = [];
    }
    const log = this.#log;
    if (log.n > 0) {
      const slots = { keys: this.#slotKeys, days: this.#slotDays };
      const readers = this.#tables.readers(this.#dimensions);
      const valuesMax = this.#options.bounds.valuesMax;
      const run = async (): Promise<void> => {
        try {
          if (this.#batch.rows >= ROWS_MAX) this.#dropped += log.n;
          else await foldInSlices(fold(log, slots, readers, valuesMax, this.#batch));
          log.n = 0;
          this.#spare = log;
        } catch (err) {
          this.#dropped += log.n;
          this.#options.log.error({ err, clicks: log.n }, 'the analytics of a log of clicks could not be folded: dropped');
        }
      };
      const folding = (this.#folding ?? Promise.resolve()).then(run);
      this.#folding = folding;
      void folding.finally(() => {
        if (this.#folding === folding) this.#folding = null;
      });
      const spare = this.#spare;
      this.#spare = null;
      this.#log = spare ?? new ClickLog(LOG_MAX);
    }
    this.#slotIds = new Map();
    this.#slotKeys = [];
    this.#slotDays = [];
    if (restartTables && this.#tables.full) this.#tables = new Tables();
  }

  /** Everything counted so far (this turn's clicks first), once its folds are done; counting starts again from nothing. */
  async take(): Promise<RollupBatch> {
    this.enrich();
    this.#fold(true);
    // A fold may start while one is awaited (the log filled up): each is in the batch taken.
    while (this.#folding !== null) await this.#folding;
    const taken = this.#batch;
    this.#batch = new RollupBatch();
    return taken;
  }

  /** A batch Postgres could not take: added back, unless the rows held would pass the bound (then it is dropped, counted). */
  putBack(batch: RollupBatch): void {
    if (this.#batch.rows + batch.rows > ROWS_MAX) this.#dropped += batch.clicks;
    else this.#batch.add(batch, this.#options.bounds.valuesMax);
  }

  /**
   * Clicks left out of the analytics (they are still counted): more than 65,536 in one turn of the
   * event loop, or more than 1,000,000 rows waiting for Postgres.
   */
  get dropped(): number {
    return this.#dropped;
  }
}

function onTurn(visits: Visits): void {
  visits.enrich();
}
