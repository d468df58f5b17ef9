// Country (and city, with a city database) of a client address, from an MMDB file read once at
// start: by default the country database shipped with the package (@ip-location-db's
// geo-whois-asn-country, CC0: no licence key, free to redistribute; `npm update` refreshes it), or
// GEOIP_DATABASE (a GeoLite2-City or DB-IP city file of the operator's). A lookup walks the
// database's tree and decodes its record; its answer is remembered for the address, or, for an IPv4
// address whose network in the database is a /24 or wider, for the whole /24 (visitors of one
// network skip the lookup).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Reader, type Response } from 'maxmind';
import { UNKNOWN } from '../core/dimensions.ts';
import { Memo } from '../core/memo.ts';

export const SHIPPED_DATABASE = createRequire(import.meta.url).resolve(
  '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
);

export interface Place {
  readonly country: string;
  readonly city: string;
}

/** The two shapes of record: MaxMind's (GeoLite2, DB-IP) and @ip-location-db's flat one. */
interface PlaceRecord {
  country_code?: string;
  city?: string | { names?: { en?: string } };
  country?: { iso_code?: string };
}

const NOWHERE: Place = { country: UNKNOWN, city: UNKNOWN };
const PLACES_MAX = 50_000;
const NETWORKS_MAX = 100_000;

export class Geo {
  readonly #reader: Reader<Response>;
  /** The database names cities: the city dimension can be kept. */
  readonly hasCities: boolean;
  readonly description: string;
  readonly #places = new Memo((address) => this.#lookUp(address), PLACES_MAX, 64);
  /** One object per distinct place: analytics adds clicks up by place, by identity. */
  readonly #distinct = new Memo<Place>(() => NOWHERE, PLACES_MAX);
  /** IPv4 /24 networks ('81.2.69') the database places as a whole. */
  readonly #networks = new Memo<Place>(() => NOWHERE, NETWORKS_MAX, 64);

  constructor(path: string) {
    this.#reader = new Reader<Response>(readFileSync(path));
    const { databaseType, buildEpoch } = this.#reader.metadata;
    this.hasCities = /city/i.test(databaseType);
    this.description = `${databaseType} built ${buildEpoch.toISOString().slice(0, 10)}`;
  }

  /** Where `address` is (an IPv4-mapped IPv6 address counts as its IPv4 one); unknown when the database does not say. */
  place(address: string): Place {
    const dot = address.lastIndexOf('.');
    if (dot === -1) return this.#places.get(address);
    const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
    const network = v4.slice(0, v4.length - (address.length - dot));
    return this.#networks.peek(network) ?? this.#places.get(v4);
  }

  #one(place: Place): Place {
    const name = `${place.country}|${place.city}`;
    const kept = this.#distinct.peek(name);
    if (kept !== undefined) return kept;
    this.#distinct.set(name, place);
    return place;
  }

  #lookUp(address: string): Place {
    let found: [PlaceRecord | null, number];
    try {
      found = this.#reader.getWithPrefixLength(address) as [PlaceRecord | null, number];
    } catch {
      return NOWHERE;
    }
    const [record, prefixLength] = found;
    const place = record === null ? NOWHERE : this.#one(placeOf(record));
    // The database's network holds the whole /24: its other addresses are there too.
    const dot = address.lastIndexOf('.');
    if (dot !== -1 && !address.includes(':') && prefixLength <= 24) this.#networks.set(address.slice(0, dot), place);
    return place;
  }
}

function placeOf(record: PlaceRecord): Place {
  const country = record.country_code ?? record.country?.iso_code ?? UNKNOWN;
  const city = typeof record.city === 'string' ? record.city : (record.city?.names?.en ?? UNKNOWN);
  return { country: country === '' ? UNKNOWN : country, city: city === '' ? UNKNOWN : city };
}
