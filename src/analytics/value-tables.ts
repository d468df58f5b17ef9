// What analytics keeps of a turn's clicks as numbers (visits.ts): each User-Agent, place, Referer
// host and primary language read once and given an id in tables that start over past TABLE_MAX
// (each generation numbered, so that a visitor's place id knows which tables it is of), and how
// each dimension reads its value off a click of the log (fold.ts DimensionReader).

import { DIRECT, dimensionId, primaryLanguage, referrerHost, UNKNOWN, type Dimension } from '../core/dimensions.ts';
import { TARGET_VALUES } from '../core/redirect-rules.ts';
import { NO_AGENT, parseAgent, type Agent } from '../core/user-agents.ts';
import { AGENT, LANGUAGE, PLACE, REFERRER, SOURCE, TARGET, type DimensionReader } from './fold.ts';
import type { Place } from './geo.ts';

/** The target dimension's values: OTHER, then a plain link's (never stored), then TARGET_VALUES from TARGET_URL on. */
const TARGET_SKIPPED = 1;
const TARGET_READ: readonly string[] = ['', '', ...TARGET_VALUES.slice(1)];
const TARGET_OF = Int32Array.from(TARGET_VALUES, (_, raw) => (raw === 0 ? TARGET_SKIPPED : raw + 1));

/** Distinct User-Agents, Referers, Accept-Languages and places remembered, and values per dimension, before the tables start over. */
const TABLE_MAX = 20_000;
/** A place no database placed. */
export const NOWHERE: Place = { country: UNKNOWN, city: UNKNOWN };

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
export class Tables {
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
