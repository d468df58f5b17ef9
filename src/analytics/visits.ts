// Click analytics off the request path. The redirect hands each 302 to record(): a few field
// reads pushed onto arrays, nothing parsed. Once per event-loop turn (setImmediate), enrich()
// turns the turn's clicks into rollups: the User-Agent parsed (remembered per string), the country
// looked up (remembered per address), the visitor hashed with the day's salt into a sketch element,
// the referrer's host and the primary language read; then added up in memory (rollups.ts) until
// the click flusher takes them to Postgres with the click counts, in the same transaction.
// No address leaves this file: only its country, and a few bits of a salted hash in a sketch.

import { utcDay } from '../core/day-range.ts';
import { dimensionId, DIRECT, primaryLanguage, referrerHost, UNKNOWN, type AnalyticsPart, type Dimension } from '../core/dimensions.ts';
import { hash32, hllElement } from '../core/hll.ts';
import { Memo } from '../core/memo.ts';
import type { Geo } from './geo.ts';
import { Rollups, type RollupBounds } from './rollups.ts';
import type { VisitorSalts } from './salts.ts';
import { AgentParser } from './user-agents.ts';

/** What the redirect tells analytics; each call must cost next to nothing. */
export interface VisitRecorder {
  /** A 302 of the link `key` (core/domains.ts), with the request's fields as they came. */
  record(
    key: string,
    userAgent: string | undefined,
    referer: string | undefined,
    language: string | undefined,
    address: string,
    qr: boolean,
  ): void;
  /** A request for `path` on domain `domainId` that named no link. */
  orphan(domainId: number, path: string): void;
}

export interface VisitsOptions {
  /** What is kept (ANALYTICS_DIMENSIONS); the city only when `geo` has cities. */
  readonly parts: ReadonlySet<AnalyticsPart>;
  /** null: no country nor city. */
  readonly geo: Geo | null;
  readonly salts: VisitorSalts;
  readonly bounds: RollupBounds;
}

/** Most clicks waiting for their turn's enrichment; past it they are dropped (and counted). */
const TURN_MAX = 65_536;
/** Distinct Referers and Accept-Languages remembered each. */
const MEMO_MAX = 10_000;

export class Visits implements VisitRecorder {
  readonly #options: VisitsOptions;
  readonly #agents = new AgentParser();
  // The same few Referers and Accept-Languages come again and again: each is read once.
  readonly #referrers = new Memo(referrerHost, MEMO_MAX);
  readonly #languages = new Memo(primaryLanguage, MEMO_MAX);
  /** The dimensions kept, as [dimension id, dimension] pairs. */
  readonly #dimensions: readonly Dimension[];
  readonly #visitors: boolean;
  #rollups: Rollups;
  // One turn's clicks, column by column: no object per click.
  #keys: string[] = [];
  #userAgents: (string | undefined)[] = [];
  #referers: (string | undefined)[] = [];
  #acceptLanguages: (string | undefined)[] = [];
  #addresses: string[] = [];
  #qr: boolean[] = [];
  #n = 0;
  #scheduled = false;
  #dropped = 0;
  /** Scratch: one click's value per dimension id. */
  readonly #values: (string | undefined)[];

  constructor(options: VisitsOptions) {
    this.#options = options;
    const hasCities = options.geo?.hasCities ?? false;
    this.#dimensions = [...options.parts].filter(
      (part): part is Dimension =>
        part !== 'visitors' && ((part !== 'country' && part !== 'city') || options.geo !== null) && (part !== 'city' || hasCities),
    );
    this.#visitors = options.parts.has('visitors');
    this.#rollups = new Rollups(options.bounds);
    this.#values = Array.from({ length: 9 }, () => undefined);
  }

  /** The dimensions this instance keeps. */
  get dimensions(): readonly Dimension[] {
    return this.#dimensions;
  }

  record(
    key: string,
    userAgent: string | undefined,
    referer: string | undefined,
    language: string | undefined,
    address: string,
    qr: boolean,
  ): void {
    const i = this.#n;
    if (i >= TURN_MAX) {
      this.#dropped++;
      return;
    }
    this.#keys[i] = key;
    this.#userAgents[i] = userAgent;
    this.#referers[i] = referer;
    this.#acceptLanguages[i] = language;
    this.#addresses[i] = address;
    this.#qr[i] = qr;
    this.#n = i + 1;
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(onTurn, this);
    }
  }

  orphan(domainId: number, path: string): void {
    this.#rollups.orphan(utcDay(Date.now()), domainId, path);
  }

  /** Enriches the clicks recorded since the last call into the rollups. */
  enrich(): void {
    this.#scheduled = false;
    const n = this.#n;
    if (n === 0) return;
    const rollups = this.#rollups;
    const day = utcDay(Date.now());
    const seeds = this.#options.salts.seeds(day);
    const geo = this.#options.geo;
    const values = this.#values;
    const dimensions = this.#dimensions;
    for (let i = 0; i < n; i++) {
      const cells = rollups.linkDay(day, this.#keys[i] as string);
      if (cells === undefined) {
        this.#dropped++;
        continue;
      }
      const agent = this.#agents.parse(this.#userAgents[i]);
      const address = this.#addresses[i] as string;
      const place = geo?.place(address);
      for (const dimension of dimensions) values[dimensionId(dimension)] = this.#valueOf(dimension, i, agent, place);
      let element = -1;
      if (this.#visitors && !agent.bot) {
        element = hllElement(hash32(address, seeds.a ^ agent.hash), hash32(address, (seeds.b + agent.hash) | 0));
      }
      rollups.count(cells, agent.bot, element, values);
    }
    // Let go of the turn's strings.
    this.#keys = [];
    this.#userAgents = [];
    this.#referers = [];
    this.#acceptLanguages = [];
    this.#addresses = [];
    this.#qr = [];
    this.#n = 0;
  }

  #valueOf(
    dimension: Dimension,
    i: number,
    agent: { device: string; browser: string; os: string },
    place: { country: string; city: string } | undefined,
  ): string | undefined {
    switch (dimension) {
      case 'referrer': {
        const referer = this.#referers[i];
        return referer === undefined ? DIRECT : this.#referrers.get(referer);
      }
      case 'country':
        return place?.country;
      case 'city':
        return place === undefined ? undefined : place.city === 'unknown' ? place.city : `${place.city}, ${place.country}`;
      case 'device':
        return agent.device;
      case 'browser':
        return agent.browser;
      case 'os':
        return agent.os;
      case 'language': {
        const language = this.#acceptLanguages[i];
        return language === undefined ? UNKNOWN : this.#languages.get(language);
      }
      default:
        return this.#qr[i] === true ? 'qr' : 'link';
    }
  }

  /** Everything counted so far (this turn's clicks enriched first); counting starts again from nothing. */
  take(): Rollups {
    this.enrich();
    const taken = this.#rollups;
    this.#rollups = new Rollups(this.#options.bounds);
    return taken;
  }

  /** A batch Postgres could not take: added back, after what was counted since (which stays if room runs out). */
  putBack(batch: Rollups): void {
    this.#dropped += this.#rollups.merge(batch);
  }

  /**
   * Clicks left out of the analytics (they are still counted): more than 65,536 in one turn of the
   * event loop, or more links between two flushes than CLICK_MAX_CODES.
   */
  get dropped(): number {
    return this.#dropped;
  }
}

function onTurn(visits: Visits): void {
  visits.enrich();
}
