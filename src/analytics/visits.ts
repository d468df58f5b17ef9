// Click analytics off the request path. The redirect hands each 302 to record(): a few field
// reads pushed onto arrays, nothing parsed. Once per event-loop turn (setImmediate), enrich()
// turns the turn's clicks into numbers in a log (rollups.ts ClickLog), allocating nothing per
// click: the link's day a slot (kept on the link's click count between its clicks: SlotHolder),
// the User-Agent an agent (parsed once per string: device, browser, OS, bot), the address a place
// (geo.ts) and a sketch element (the visitor hashed with the day's salt), the Referer's host and
// the primary language ids, each string read once and remembered. When the click flusher takes
// the analytics, or the log is full, fold() turns the log into rows per dimension and value
// (bounded per link and day). With a click stream (CLICK_STREAM), the log's records are also
// handed to it, with the times of their turns, at each stream flush and before each fold: the
// records as they are, read once more (click-events.ts), nothing more per click. No address leaves
// this file: only its place, and a few bits of a salted hash in a sketch.

import { msToNextUtcDay, utcDay } from '../core/day-range.ts';
import { DIRECT, dimensionId, primaryLanguage, referrerHost, UNKNOWN, type AnalyticsPart, type Dimension } from '../core/dimensions.ts';
import { hash32, visitorElement } from '../core/hll.ts';
import type { AddressOf } from '../edge/client-address.ts';
import type { SlotHolder, VisitRecorder } from '../edge/ports.ts';
import type { Geo, Place } from './geo.ts';
import type { Logger } from 'pino';
import {
  AGENT,
  ClickLog,
  ELEMENT,
  fold,
  foldInSlices,
  LANGUAGE,
  PLACE,
  REFERRER,
  RollupBatch,
  SLOT,
  SOURCE,
  STRIDE,
  TARGET,
  type DimensionReader,
} from './rollups.ts';
import type { Seeds, VisitorSalts } from './salts.ts';
import type { LoggedClicks } from './click-events.ts';
import { TARGET_VALUES } from '../core/redirect-rules.ts';
import { NO_AGENT, parseAgent, type Agent } from '../core/user-agents.ts';

/** The target dimension's values: OTHER, then a plain link's (never stored), then TARGET_VALUES from TARGET_URL on. */
const TARGET_SKIPPED = 1;
const TARGET_READ: readonly string[] = ['', '', ...TARGET_VALUES.slice(1)];
const TARGET_OF = Int32Array.from(TARGET_VALUES, (_, raw) => (raw === 0 ? TARGET_SKIPPED : raw + 1));

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

// What analytics keeps of a client address, for a day, VISITOR_STRIDE numbers a visitor in one
// Int32Array (10,000 visitors in 160 KB, where objects were spread over the heap: one cache line
// read per click instead of a Map value's object): its place's id in the tables of generation
// V_TABLES (0: none yet), and its hashes under the day's seeds. Its place is kept beside.
const V_PLACE = 0;
const V_TABLES = 1;
const V_A = 2;
const V_B = 3;
const VISITOR_STRIDE = 4;

/** Most clicks waiting for their turn's enrichment; past it they are dropped (and counted). */
const TURN_MAX = 65_536;
/** Clicks the log holds before it is folded (32 bytes each). */
const LOG_MAX = 1 << 20; // rollups.ts INDEX_SPAN is more
/** Distinct User-Agents, Referers, Accept-Languages and places remembered, and values per dimension, before the tables start over. */
const TABLE_MAX = 20_000;
/** Distinct (peer, X-Forwarded-For) pairs remembered (a Map entry and its key each, and 16 bytes of numbers); past it the memo starts over. */
const VISITORS_MAX = 131_072;
/** Rows of folded clicks held for the flusher (about 70 bytes each, and 4 per sketch element); past it, logs are dropped (counted) until Postgres takes them. */
const ROWS_MAX = 1_000_000;
const NOWHERE: Place = { country: UNKNOWN, city: UNKNOWN };

let tablesMade = 0;

/** Strings to ids, each once: id 0 is OTHER (''). */
class Dictionary {
  readonly #ids = new Map<string, number>([['', 0]]);
  readonly values: string[] = [''];

