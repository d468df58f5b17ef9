// Country (and city, with a city database) of a client address, from an MMDB file read once at
// start: by default the country database shipped with the package (@ip-location-db's
// geo-whois-asn-country, CC0: no licence key, free to redistribute; `npm update` refreshes it), or
// GEOIP_DATABASE (a GeoLite2-City or DB-IP city file of the operator's). A lookup costs about
// 1.3 µs; each address is looked up once and remembered.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Reader, type Response } from 'maxmind';
import { UNKNOWN } from '../core/dimensions.ts';

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

export class Geo {
  readonly #reader: Reader<Response>;
  /** The database names cities: the city dimension can be kept. */
  readonly hasCities: boolean;
  readonly description: string;
  #places = new Map<string, Place>();

  constructor(path: string) {
    this.#reader = new Reader<Response>(readFileSync(path));
    const { databaseType, buildEpoch } = this.#reader.metadata;
    this.hasCities = /city/i.test(databaseType);
    this.description = `${databaseType} built ${buildEpoch.toISOString().slice(0, 10)}`;
  }

  /** Where `address` is (an IPv4-mapped IPv6 address counts as its IPv4 one); unknown when the database does not say. */
  place(address: string): Place {
    let place = this.#places.get(address);
    if (place !== undefined) return place;
    place = this.#lookUp(address.startsWith('::ffff:') ? address.slice(7) : address);
    if (this.#places.size >= PLACES_MAX) this.#places.clear();
    this.#places.set(address, place);
    return place;
  }

  #lookUp(address: string): Place {
    let record: PlaceRecord | null;
    try {
      record = this.#reader.get(address) as PlaceRecord | null;
    } catch {
      return NOWHERE;
    }
    if (record === null) return NOWHERE;
    const country = record.country_code ?? record.country?.iso_code ?? UNKNOWN;
    const city = typeof record.city === 'string' ? record.city : (record.city?.names?.en ?? UNKNOWN);
    return { country: country === '' ? UNKNOWN : country, city: city === '' ? UNKNOWN : city };
  }
}
