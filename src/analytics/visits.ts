// Click analytics off the request path. The redirect hands each 302 to record(): a few field
// reads pushed onto arrays, nothing parsed. Once per event-loop turn (setImmediate), enrich()
// reads the turn's clicks: the User-Agent parsed, the place looked up, the referrer's host and the
// primary language read (each remembered per string, so that the same values are the same
// objects), the visitor hashed with the day's salt into a sketch element. Clicks of a link's day
// that share every value (a profile) are added up together, found by four Map lookups by
// identity, instead of each click being counted under each dimension; the profiles are folded into
// the rollups (rollups.ts: per dimension and value, bounded) when there are many, and when the
// click flusher takes them to Postgres. No address leaves this file: only its place, and a few
// bits of a salted hash in a sketch.

import { utcDay } from '../core/day-range.ts';
import { dimensionId, DIRECT, primaryLanguage, referrerHost, UNKNOWN, type AnalyticsPart, type Dimension } from '../core/dimensions.ts';
import { hash32, hllElement, Sketch } from '../core/hll.ts';
import { Memo } from '../core/memo.ts';
import type { Geo, Place } from './geo.ts';
import { Rollups, type Cell, type RollupBounds } from './rollups.ts';
import type { VisitorSalts } from './salts.ts';
import { AgentParser, type Agent } from './user-agents.ts';

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
/** Profiles held before they are folded into the rollups. */
const PROFILES_MAX = 100_000;
const NOWHERE: Place = { country: UNKNOWN, city: UNKNOWN };
/** A profile's value of a dimension that is not kept. */
const NOT_KEPT = '';

/** A link's day's clicks by profile: agent -> place -> referrer host -> language -> [by link, by QR code]. */
type Profiles = Map<Agent, Map<Place, Map<string, Map<string, (Cell | undefined)[]>>>>;

export class Visits implements VisitRecorder {
  readonly #options: VisitsOptions;
  readonly #agents = new AgentParser();
  // The same few Referers and Accept-Languages come again and again: each is read once.
  readonly #referrers = new Memo(referrerHost, MEMO_MAX);
  readonly #languages = new Memo(primaryLanguage, MEMO_MAX);
  readonly #dimensions: readonly Dimension[];
  readonly #visitors: boolean;
  readonly #keeps: { readonly referrer: boolean; readonly language: boolean; readonly source: boolean };
  #rollups: Rollups;
  /** Day -> link key -> its profiles, until folded into the rollups. */
  #profiles = new Map<string, Map<string, Profiles>>();
  #profileCount = 0;
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
  /** Scratch: a profile's value per dimension id. */
  readonly #values: (string | undefined)[];

  constructor(options: VisitsOptions) {
    this.#options = options;
    const hasCities = options.geo?.hasCities ?? false;
    this.#dimensions = [...options.parts].filter(
      (part): part is Dimension =>
        part !== 'visitors' && ((part !== 'country' && part !== 'city') || options.geo !== null) && (part !== 'city' || hasCities),
    );
    this.#visitors = options.parts.has('visitors');
    this.#keeps = { referrer: options.parts.has('referrer'), language: options.parts.has('language'), source: options.parts.has('source') };
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

  /** Adds the clicks recorded since the last call to their profiles. */
  enrich(): void {
    this.#scheduled = false;
    const n = this.#n;
    if (n === 0) return;
    const day = utcDay(Date.now());
    const seeds = this.#options.salts.seeds(day);
    const geo = this.#options.geo;
    const keeps = this.#keeps;
    let byKey = this.#profiles.get(day);
    if (byKey === undefined) {
      byKey = new Map();
      this.#profiles.set(day, byKey);
    }
    for (let i = 0; i < n; i++) {
      const agent = this.#agents.parse(this.#userAgents[i]);
      const address = this.#addresses[i] as string;
      const referer = this.#referers[i];
      const acceptLanguage = this.#acceptLanguages[i];
      const cell = this.#profileOf(
        byKey,
        this.#keys[i] as string,
        agent,
        geo === null ? NOWHERE : geo.place(address),
        !keeps.referrer ? NOT_KEPT : referer === undefined ? DIRECT : this.#referrers.get(referer),
        !keeps.language ? NOT_KEPT : acceptLanguage === undefined ? UNKNOWN : this.#languages.get(acceptLanguage),
        keeps.source && this.#qr[i] === true ? 1 : 0,
      );
      if (agent.bot) {
        cell.bots++;
        continue;
      }
      cell.clicks++;
      if (this.#visitors) {
        cell.visitors ??= new Sketch();
        cell.visitors.add(hllElement(hash32(address, seeds.a ^ agent.hash), hash32(address, (seeds.b + agent.hash) | 0)));
      }
    }
    // Let go of the turn's strings.
    this.#keys = [];
    this.#userAgents = [];
    this.#referers = [];
    this.#acceptLanguages = [];
    this.#addresses = [];
    this.#qr = [];
    this.#n = 0;
    if (this.#profileCount >= PROFILES_MAX) this.#fold();
  }