  id(value: string): number {
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.#ids.set(value, id);
    }
    return id;
  }

  get size(): number {
    return this.values.length;
  }
}

/**
 * What the log's numbers stand for: ids of agents, places, referrers and languages, and each
 * dimension's values. They hold as long as the log they were made for: made anew at a fold.
 */
class Tables {
  /** Tables made before these, plus one: what a visitor's V_TABLES is checked against. */
  readonly generation = ++tablesMade;
  readonly agentIds = new Map<string, number>();
  // Per agent id: bot or not, its device, browser and OS value ids, and its hash.
  readonly agentBot: number[] = [];
  readonly agentDevice: number[] = [];
  readonly agentBrowser: number[] = [];
  readonly agentOs: number[] = [];
  readonly agentHash: number[] = [];
  readonly placeIds = new Map<Place, number>();
  readonly placeCountry: number[] = [];
  readonly placeCity: number[] = [];
  readonly referrerIds = new Map<string, number>();
  readonly languageIds = new Map<string, number>();
  readonly device = new Dictionary();
  readonly browser = new Dictionary();
  readonly os = new Dictionary();
  readonly country = new Dictionary();
  readonly city = new Dictionary();
  readonly referrer = new Dictionary();
  readonly language = new Dictionary();
  readonly direct = this.referrer.id(DIRECT);
  readonly unknownLanguage = this.language.id(UNKNOWN);

  constructor() {
    this.agentOf(NO_AGENT);
    this.placeOf(NOWHERE);
  }

  agent(userAgent: string | undefined): number {
    if (userAgent === undefined || userAgent === '') return 0;
    let id = this.agentIds.get(userAgent);
    if (id === undefined) {
      id = this.agentOf(parseAgent(userAgent));
      this.agentIds.set(userAgent, id);
    }
    return id;
  }

  agentOf(agent: Agent): number {
    const id = this.agentBot.length;
    this.agentBot.push(agent.bot ? 1 : 0);
    this.agentDevice.push(this.device.id(agent.device));
    this.agentBrowser.push(this.browser.id(agent.browser));
    this.agentOs.push(this.os.id(agent.os));
    this.agentHash.push(agent.hash);
    return id;
  }

  placeOf(place: Place): number {
    let id = this.placeIds.get(place);
    if (id === undefined) {
      id = this.placeCountry.length;
      this.placeIds.set(place, id);
      this.placeCountry.push(this.country.id(place.country));
      this.placeCity.push(this.city.id(place.city === UNKNOWN ? UNKNOWN : `${place.city}, ${place.country}`));
    }
    return id;
  }

  referrerOf(referer: string | undefined): number {
    return referer === undefined ? this.direct : idOf(this.referrerIds, this.referrer, referer, referrerHost);
  }

  languageOf(acceptLanguage: string | undefined): number {
    return acceptLanguage === undefined ? this.unknownLanguage : idOf(this.languageIds, this.language, acceptLanguage, primaryLanguage);
  }

  /** One of the tables has grown past TABLE_MAX: time they started over. */
  get full(): boolean {
    return (
      this.agentBot.length >= TABLE_MAX ||
      this.placeCountry.length >= TABLE_MAX ||
      this.referrerIds.size >= TABLE_MAX ||
      this.languageIds.size >= TABLE_MAX ||
      this.referrer.size >= TABLE_MAX ||
      this.language.size >= TABLE_MAX
    );
  }

  /** How each kept dimension reads a click of `log`, the link's own row first. */
  readers(dimensions: readonly Dimension[]): DimensionReader[] {
    const readers: DimensionReader[] = [{ id: 0, field: SOURCE, of: Int32Array.of(0, 0), values: [''], skipped: -1 }];
    for (const dimension of dimensions) {
      const id = dimensionId(dimension);
      switch (dimension) {
        case 'referrer':
          readers.push({ id, field: REFERRER, of: null, values: this.referrer.values, skipped: -1 });
          break;
        case 'language':
          readers.push({ id, field: LANGUAGE, of: null, values: this.language.values, skipped: -1 });
          break;
        case 'country':
          readers.push({ id, field: PLACE, of: Int32Array.from(this.placeCountry), values: this.country.values, skipped: -1 });
          break;
        case 'city':
          readers.push({ id, field: PLACE, of: Int32Array.from(this.placeCity), values: this.city.values, skipped: -1 });
          break;
        case 'device':
          readers.push({ id, field: AGENT, of: Int32Array.from(this.agentDevice), values: this.device.values, skipped: -1 });
          break;
        case 'browser':
          readers.push({ id, field: AGENT, of: Int32Array.from(this.agentBrowser), values: this.browser.values, skipped: -1 });
          break;
        case 'os':
          readers.push({ id, field: AGENT, of: Int32Array.from(this.agentOs), values: this.os.values, skipped: -1 });
          break;
        case 'source':
          readers.push({ id, field: SOURCE, of: Int32Array.of(1, 2), values: ['', 'link', 'qr'], skipped: -1 });
          break;
        case 'target':
          // The logged number is the value's id, but for a plain link's 0, whose clicks get no row.
          readers.push({ id, field: TARGET, of: TARGET_OF, values: TARGET_READ, skipped: TARGET_SKIPPED });
          break;
      }
    }
    return readers;
  }
}

/** The id in `dictionary` of what `read` makes of `field`, read once per distinct field (remembered in `ids`). */
function idOf(ids: Map<string, number>, dictionary: Dictionary, field: string, read: (field: string) => string): number {
  let id = ids.get(field);
  if (id === undefined) {
    id = dictionary.id(read(field));
    ids.set(field, id);
  }
  return id;
}

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
  /** Peer -> X-Forwarded-For -> the visitor's index, under #visitorSeeds. */
  #visitorsByPeer = new Map<string | undefined, Map<string | undefined, number>>();
  #visitorCount = 0;
  /** Per visitor index: VISITOR_STRIDE numbers (V_PLACE ...), and its place. */
  readonly #visitorData = new Int32Array(VISITORS_MAX * VISITOR_STRIDE);
  readonly #visitorPlaces: Place[] = [];
  /** The UTC day of the clicks enriched last, until #dayEnds (ms). */
  #day = '';
  #dayEnds = 0;
  #visitorSeeds: Seeds | null = null;
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
    if (seeds !== this.#visitorSeeds) this.#forgetVisitors(seeds);
    const sink = this.#sink;
    if (sink !== null) this.#turn(now);
    const keeps = this.#keeps;
    const visitors = this.#visitors;
    const tables = this.#tables;
    const { agentBot, agentHash } = tables;
    const visitorData = this.#visitorData;
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
      const visitor = this.#visitor(this.#peers[i], this.#forwardedFors[i], seeds);
      const v = visitor * VISITOR_STRIDE;
      const at = log.n++ * STRIDE;
      const data = log.data;
      data[at + SLOT] = slot;
      data[at + AGENT] = agent;
      if (visitorData[v + V_TABLES] !== tables.generation) {
        visitorData[v + V_PLACE] = tables.placeOf(this.#visitorPlaces[visitor] as Place);
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

  /** The index of the visitor of a peer and X-Forwarded-For: its address read, placed and hashed once a day. */
  #visitor(peer: string | undefined, forwardedFor: string | undefined, seeds: Seeds): number {
    if (this.#visitorCount >= VISITORS_MAX) this.#forgetVisitors(seeds);
    let byForwarded = this.#visitorsByPeer.get(peer);
    if (byForwarded === undefined) {
      byForwarded = new Map();
      this.#visitorsByPeer.set(peer, byForwarded);
    }
    let visitor = byForwarded.get(forwardedFor);
    if (visitor === undefined) {
      const address = this.#options.addressOf(peer, forwardedFor);
      const geo = this.#options.geo;
      visitor = this.#visitorCount++;
      this.#visitorPlaces[visitor] = geo === null ? NOWHERE : geo.place(address);
      const v = visitor * VISITOR_STRIDE;
      this.#visitorData[v + V_TABLES] = 0;
      this.#visitorData[v + V_A] = hash32(address, seeds.a);
      this.#visitorData[v + V_B] = hash32(address, seeds.b);
      byForwarded.set(forwardedFor, visitor);
    }
    return visitor;
  }

  #forgetVisitors(seeds: Seeds): void {
    this.#visitorsByPeer = new Map();
    this.#visitorCount = 0;
    this.#visitorSeeds = seeds;
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