  /** The counts of a profile of link `key` on the day of `byKey`, made at its first click. */
  #profileOf(byKey: Map<string, Profiles>, key: string, agent: Agent, place: Place, referrer: string, language: string, qr: number): Cell {
    const byPlace = inner(inner(byKey, key), agent);
    const byLanguage = inner(inner(byPlace, place), referrer);
    let sources = byLanguage.get(language);
    if (sources === undefined) {
      sources = [undefined, undefined];
      byLanguage.set(language, sources);
    }
    let cell = sources[qr];
    if (cell === undefined) {
      cell = { clicks: 0, bots: 0, visitors: null };
      sources[qr] = cell;
      this.#profileCount++;
    }
    return cell;
  }

  /** Adds every profile to the rollups, under each kept dimension's value; links past the bound are dropped (and counted). */
  #fold(): void {
    for (const [day, byKey] of this.#profiles) {
      for (const [key, profiles] of byKey) {
        const cells = this.#rollups.linkDay(day, key);
        for (const [agent, byPlace] of profiles) {
          for (const [place, byReferrer] of byPlace) {
            for (const [referrer, byLanguage] of byReferrer) {
              for (const [language, sources] of byLanguage) {
                sources.forEach((cell, qr) => {
                  if (cell === undefined) return;
                  if (cells === undefined) this.#dropped += cell.clicks + cell.bots;
                  else this.#rollups.add(cells, cell, this.#valuesOf(agent, place, referrer, language, qr));
                });
              }
            }
          }
        }
      }
    }
    this.#profiles = new Map();
    this.#profileCount = 0;
  }

  /** A profile's value of each kept dimension, by dimension id (in a scratch array). */
  #valuesOf(agent: Agent, place: Place, referrer: string, language: string, qr: number): readonly (string | undefined)[] {
    const values = this.#values;
    for (const dimension of this.#dimensions) values[dimensionId(dimension)] = valueOf(dimension, agent, place, referrer, language, qr);
    return values;
  }

  /** Everything counted so far (this turn's clicks enriched first); counting starts again from nothing. */
  take(): Rollups {
    this.enrich();
    this.#fold();
    const taken = this.#rollups;
    this.#rollups = new Rollups(this.#options.bounds);
    return taken;
  }

  /** A batch Postgres could not take: added back, after what was counted since (which stays if room runs out). */
  putBack(batch: Rollups): void {
    this.#fold();
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

/** The map `outer` holds under `key`, made empty if it holds none. */
function inner<K, IK, IV>(outer: Map<K, Map<IK, IV>>, key: K): Map<IK, IV> {
  let map = outer.get(key);
  if (map === undefined) {
    map = new Map();
    outer.set(key, map);
  }
  return map;
}

function valueOf(dimension: Dimension, agent: Agent, place: Place, referrer: string, language: string, qr: number): string {
  switch (dimension) {
    case 'referrer':
      return referrer;
    case 'country':
      return place.country;
    case 'city':
      return place.city === UNKNOWN ? UNKNOWN : `${place.city}, ${place.country}`;
    case 'device':
      return agent.device;
    case 'browser':
      return agent.browser;
    case 'os':
      return agent.os;
    case 'language':
      return language;
    default:
      return qr === 1 ? 'qr' : 'link';
  }
}

function onTurn(visits: Visits): void {
  visits.enrich();
}
